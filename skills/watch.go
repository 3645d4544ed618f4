package skills

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is how long a watcher waits after the last file event
// before reloading: editors write a file in several steps (truncate,
// write, rename), and reloading in between would see a half-written file.
const DefaultDebounce = 50 * time.Millisecond

// WatchOptions configure Watch.
type WatchOptions struct {
	DirOptions
	// Debounce is the quiet time before a reload; 0 means DefaultDebounce.
	Debounce time.Duration
}

// Watch loads root into lib and keeps it in step with the folder until ctx
// ends: added, changed, removed and renamed skills are applied with
// LoadDir after the events settle. The watch survives root being deleted
// and created again (its skills go away, then come back). Watch returns
// once the first load is done and the watch is set up; the watch itself
// runs in a goroutine that ends with ctx.
func Watch(ctx context.Context, lib *Library, root string, opts WatchOptions) error {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("skills: watch %s: %w", root, err)
	}
	root = resolveRoot(root)
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("skills: watch %s: %w", root, err)
	}
	// The parent is watched too, so that root's deletion and re-creation
	// are seen.
	if err := w.Add(filepath.Dir(root)); err != nil {
		w.Close()
		return fmt.Errorf("skills: watch %s: the parent folder must exist: %w", root, err)
	}
	addTree(w, root, opts.Recursive)
	if err := lib.LoadDir(root, opts.DirOptions); err != nil {
		w.Close()
		return err
	}
	go watchLoop(ctx, w, lib, root, opts)
	return nil
}

func watchLoop(ctx context.Context, w *fsnotify.Watcher, lib *Library, root string, opts WatchOptions) {
	defer w.Close()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if !within(root, ev.Name) {
				continue // a sibling of root in the parent folder
			}
			if ev.Has(fsnotify.Create) {
				if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() {
					addTree(w, ev.Name, opts.Recursive || ev.Name == root || filepath.Dir(ev.Name) == root)
				}
			}
			timer.Reset(opts.Debounce)
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			lib.log.Warn("skills: watcher error; reloading to catch up", "dir", root, "err", err)
			timer.Reset(opts.Debounce)
		case <-timer.C:
			// Folders created between events are picked up here too.
			addTree(w, root, opts.Recursive)
			if err := lib.LoadDir(root, opts.DirOptions); err != nil {
				lib.log.Warn("skills: reload failed", "dir", root, "err", err)
			}
		}
	}
}

// addTree watches dir and its sub-folders (all of them when recursive,
// the direct ones otherwise). Hidden folders are skipped. Errors are
// ignored: a folder that vanished is seen again through its parent.
func addTree(w *fsnotify.Watcher, dir string, recursive bool) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || p != dir {
				return fs.SkipDir
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && d.Name()[0] == '.' {
			return fs.SkipDir
		}
		_ = w.Add(p)
		if p != dir && !recursive {
			return fs.SkipDir
		}
		return nil
	})
}
