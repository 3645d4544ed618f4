// Command fsops is a test plugin that runs a list of file operations and
// reports each result, so that host tests can drive a real guest's WASI
// calls (path_open, path_symlink, path_link, path_rename, fd_readdir, …)
// against a dirs grant: the escapes a hostile plugin would try, and the
// ordinary work a well-behaved one does.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"syscall"
	"time"

	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

// op is one operation. Path is the file operated on; To is the second
// path (rename, link) or the link target (symlink); Data is written.
type op struct {
	Op     string `json:"op" jsonschema:"read, write, append, create_excl, mkdir, remove, rename, symlink, link, readlink, stat, lstat, readdir, chmod, chtimes, truncate, readat, seekread, open_nofollow, openmany (opens path offset times, keeping all open, then closes them)"`
	Path   string `json:"path"`
	To     string `json:"to,omitempty"`
	Data   string `json:"data,omitempty"`
	Offset int64  `json:"offset,omitempty"`
}

type input struct {
	Ops []op `json:"ops"`
}

// result is what one operation did: OK with Data (what was read, listed
// or stat'ed), or Err.
type result struct {
	Op   string `json:"op"`
	Path string `json:"path"`
	OK   bool   `json:"ok"`
	Data string `json:"data,omitempty"`
	Err  string `json:"err,omitempty"`
}

func run(o op) (string, error) {
	switch o.Op {
	case "read":
		b, err := os.ReadFile(o.Path)
		return string(b), err
	case "write":
		return "", os.WriteFile(o.Path, []byte(o.Data), 0o644)
	case "append":
		f, err := os.OpenFile(o.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return "", err
		}
		_, err = f.WriteString(o.Data)
		return "", errors.Join(err, f.Close())
	case "create_excl":
		f, err := os.OpenFile(o.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return "", err
		}
		return "", f.Close()
	case "open_nofollow":
		f, err := os.OpenFile(o.Path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
		if err != nil {
			return "", err
		}
		return "", f.Close()
	case "openmany":
		var files []*os.File
		defer func() {
			for _, f := range files {
				f.Close()
			}
		}()
		for range o.Offset {
			f, err := os.Open(o.Path)
			if err != nil {
				return fmt.Sprint(len(files)), err
			}
			files = append(files, f)
		}
		return fmt.Sprint(len(files)), nil
	case "mkdir":
		return "", os.Mkdir(o.Path, 0o755)
	case "remove":
		return "", os.Remove(o.Path)
	case "rename":
		return "", os.Rename(o.Path, o.To)
	case "symlink":
		return "", os.Symlink(o.To, o.Path)
	case "link":
		return "", os.Link(o.Path, o.To)
	case "readlink":
		return os.Readlink(o.Path)
	case "stat", "lstat":
		stat := os.Stat
		if o.Op == "lstat" {
			stat = os.Lstat
		}
		fi, err := stat(o.Path)
		if err != nil {
			return "", err
		}
		kind := "file"
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			kind = "symlink"
		case fi.IsDir():
			kind = "dir"
		}
		return fmt.Sprintf("%s %d %o", kind, fi.Size(), fi.Mode().Perm()), nil
	case "readdir":
		entries, err := os.ReadDir(o.Path)
		var names []string
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() {
				n += "/"
			} else if e.Type()&os.ModeSymlink != 0 {
				n += "@"
			}
			names = append(names, n)
		}
		sort.Strings(names)
		return strings.Join(names, ","), err
	case "chmod":
		return "", os.Chmod(o.Path, 0o600)
	case "chtimes":
		t := time.Unix(1_000_000_000, 0)
		return "", os.Chtimes(o.Path, t, t)
	case "truncate":
		f, err := os.OpenFile(o.Path, os.O_RDWR, 0)
		if err != nil {
			return "", err
		}
		return "", errors.Join(f.Truncate(o.Offset), f.Close())
	case "readat", "seekread":
		f, err := os.Open(o.Path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		buf := make([]byte, 64)
		var n int
		if o.Op == "readat" {
			n, err = f.ReadAt(buf, o.Offset)
		} else {
			if _, err = f.Seek(o.Offset, io.SeekStart); err == nil {
				n, err = f.Read(buf)
			}
		}
		if errors.Is(err, io.EOF) {
			err = nil
		}
		return string(buf[:n]), err
	}
	return "", fmt.Errorf("unknown op %q", o.Op)
}

func init() {
	guest.Register(guest.Tool[input, string]{
		Name:        "fsops",
		Description: "Test fixture: runs file operations and reports each result.",
		Call: func(_ *guest.Call, in input) (string, error) {
			out := make([]result, 0, len(in.Ops))
			for _, o := range in.Ops {
				data, err := run(o)
				r := result{Op: o.Op, Path: o.Path, OK: err == nil, Data: data}
				if err != nil {
					r.Err = err.Error()
				}
				out = append(out, r)
			}
			b, err := json.Marshal(out)
			return string(b), err
		},
	})
}

func main() {}
