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
	return h.loadEach(ctx, paths, func(path string) (*Plugin, error) {
		var cfg Config
		if config != nil {
			cfg = config(path)
		}
		return h.LoadFile(ctx, path, cfg)
	})
}

// loadEach runs load on each path, as many at once as there are cores.
func (h *Host) loadEach(ctx context.Context, paths []string, load func(path string) (*Plugin, error)) ([]*Plugin, []error) {
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
			start := time.Now()
			plugins[i], errs[i] = load(path)
			if errs[i] == nil {
				h.log.Info("plugin loaded", "plugin", plugins[i].Name, "kind", plugins[i].Kind, "tools", len(plugins[i].Tools()), "took", time.Since(start).Round(time.Millisecond))
			}
		}()
	}
	wg.Wait()
	h.trimSoon()
	return plugins, errs
}

// loadApproved loads the module file at path as the operator approved
// it: with the approved sidecar (the file beside it is not read again,
// so a sidecar swapped after the check grants nothing) and pinned to the
// approved digest (a module swapped after the check is refused).
func (h *Host) loadApproved(ctx context.Context, path string, cfg Config, a *TrustedModule) (*Plugin, error) {
	if cfg.SHA256 != "" && !strings.EqualFold(cfg.SHA256, a.SHA256) {
		return nil, fmt.Errorf("load plugin %s: the configuration pins sha256 %s, but the operator trusted %s", path, cfg.SHA256, a.SHA256)
	}
	wasm, err := readPluginFile(path)
	if err != nil {
		return nil, fmt.Errorf("load plugin: %w", err)
	}
	var side Sidecar
	if a.Sidecar != nil {
		side = *a.Sidecar
	}
	cfg = side.merge(cfg)
	if cfg.SHA256 != "" && !strings.EqualFold(cfg.SHA256, a.SHA256) {
		return nil, fmt.Errorf("load plugin %s: its sidecar pins sha256 %s, but the operator trusted %s", path, cfg.SHA256, a.SHA256)
	}
	cfg.SHA256 = a.SHA256
	return h.loadFromFile(ctx, path, cfg, wasm)
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
