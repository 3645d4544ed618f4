package builtin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/wasmtools/wasmtools/toolkit/builtin/internal/search"
)

// FileInfo describes a file as a backend sees it.
type FileInfo struct {
	// Path is the file's path as asked for (Stat) or found (ReadDir, Walk).
	Path    string
	Size    int64
	Mode    fs.FileMode
	ModTime time.Time
}

// IsDir reports whether the file is a directory.
func (fi FileInfo) IsDir() bool { return fi.Mode.IsDir() }

// The optional fast paths of a Backend. Where a backend lacks one, the
// functions Stat, ReadDir, Walk and Remove fall back on Exec with standard
// tools (GNU find, rm), so a container or remote backend needs only Exec,
// ReadFile and WriteFile.
type (
	// Stater returns a file's information, following symbolic links.
	Stater interface {
		Stat(ctx context.Context, path string) (FileInfo, error)
	}
	// DirReader lists a directory's entries.
	DirReader interface {
		ReadDir(ctx context.Context, dir string) ([]FileInfo, error)
	}
	// Walker visits a tree: root first, then entries in lexical order; fn
	// returning fs.SkipDir for a directory skips it.
	Walker interface {
		Walk(ctx context.Context, root string, fn func(FileInfo) error) error
	}
	// Remover removes a file or an empty directory.
	Remover interface {
		Remove(ctx context.Context, path string) error
	}
)

// Stat returns a file's information through b.
func Stat(ctx context.Context, b Backend, path string) (FileInfo, error) {
	if s, ok := b.(Stater); ok {
		return s.Stat(ctx, path)
	}
	infos, err := findInfos(ctx, b, path, true, "-maxdepth", "0")
	if err != nil {
		return FileInfo{}, err
	}
	if len(infos) != 1 {
		return FileInfo{}, &fs.PathError{Op: "stat", Path: path, Err: fs.ErrNotExist}
	}
	return infos[0], nil
}

// ReadDir lists a directory through b, sorted by name.
func ReadDir(ctx context.Context, b Backend, dir string) ([]FileInfo, error) {
	if r, ok := b.(DirReader); ok {
		return r.ReadDir(ctx, dir)
	}
	return findInfos(ctx, b, dir, true, "-mindepth", "1", "-maxdepth", "1")
}

// Walk visits a tree through b.
func Walk(ctx context.Context, b Backend, root string, fn func(FileInfo) error) error {
	if w, ok := b.(Walker); ok {
		return w.Walk(ctx, root, fn)
	}
	infos, err := findInfos(ctx, b, root, false)
	if err != nil {
		return err
	}
	var skipped []string
	for _, fi := range infos {
		if underAny(fi.Path, skipped) {
			continue
		}
		if err := fn(fi); err != nil {
			if errors.Is(err, fs.SkipDir) && fi.IsDir() {
				skipped = append(skipped, fi.Path+"/")
				continue
			}
			if errors.Is(err, fs.SkipAll) {
				return nil
			}
			return err
		}
	}
	return nil
}

// Remove removes a file or empty directory through b.
func Remove(ctx context.Context, b Backend, path string) error {
	if r, ok := b.(Remover); ok {
		return r.Remove(ctx, path)
	}
	var stderr bytes.Buffer
	res, err := b.Exec(ctx, ExecRequest{Command: "rm -f -- " + ShellQuote(path) + " 2>/dev/null || rmdir -- " + ShellQuote(path)}, func(s Stream, d []byte) {
		if s == Stderr {
			stderr.Write(d)
		}
	})
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("remove %s: %s", path, strings.TrimSpace(stderr.String()))
	}
	return nil
}

func underAny(p string, prefixes []string) bool {
	for _, pre := range prefixes {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}

// ShellQuote quotes s for a POSIX shell.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// findInfos runs GNU find with a machine-readable format. follow makes it
// report what symbolic links point to (Stat, ReadDir), as the native
// paths do; Walk does not follow them, like filepath.WalkDir.
func findInfos(ctx context.Context, b Backend, root string, follow bool, args ...string) ([]FileInfo, error) {
	cmd := "find " + ShellQuote(root)
	if follow {
		cmd = "find -L " + ShellQuote(root)
	}
	for _, a := range args {
		cmd += " " + a
	}
	cmd += ` -printf '%p\t%s\t%T@\t%m\t%y\0'`
	var out, stderr bytes.Buffer
	res, err := b.Exec(ctx, ExecRequest{Command: cmd}, func(s Stream, d []byte) {
		if s == Stdout {
			out.Write(d)
		} else {
			stderr.Write(d)
		}
	})
	if err != nil {
		return nil, err
	}
	if res.ExitCode != 0 && out.Len() == 0 {
		if strings.Contains(stderr.String(), "No such file") {
			return nil, &fs.PathError{Op: "stat", Path: root, Err: fs.ErrNotExist}
		}
		return nil, fmt.Errorf("find %s: %s", root, strings.TrimSpace(stderr.String()))
	}
	var infos []FileInfo
	for _, rec := range bytes.Split(out.Bytes(), []byte{0}) {
		f := strings.Split(string(rec), "\t")
		if len(f) != 5 {
			continue
		}
		size, _ := strconv.ParseInt(f[1], 10, 64)
		perm, _ := strconv.ParseUint(f[3], 8, 32)
		mode := fs.FileMode(perm)
		switch f[4] {
		case "d":
			mode |= fs.ModeDir
		case "l":
			mode |= fs.ModeSymlink
		}
		infos = append(infos, FileInfo{Path: f[0], Size: size, Mode: mode, ModTime: parseFindTime(f[2])})
	}
	return infos, nil
}

// parseFindTime reads find's %T@ (seconds.fraction) without going
// through a float, which would lose the nanoseconds.
func parseFindTime(s string) time.Time {
	secStr, frac, _ := strings.Cut(s, ".")
	sec, _ := strconv.ParseInt(secStr, 10, 64)
	frac = (frac + "000000000")[:9]
	nsec, _ := strconv.ParseInt(frac, 10, 64)
	return time.Unix(sec, nsec)
}

// Stat implements Stater.
func (b *LocalBackend) Stat(_ context.Context, path string) (FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return FileInfo{}, err
	}
	return FileInfo{Path: path, Size: fi.Size(), Mode: fi.Mode(), ModTime: fi.ModTime()}, nil
}

// ReadDir implements DirReader.
func (b *LocalBackend) ReadDir(_ context.Context, dir string) ([]FileInfo, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]FileInfo, 0, len(entries))
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		fi, err := os.Stat(p)
		if err != nil {
			continue // a dangling link
		}
		out = append(out, FileInfo{Path: p, Size: fi.Size(), Mode: fi.Mode(), ModTime: fi.ModTime()})
	}
	return out, nil
}

// Walk implements Walker. Symbolic links are reported, not followed.
func (b *LocalBackend) Walk(ctx context.Context, root string, fn func(FileInfo) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable entries are skipped
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		return fn(FileInfo{Path: p, Size: info.Size(), Mode: info.Mode(), ModTime: info.ModTime()})
	})
}

// Remove implements Remover.
func (b *LocalBackend) Remove(_ context.Context, path string) error { return os.Remove(path) }

// backendFS is a Backend as the search engine reads it.
type backendFS struct{ b Backend }

func (f backendFS) ReadFile(ctx context.Context, path string) ([]byte, error) {
	return f.b.ReadFile(ctx, path)
}

func (f backendFS) Stat(ctx context.Context, path string) (search.File, error) {
	fi, err := Stat(ctx, f.b, path)
	return search.File(fi), err
}

func (f backendFS) Walk(ctx context.Context, root string, fn func(search.File) error) error {
	return Walk(ctx, f.b, root, func(fi FileInfo) error { return fn(search.File(fi)) })
}
