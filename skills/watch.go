package skills

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/wasmtools/wasmtools/internal/watch"
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
//
// Watching several roots keeps their layering (see Library): call Watch
// for each in order, lowest first, and every reload of a root keeps the
// place its first load gave it.
func Watch(ctx context.Context, lib *Library, root string, opts WatchOptions) error {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("skills: watch %s: %w", root, err)
	}
	root = resolveRoot(root)
	depth := 1
	if opts.Recursive {
		depth = -1
	}
	w, err := watch.New(root, watch.Options{Depth: depth, Debounce: opts.Debounce, Logger: lib.log})
	if err != nil {
		return fmt.Errorf("skills: %w", err)
	}
	if err := lib.LoadDir(root, opts.DirOptions); err != nil {
		w.Close()
		return err
	}
	go w.Run(ctx, func() {
		if err := lib.LoadDir(root, opts.DirOptions); err != nil {
			lib.log.Warn("skills: reload failed", "dir", root, "err", err)
		}
	})
	return nil
}
