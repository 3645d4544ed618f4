package host

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmtools/wasmtools/abi"
)

// A dirs grant is served through grantFS rather than wazero's own
// directory mount, because that one resolves guest paths with the host's
// path resolution and so follows symbolic links out of the granted folder
// (a link the plugin made with path_symlink, or one already in the folder).
// grantFS resolves every path inside an os.Root: "..", and symbolic links
// wherever they point, are followed only while they stay inside the folder,
// by construction rather than by checks that could race.
//
// On top of that, a plugin may only make links that point down from where
// they sit (relative, no ".." component), and may not move or copy a link
// that does not, so that the links it leaves behind stay inside the folder
// for programs outside the sandbox that follow them too.

const (
	// maxOpenFiles bounds the files one instance holds open through one
	// grant, so that a plugin cannot exhaust the host process's
	// descriptors (every other tool needs them too).
	maxOpenFiles = 1024
	// maxRenameScan bounds the entries a directory rename inspects for
	// links that would point elsewhere after the move; a larger directory
	// is not moved (fail closed).
	maxRenameScan = 10000
)

// grantFS is one dirs grant of one instance.
type grantFS struct {
	experimentalsys.UnimplementedFS
	root     *os.Root
	readOnly bool
	open     atomic.Int32
	// names serialises the changes of names in the folder (rename, link,
	// symlink, unlink, rmdir, mkdir) of every instance granted it. The
	// checks on a link to be moved resolve its path, and so does the
	// move: without the lock, another instance could re-point a link in
	// that path between the two and have a link moved that the check
	// never saw.
	names *sync.Mutex
}

// folderLocks hands out one lock per granted folder (by device and inode,
// so that two spellings of one folder share it).
type folderLocks struct {
	mu    sync.Mutex
	locks map[[2]uint64]*sync.Mutex
}

func (l *folderLocks) get(root *os.Root) (*sync.Mutex, error) {
	fi, err := root.Stat(".")
	if err != nil {
		return nil, err
	}
	st := sys.NewStat_t(fi)
	key := [2]uint64{st.Dev, st.Ino}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.locks == nil {
		l.locks = map[[2]uint64]*sync.Mutex{}
	}
	m := l.locks[key]
	if m == nil {
		m = &sync.Mutex{}
		l.locks[key] = m
	}
	return m, nil
}

// openGrants opens the folders of dirs grants, each as an os.Root. On error
// none stays open.
func (h *Host) openGrants(dirs []abi.DirGrant) ([]*grantFS, error) {
	var out []*grantFS
	for _, d := range dirs {
		root, err := os.OpenRoot(d.Host)
		if err != nil {
			closeGrants(out)
			return nil, fmt.Errorf("dirs grant %s: %w (create the folder, or remove the grant)", d.Host, err)
		}
		names, err := h.folderLocks.get(root)
		if err != nil {
			root.Close()
			closeGrants(out)
			return nil, fmt.Errorf("dirs grant %s: %w (check the folder's permissions, or remove the grant)", d.Host, err)
		}
		out = append(out, &grantFS{root: root, readOnly: !d.Write, names: names})
	}
	return out, nil
}

func closeGrants(gs []*grantFS) {
	for _, g := range gs {
		g.root.Close()
	}
}

// rel turns a path wazero hands over into one relative to the root:
// wazero passes paths cleaned and relative to the pre-open, but a path
// under a directory opened at the pre-open itself arrives as "/name".
func rel(p string) string {
	p = strings.TrimLeft(p, "/")
	if p == "" {
		return "."
	}
	return p
}

// errno maps an error of os.Root to a WASI errno. An escape attempt (a path
// or link leading outside the root) is EPERM, like wazero's own refusal of
// paths that leave a pre-open.
func errno(err error) experimentalsys.Errno {
	if err == nil {
		return 0
	}
	var se syscall.Errno
	if errors.As(err, &se) {
		return experimentalsys.UnwrapOSError(se)
	}
	switch {
	case errors.Is(err, io.EOF):
		return 0
	case errors.Is(err, fs.ErrNotExist):
		return experimentalsys.ENOENT
	case errors.Is(err, fs.ErrExist):
		return experimentalsys.EEXIST
	case errors.Is(err, fs.ErrPermission):
		return experimentalsys.EPERM
	case errors.Is(err, fs.ErrClosed):
		return experimentalsys.EBADF
	case errors.Is(err, fs.ErrInvalid):
		return experimentalsys.EINVAL
	}
	// os.Root reports a path that leaves it with an error of its own
	// ("path escapes from parent"), and refuses a few other things (an
	// absolute link target) likewise: all are refusals, not I/O errors.
	return experimentalsys.EPERM
}

// linkStaysBelow reports whether a symbolic link target only ever leads
// down from the link's own folder: relative, without "..". Such a link
// points inside the grant wherever it is moved, whatever else changes.
func linkStaysBelow(target string) bool {
	if target == "" || len(target) > 4096 || strings.HasPrefix(target, "/") || strings.ContainsRune(target, 0) {
		return false
	}
	for part := range strings.SplitSeq(target, "/") {
		if part == ".." {
			return false
		}
	}
	return true
}

// OpenFile implements experimentalsys.FS.
func (g *grantFS) OpenFile(name string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	p := rel(name)
	write := flag&(experimentalsys.O_WRONLY|experimentalsys.O_RDWR) != 0
	if g.readOnly && (write || flag&(experimentalsys.O_CREAT|experimentalsys.O_TRUNC) != 0) {
		if write && flag&experimentalsys.O_DIRECTORY != 0 {
			return nil, experimentalsys.EISDIR
		}
		return nil, experimentalsys.EROFS
	}
	if flag&experimentalsys.O_NOFOLLOW != 0 {
		// os.Root follows a final link regardless of O_NOFOLLOW; the
		// guest asked for the link itself, which cannot be opened. (A
		// link swapped in after this check is still resolved inside.)
		if fi, err := g.root.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, experimentalsys.ELOOP
		}
	}
	if g.open.Add(1) > maxOpenFiles {
		g.open.Add(-1)
		return nil, experimentalsys.EAGAIN
	}
	// O_NONBLOCK: opening a FIFO someone placed in the folder must not
	// block the host (a blocked host call cannot be timed out); such files
	// are refused below anyway.
	f, err := g.root.OpenFile(p, osFlag(flag)|syscall.O_NONBLOCK, perm&0o777)
	if err != nil {
		g.open.Add(-1)
		e := errno(err)
		if p == "." && e != experimentalsys.ENOENT {
			// wazero opens the pre-open itself lazily and panics on any
			// error but ENOENT: a folder that became unreadable is gone.
			e = experimentalsys.ENOENT
		}
		return nil, e
	}
	gf := &grantFile{g: g, name: p, flag: flag, f: f}
	st, e := gf.Stat()
	if e != 0 {
		gf.Close()
		return nil, e
	}
	if t := st.Mode.Type(); t != 0 && t != fs.ModeDir {
		// Devices, FIFOs and sockets are not files a plugin is given.
		gf.Close()
		return nil, experimentalsys.EACCES
	}
	if flag&experimentalsys.O_DIRECTORY != 0 && st.Mode.Type() != fs.ModeDir {
		gf.Close()
		return nil, experimentalsys.ENOTDIR
	}
	return gf, 0
}

func osFlag(flag experimentalsys.Oflag) int {
	var f int
	switch flag & (experimentalsys.O_RDONLY | experimentalsys.O_RDWR | experimentalsys.O_WRONLY) {
	case experimentalsys.O_RDWR:
		f = os.O_RDWR
	case experimentalsys.O_WRONLY:
		f = os.O_WRONLY
	default:
		f = os.O_RDONLY
	}
	for _, m := range []struct {
		from experimentalsys.Oflag
		to   int
	}{
		{experimentalsys.O_APPEND, os.O_APPEND},
		{experimentalsys.O_CREAT, os.O_CREATE},
		{experimentalsys.O_EXCL, os.O_EXCL},
		{experimentalsys.O_TRUNC, os.O_TRUNC},
		{experimentalsys.O_SYNC, os.O_SYNC},
		{experimentalsys.O_DSYNC, os.O_SYNC},
		{experimentalsys.O_DIRECTORY, oDirectory},
	} {
		if flag&m.from != 0 {
			f |= m.to
		}
	}
	return f
}

// Lstat implements experimentalsys.FS.
func (g *grantFS) Lstat(name string) (sys.Stat_t, experimentalsys.Errno) {
	fi, err := g.root.Lstat(rel(name))
	if err != nil {
		return sys.Stat_t{}, errno(err)
	}
	return sys.NewStat_t(fi), 0
}

// Stat implements experimentalsys.FS.
func (g *grantFS) Stat(name string) (sys.Stat_t, experimentalsys.Errno) {
	fi, err := g.root.Stat(rel(name))
	if err != nil {
		return sys.Stat_t{}, errno(err)
	}
	return sys.NewStat_t(fi), 0
}

// Readlink implements experimentalsys.FS.
func (g *grantFS) Readlink(name string) (string, experimentalsys.Errno) {
	target, err := g.root.Readlink(rel(name))
	if err != nil {
		return "", errno(err)
	}
	return filepath.ToSlash(target), 0
}

// Mkdir implements experimentalsys.FS.
func (g *grantFS) Mkdir(name string, perm fs.FileMode) experimentalsys.Errno {
	if g.readOnly {
		return experimentalsys.EROFS
	}
	g.names.Lock()
	defer g.names.Unlock()
	e := errno(g.root.Mkdir(rel(name), perm&0o777))
	if e == experimentalsys.ENOTDIR {
		e = experimentalsys.ENOENT
	}
	return e
}

// Chmod implements experimentalsys.FS. Only permission bits change: a
// plugin sets no setuid, setgid or sticky bits on the host.
func (g *grantFS) Chmod(name string, perm fs.FileMode) experimentalsys.Errno {
	if g.readOnly {
		return experimentalsys.EROFS
	}
	return errno(g.root.Chmod(rel(name), perm&0o777))
}

// Rename implements experimentalsys.FS. A link is moved only if it stays
// below its folder; a directory only if no link inside it climbs out of
// its folder or is absolute (moving it would change where those lead).
func (g *grantFS) Rename(from, to string) experimentalsys.Errno {
	if g.readOnly {
		return experimentalsys.EROFS
	}
	from, to = rel(from), rel(to)
	g.names.Lock()
	defer g.names.Unlock()
	fi, err := g.root.Lstat(from)
	if err != nil {
		return errno(err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		if e := g.checkLink(from, to); e != 0 {
			return e
		}
	case fi.IsDir():
		if e := g.checkTree(from); e != 0 {
			return e
		}
	}
	return errno(g.root.Rename(from, to))
}

// checkLink refuses to move or copy a link that does not stay below its
// folder, or that would lead out from its new place to (empty: the link
// keeps its folder, as links inside a moved directory do).
func (g *grantFS) checkLink(name, to string) experimentalsys.Errno {
	target, err := g.root.Readlink(name)
	if err != nil {
		return errno(err)
	}
	target = filepath.ToSlash(target)
	if !linkStaysBelow(target) || (to != "" && !g.resolvesInside(to, target)) {
		return experimentalsys.EPERM
	}
	return 0
}

// checkTree refuses to move a directory holding a link that does not stay
// below its folder, or one too large to inspect.
func (g *grantFS) checkTree(dir string) experimentalsys.Errno {
	seen := 0
	var walk func(dir string) experimentalsys.Errno
	walk = func(dir string) experimentalsys.Errno {
		d, err := g.root.Open(dir)
		if err != nil {
			return errno(err)
		}
		defer d.Close()
		for {
			entries, err := d.ReadDir(256)
			for _, e := range entries {
				if seen++; seen > maxRenameScan {
					return experimentalsys.EPERM
				}
				p := path.Join(dir, e.Name())
				switch {
				case e.Type()&fs.ModeSymlink != 0:
					if en := g.checkLink(p, ""); en != 0 {
						return en
					}
				case e.IsDir():
					if en := walk(p); en != 0 {
						return en
					}
				}
			}
			if errors.Is(err, io.EOF) || (err == nil && len(entries) == 0) {
				return 0
			}
			if err != nil {
				return errno(err)
			}
		}
	}
	return walk(dir)
}

// Rmdir implements experimentalsys.FS.
func (g *grantFS) Rmdir(name string) experimentalsys.Errno {
	if g.readOnly {
		return experimentalsys.EROFS
	}
	p := rel(name)
	g.names.Lock()
	defer g.names.Unlock()
	fi, err := g.root.Lstat(p)
	if err != nil {
		return errno(err)
	}
	if !fi.IsDir() {
		return experimentalsys.ENOTDIR
	}
	return errno(g.root.Remove(p))
}

// Unlink implements experimentalsys.FS.
func (g *grantFS) Unlink(name string) experimentalsys.Errno {
	if g.readOnly {
		return experimentalsys.EROFS
	}
	p := rel(name)
	g.names.Lock()
	defer g.names.Unlock()
	fi, err := g.root.Lstat(p)
	if err != nil {
		return errno(err)
	}
	if fi.IsDir() {
		return experimentalsys.EISDIR
	}
	return errno(g.root.Remove(p))
}

// Link implements experimentalsys.FS. Both names resolve inside the root,
// so a hard link can only be made to a file already in the grant; a link
// to a symbolic link must itself stay below its folder.
func (g *grantFS) Link(oldName, newName string) experimentalsys.Errno {
	if g.readOnly {
		return experimentalsys.EROFS
	}
	oldName, newName = rel(oldName), rel(newName)
	g.names.Lock()
	defer g.names.Unlock()
	fi, err := g.root.Lstat(oldName)
	if err != nil {
		return errno(err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if e := g.checkLink(oldName, newName); e != 0 {
			return e
		}
	}
	return errno(g.root.Link(oldName, newName))
}

// Symlink implements experimentalsys.FS: the target must lead down from
// the link's folder (relative, no ".."), and must not already lead out
// through a link in the folder, else EPERM.
func (g *grantFS) Symlink(target, linkName string) experimentalsys.Errno {
	if g.readOnly {
		return experimentalsys.EROFS
	}
	linkName = rel(linkName)
	g.names.Lock()
	defer g.names.Unlock()
	if !linkStaysBelow(target) || !g.resolvesInside(linkName, target) {
		return experimentalsys.EPERM
	}
	return errno(g.root.Symlink(target, linkName))
}

// resolvesInside reports whether a link at name with target would lead to
// something inside the root, or to nothing yet. It refuses a new alias of
// a link already in the folder that leads out (which the plugin cannot
// follow, but other programs would). It cannot refuse every alias: a
// dangling link may be completed later by another link, so the spec
// advises against writable grants of folders holding such links.
func (g *grantFS) resolvesInside(name, target string) bool {
	_, err := g.root.Stat(path.Join(path.Dir(name), target))
	switch e := errno(err); e {
	case 0, experimentalsys.ENOENT, experimentalsys.ENOTDIR:
		return true
	}
	return false
}

// Utimens implements experimentalsys.FS.
func (g *grantFS) Utimens(name string, atim, mtim int64) experimentalsys.Errno {
	if g.readOnly {
		return experimentalsys.EROFS
	}
	return errno(g.root.Chtimes(rel(name), utime(atim), utime(mtim)))
}

// utime turns a WASI timestamp into a time for os.Chtimes, whose zero
// time leaves the timestamp as it is.
func utime(nsec int64) time.Time {
	if nsec == experimentalsys.UTIME_OMIT {
		return time.Time{}
	}
	return time.Unix(0, nsec)
}

// grantFile is a file or directory opened through a grantFS.
type grantFile struct {
	experimentalsys.UnimplementedFile
	g    *grantFS
	name string // relative to the root, to reopen it (SetAppend)
	flag experimentalsys.Oflag
	f    *os.File

	closed bool
	stat   bool // dev, ino and dir are known
	dev    uint64
	ino    sys.Inode
	dir    bool
}

func (f *grantFile) cached() experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	if !f.stat {
		if _, e := f.Stat(); e != 0 {
			return e
		}
	}
	return 0
}

// Dev implements experimentalsys.File.
func (f *grantFile) Dev() (uint64, experimentalsys.Errno) {
	e := f.cached()
	return f.dev, e
}

// Ino implements experimentalsys.File.
func (f *grantFile) Ino() (sys.Inode, experimentalsys.Errno) {
	e := f.cached()
	return f.ino, e
}

// IsDir implements experimentalsys.File.
func (f *grantFile) IsDir() (bool, experimentalsys.Errno) {
	e := f.cached()
	return f.dir, e
}

// IsAppend implements experimentalsys.File.
func (f *grantFile) IsAppend() bool { return f.flag&experimentalsys.O_APPEND != 0 }

// SetAppend implements experimentalsys.File. Go fixes append mode when a
// file is opened, so the file is opened again (inside the root) in the new
// mode, at the same offset.
func (f *grantFile) SetAppend(enable bool) experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	if f.dir {
		return experimentalsys.EISDIR
	}
	flag := f.flag &^ (experimentalsys.O_CREAT | experimentalsys.O_TRUNC | experimentalsys.O_EXCL | experimentalsys.O_APPEND)
	if enable {
		flag |= experimentalsys.O_APPEND
	}
	off, err := f.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return errno(err)
	}
	nf, err := f.g.root.OpenFile(f.name, osFlag(flag)|syscall.O_NONBLOCK, 0)
	if err != nil {
		return errno(err)
	}
	a, err1 := f.f.Stat()
	b, err2 := nf.Stat()
	if err1 != nil || err2 != nil || !os.SameFile(a, b) {
		nf.Close()
		return experimentalsys.ENOENT // renamed or replaced since it was opened
	}
	if _, err := nf.Seek(off, io.SeekStart); err != nil {
		nf.Close()
		return errno(err)
	}
	f.f.Close()
	f.f, f.flag = nf, flag
	return 0
}

// Stat implements experimentalsys.File.
func (f *grantFile) Stat() (sys.Stat_t, experimentalsys.Errno) {
	if f.closed {
		return sys.Stat_t{}, experimentalsys.EBADF
	}
	fi, err := f.f.Stat()
	if err != nil {
		return sys.Stat_t{}, errno(err)
	}
	st := sys.NewStat_t(fi)
	f.dev, f.ino, f.dir, f.stat = st.Dev, st.Ino, fi.IsDir(), true
	return st, 0
}

// fileOnly is the error of a file operation on a closed file or a
// directory.
func (f *grantFile) fileOnly() experimentalsys.Errno {
	if e := f.cached(); e != 0 {
		return e
	}
	if f.dir {
		return experimentalsys.EISDIR
	}
	return 0
}

// Read implements experimentalsys.File.
func (f *grantFile) Read(buf []byte) (int, experimentalsys.Errno) {
	if e := f.fileOnly(); e != 0 {
		return 0, e
	}
	if len(buf) == 0 {
		return 0, 0
	}
	n, err := f.f.Read(buf)
	return n, errno(err)
}

// Pread implements experimentalsys.File.
func (f *grantFile) Pread(buf []byte, off int64) (int, experimentalsys.Errno) {
	if e := f.fileOnly(); e != 0 {
		return 0, e
	}
	if off < 0 {
		return 0, experimentalsys.EINVAL
	}
	if len(buf) == 0 {
		return 0, 0
	}
	n, err := f.f.ReadAt(buf, off)
	return n, errno(err)
}

// fileOffset is int64 under another name, only so that go vet does not
// take Seek below for a malformed io.Seeker: it implements
// experimentalsys.File, whose Seek returns an Errno.
type fileOffset = int64

// Seek implements experimentalsys.File. Seeking a directory to 0 rewinds
// its listing (os.File drops its read state on Seek).
func (f *grantFile) Seek(offset fileOffset, whence int) (int64, experimentalsys.Errno) {
	if e := f.cached(); e != 0 {
		return 0, e
	}
	if whence < io.SeekStart || whence > io.SeekEnd {
		return 0, experimentalsys.EINVAL
	}
	if f.dir && (offset != 0 || whence != io.SeekStart) {
		return 0, experimentalsys.EISDIR
	}
	n, err := f.f.Seek(offset, whence)
	return n, errno(err)
}

// Readdir implements experimentalsys.File.
func (f *grantFile) Readdir(n int) ([]experimentalsys.Dirent, experimentalsys.Errno) {
	if e := f.cached(); e != 0 {
		return nil, e
	}
	if !f.dir {
		return nil, experimentalsys.EBADF
	}
	fis, err := f.f.Readdir(n)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, errno(err)
	}
	out := make([]experimentalsys.Dirent, 0, len(fis))
	for _, fi := range fis {
		// Inodes matter: Go's wasip1 runtime skips entries with inode 0.
		out = append(out, experimentalsys.Dirent{Name: fi.Name(), Ino: sys.NewStat_t(fi).Ino, Type: fi.Mode().Type()})
	}
	return out, 0
}

// Write implements experimentalsys.File.
func (f *grantFile) Write(buf []byte) (int, experimentalsys.Errno) {
	if e := f.writable(); e != 0 {
		return 0, e
	}
	if len(buf) == 0 {
		return 0, 0
	}
	n, err := f.f.Write(buf)
	return n, errno(err)
}

// Pwrite implements experimentalsys.File.
func (f *grantFile) Pwrite(buf []byte, off int64) (int, experimentalsys.Errno) {
	if e := f.writable(); e != 0 {
		return 0, e
	}
	if off < 0 {
		return 0, experimentalsys.EINVAL
	}
	if len(buf) == 0 {
		return 0, 0
	}
	n, err := f.f.WriteAt(buf, off)
	return n, errno(err)
}

// writable is the error of writing to this file: a directory, a closed
// file, a read-only grant or a file not opened for writing.
func (f *grantFile) writable() experimentalsys.Errno {
	if e := f.fileOnly(); e != 0 {
		return e
	}
	if f.g.readOnly || f.flag&(experimentalsys.O_WRONLY|experimentalsys.O_RDWR) == 0 {
		return experimentalsys.EBADF
	}
	return 0
}

// Truncate implements experimentalsys.File.
func (f *grantFile) Truncate(size int64) experimentalsys.Errno {
	if e := f.writable(); e != 0 {
		return e
	}
	if size < 0 {
		return experimentalsys.EINVAL
	}
	return errno(f.f.Truncate(size))
}

// Sync implements experimentalsys.File.
func (f *grantFile) Sync() experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	return errno(f.f.Sync())
}

// Datasync implements experimentalsys.File.
func (f *grantFile) Datasync() experimentalsys.Errno { return f.Sync() }

// Utimens implements experimentalsys.File. os.File cannot set times, so
// this goes by the name the file was opened under, inside the root: at
// worst it touches another file of the grant if that name was replaced.
func (f *grantFile) Utimens(atim, mtim int64) experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	if f.g.readOnly {
		return experimentalsys.EROFS
	}
	return errno(f.g.root.Chtimes(f.name, utime(atim), utime(mtim)))
}

// Close implements experimentalsys.File.
func (f *grantFile) Close() experimentalsys.Errno {
	if f.closed {
		return 0
	}
	f.closed = true
	f.g.open.Add(-1)
	return errno(f.f.Close())
}

// The types must keep up with wazero's interfaces.
var (
	_ experimentalsys.FS   = (*grantFS)(nil)
	_ experimentalsys.File = (*grantFile)(nil)
)
