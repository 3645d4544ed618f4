package builtin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wasmtools/wasmtools/toolkit"
)

// Concurrent edits of one file (two sessions doing Read then Edit, two
// wasmtools processes, an editor) must not lose updates. Write and Edit
// hold a lock on the file's folder from the freshness check (the file is
// what the session last read) to the replacement, and compare the file's
// stamp once more right before the replacement becomes visible.

// PathLocker is an optional Backend fast path: it serialises the writers
// of a path, across processes where it can. Write and Edit hold the lock
// from their freshness check to the replacement. Backends without it get
// no lock; the stamp comparison of CheckedWriter still catches most races.
type PathLocker interface {
	LockPath(ctx context.Context, path string) (unlock func(), err error)
}

// CheckedWriter is an optional Backend fast path: WriteFileChecked
// replaces a file as WriteFile does, and calls check right before the
// new contents become visible; an error from check aborts the write and
// leaves the file as it was.
type CheckedWriter interface {
	WriteFileChecked(ctx context.Context, path string, data []byte, perm fs.FileMode, check func() error) error
}

// lockPath locks path through b when b can; unlock is never nil.
func lockPath(ctx context.Context, b Backend, path string) (func(), error) {
	if l, ok := b.(PathLocker); ok {
		return l.LockPath(ctx, path)
	}
	return func() {}, nil
}

// writeChecked writes through b, with check run right before the
// replacement when b can, else right before the write.
func writeChecked(ctx context.Context, b Backend, path string, data []byte, check func() error) error {
	if w, ok := b.(CheckedWriter); ok {
		return w.WriteFileChecked(ctx, path, data, 0o644, check)
	}
	if err := check(); err != nil {
		return err
	}
	return b.WriteFile(ctx, path, data, 0o644)
}

// errChanged says a file changed under a write.
func errChanged(path string) error {
	return fmt.Errorf("%s changed while it was being written (another session or program wrote it): nothing was written; read it again with the Read tool, then redo the change", path)
}

// unchangedSince returns a check that the file at path still has the
// stamp the session saw (or, for a file being created, still does not
// exist).
func (b *fileBase) unchangedSince(ctx context.Context, path string, seen toolkit.FileStamp, created bool) func() error {
	return func() error {
		cur, err := b.stamp(ctx, path)
		switch {
		case created && errors.Is(err, fs.ErrNotExist):
			return nil
		case created && err == nil:
			return fmt.Errorf("%s was created by someone else while it was being written: nothing was written; read it with the Read tool, then redo the change", path)
		case err != nil:
			return fmt.Errorf("cannot check %s before writing it: %w", path, err)
		case !cur.ModTime.Equal(seen.ModTime) || cur.Size != seen.Size:
			return errChanged(path)
		}
		return nil
	}
}

// LockPath implements PathLocker: an exclusive advisory lock (flock) on
// the file's folder, or on its nearest existing ancestor, so that writers
// of the folder's files take turns, in this process and in others that
// lock the same way. It waits for the lock until ctx ends.
func (b *LocalBackend) LockPath(ctx context.Context, path string) (func(), error) {
	dir := filepath.Dir(path)
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return func() {}, nil
		}
		dir = parent
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		if ok {
			return func() { unlockFile(f); f.Close() }, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting to write into %s: %w", dir, ctx.Err())
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// WriteFileChecked implements CheckedWriter: the atomic write of
// WriteFile, with check called between writing the temporary file and
// renaming it over the target.
func (b *LocalBackend) WriteFileChecked(_ context.Context, path string, data []byte, perm fs.FileMode, check func() error) error {
	return writeAtomic(path, data, perm, check)
}

// WriteFile implements Backend: it writes a temporary file in the same
// directory, syncs it, gives it the old file's mode and renames it over
// the target.
func (b *LocalBackend) WriteFile(_ context.Context, path string, data []byte, perm fs.FileMode) error {
	return writeAtomic(path, data, perm, nil)
}

// writeAtomic writes data to a temporary file beside path and renames it
// into place, calling check (if any) right before the rename. The
// temporary file is removed on every failure.
func writeAtomic(path string, data []byte, perm fs.FileMode, check func() error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	removeStaleTemps(dir, filepath.Base(path))
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), perm); err != nil {
		return err
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	return os.Rename(tmp.Name(), path)
}

// staleTempAge is how old a temporary file of an atomic write must be to
// count as left behind by a writer that was killed (SIGKILL leaves no
// chance to remove it).
const staleTempAge = 10 * time.Minute

// removeStaleTemps removes the temporary files that killed writers of
// base left in dir.
func removeStaleTemps(dir, base string) {
	matches, _ := filepath.Glob(filepath.Join(dir, "."+escapeGlob(base)+".tmp-*"))
	for _, m := range matches {
		if fi, err := os.Lstat(m); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleTempAge {
			_ = os.Remove(m)
		}
	}
}

// escapeGlob quotes the glob characters of a file name.
func escapeGlob(s string) string {
	return strings.NewReplacer("*", "\\*", "?", "\\?", "[", "\\[", "\\", "\\\\").Replace(s)
}
