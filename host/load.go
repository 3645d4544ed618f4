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

// memoryMinimum reads the initial size, in 64 KiB pages, of the linear
// memory a module defines or imports, from its binary; ok is false when
// it has none or the binary cannot be read that far (the compiler then
// reports what is wrong).
func memoryMinimum(wasm []byte) (pages uint64, ok bool) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return 0, false
	}
	r := wasmReader{b: wasm[8:]}
	for len(r.b) > 0 {
		id, ok1 := r.byte()
		size, ok2 := r.uleb()
		if !ok1 || !ok2 || size > uint64(len(r.b)) {
			return 0, false
		}
		sec := &wasmReader{b: r.b[:size]}
		r.b = r.b[size:]
		switch id {
		case 2: // imports: module, name, kind, description
			n, ok := sec.uleb()
			for i := uint64(0); ok && i < n; i++ {
				var kind byte
				if _, ok = sec.name(); !ok {
					break
				}
				if _, ok = sec.name(); !ok {
					break
				}
				if kind, ok = sec.byte(); !ok {
					break
				}
				switch kind {
				case 0: // function: type index
					_, ok = sec.uleb()
				case 1: // table: reference type, limits
					if _, ok = sec.byte(); ok {
						_, ok = sec.limits()
					}
				case 2: // memory: limits
					return sec.limits()
				case 3: // global: value type, mutability
					if _, ok = sec.byte(); ok {
						_, ok = sec.byte()
					}
				default:
					ok = false
				}
			}
			if !ok {
				return 0, false
			}
		case 5: // memories: the first one's limits
			if n, ok := sec.uleb(); !ok || n == 0 {
				return 0, false
			}
			return sec.limits()
		}
	}
	return 0, false
}

// wasmReader reads the parts of a Wasm binary memoryMinimum needs.
type wasmReader struct{ b []byte }

func (r *wasmReader) byte() (byte, bool) {
	if len(r.b) == 0 {
		return 0, false
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c, true
}

func (r *wasmReader) uleb() (uint64, bool) {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c, ok := r.byte()
		if !ok {
			return 0, false
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, true
		}
	}
	return 0, false
}

func (r *wasmReader) name() (string, bool) {
	n, ok := r.uleb()
	if !ok || n > uint64(len(r.b)) {
		return "", false
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s, true
}

// limits reads a limits pair and returns its minimum.
func (r *wasmReader) limits() (uint64, bool) {
	flags, ok := r.byte()
	if !ok {
		return 0, false
	}
	min, ok := r.uleb()
	if ok && flags&1 != 0 {
		_, ok = r.uleb()
	}
	return min, ok
}
