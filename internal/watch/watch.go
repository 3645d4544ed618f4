// Package watch follows a folder with fsnotify for the host's hot reload:
// file events are debounced (editors and deploy tools write in several
// steps) and the watch survives the folder being deleted and created
// again, because the folder's parent is watched too.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Options configure a Watcher.
type Options struct {
	// Depth is how many levels of sub-folders are watched: 1 for the
	// direct ones, a negative number for all. Hidden folders never are.
	Depth int
	// Debounce is the quiet time after the last event before the change
	// callback runs. Required.
	Debounce time.Duration
	// Logger receives watch errors; nil means slog.Default().
	Logger *slog.Logger
}

// Watcher watches one folder. Create it with New, then Run it.
type Watcher struct {
	root string
	opts Options
	w    *fsnotify.Watcher
}

// New sets up the watch of root, which need not exist yet; its parent
// must. Events from the moment New returns are seen by Run.
func New(root string, opts Options) (*Watcher, error) {
	if opts.Debounce <= 0 {
		return nil, errors.New("watch: a positive debounce is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	if err := w.Add(filepath.Dir(root)); err != nil {
		w.Close()
		return nil, fmt.Errorf("watch %s: the parent folder must exist: %w", root, err)
	}
	wt := &Watcher{root: root, opts: opts, w: w}
	wt.addTree()
	return wt, nil
}

// Run calls changed after each settled burst of events under the root,
// until ctx ends; then it releases the watch. changed runs on Run's
// goroutine, never twice at once.
func (wt *Watcher) Run(ctx context.Context, changed func()) {
	defer wt.w.Close()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-wt.w.Events:
			if !ok {
				return
			}
			if !Within(wt.root, ev.Name) {
				continue // a sibling of the root in the parent folder
			}
			if ev.Has(fsnotify.Create) {
				wt.addTree() // a new folder, or the root itself again
			}
			timer.Reset(wt.opts.Debounce)
		case err, ok := <-wt.w.Errors:
			if !ok {
				return
			}
			wt.opts.Logger.Warn("watch error; reloading to catch up", "dir", wt.root, "err", err)
			timer.Reset(wt.opts.Debounce)
		case <-timer.C:
			wt.addTree() // folders created between events
			changed()
		}
	}
}

// Close releases a watch that will not Run.
func (wt *Watcher) Close() error { return wt.w.Close() }

// addTree watches the root and its sub-folders down to Depth. Errors are
// ignored: a folder that vanished is seen again through its parent.
func (wt *Watcher) addTree() {
	_ = filepath.WalkDir(wt.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			if err != nil && d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p != wt.root && d.Name()[0] == '.' {
			return fs.SkipDir
		}
		_ = wt.w.Add(p)
		if wt.opts.Depth >= 0 && depth(wt.root, p) >= wt.opts.Depth {
			return fs.SkipDir
		}
		return nil
	})
}

func depth(root, p string) int {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." {
		return 0
	}
	n := 1
	for _, c := range rel {
		if os.IsPathSeparator(uint8(c)) {
			n++
		}
	}
	return n
}

// Within reports whether path is root or below it.
func Within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil || filepath.IsAbs(rel) {
		return false
	}
	return rel != ".." && !(len(rel) >= 3 && rel[:2] == ".." && os.IsPathSeparator(rel[2]))
}
