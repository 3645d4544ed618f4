//go:build unix

package bash

import "golang.org/x/sys/unix"

// searchable is access(name, X_OK), as git asks of a repository's
// objects/ and refs/.
func searchable(name string) bool { return unix.Access(name, unix.X_OK) == nil }

// readRegularPrefix returns up to n bytes from the start of name, a
// regular file. The open neither blocks (a FIFO swapped in since the
// caller's Lstat) nor follows a link, and the file is checked to be
// regular once open.
func readRegularPrefix(name string, n int) (string, bool) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return "", false
	}
	buf := make([]byte, n)
	got := 0
	for got < n {
		m, err := unix.Read(fd, buf[got:])
		if err == unix.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			break
		}
		got += m
	}
	return string(buf[:got]), true
}
