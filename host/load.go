package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// LoadFiles loads several modules in parallel (compilation is the slow
// part of loading and uses one core per module). The result has one entry
// per path, in order: a plugin or an error.
func (h *Host) LoadFiles(ctx context.Context, paths []string, config func(path string) Config) ([]*Plugin, []error) {
	plugins := make([]*Plugin, len(paths))
	errs := make([]error, len(paths))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, path := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var cfg Config
			if config != nil {
				cfg = config(path)
			}
			start := time.Now()
			plugins[i], errs[i] = h.LoadFile(ctx, path, cfg)
			if errs[i] == nil {
				h.log.Info("plugin loaded", "plugin", plugins[i].Name, "kind", plugins[i].Kind, "tools", len(plugins[i].Tools()), "took", time.Since(start).Round(time.Millisecond))
			}
		}()
	}
	wg.Wait()
	h.trimSoon()
	return plugins, errs
}

// ModuleFiles lists the .wasm files directly in dir, sorted.
func ModuleFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("plugin folder: %w", err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.EqualFold(filepath.Ext(e.Name()), ".wasm") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}
