package search

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// The pure-Go engine

// GoEngine is the pure-Go engine: it walks the tree through FS, reads
// files through it (or, Local, straight from disk with a reused buffer)
// and searches them in parallel.
type GoEngine struct {
	// FS is the tree the engine reads.
	FS FS
	// Local says FS is this machine's file system: files are then read
	// with a reused buffer instead of through FS.
	Local   bool
	Workers int
}

// searchBinaryProbe is how much of a file is read first to spot a binary file
// before reading the rest.
const searchBinaryProbe = 8 << 10

func (s *GoEngine) Search(ctx context.Context, q *Query, t Target) ([]FileResult, error) {
	m, err := CompileMatcher(q.Pattern, q.IgnoreCase, q.Multiline)
	if err != nil {
		return nil, err
	}
	if t.IsFile {
		return s.searchFiles(ctx, m, q, func(send func(job grepFileJob) bool) error {
			fi, err := s.FS.Stat(ctx, t.Root)
			if err != nil {
				return err
			}
			send(grepFileJob{path: t.Root, modTime: fi.ModTime, size: fi.Size})
			return nil
		})
	}
	return s.searchFiles(ctx, m, q, func(send func(job grepFileJob) bool) error {
		return s.walk(ctx, q, t.Root, send)
	})
}

// grepFileJob is one file to search.
type grepFileJob struct {
	path    string
	modTime time.Time
	size    int64
}

// walk sends every file of the tree at root that the filters let through.
func (s *GoEngine) walk(ctx context.Context, q *Query, root string, send func(grepFileJob) bool) error {
	f := newSearchTreeFilter(root, q)
	rootDir := loadSearchIgnoreDir(ctx, s.FS, root, true)
	f.loadParents(ctx, s.FS, rootDir.hasGit)
	stack := []*searchIgnoreDir{rootDir}
	// A trailing separator makes the walk enter root even when it is a
	// symbolic link to a directory, as rg does with a path it is given.
	walkRoot := root
	if !strings.HasSuffix(walkRoot, string(filepath.Separator)) {
		walkRoot += string(filepath.Separator)
	}
	stopped := false
	err := s.FS.Walk(ctx, walkRoot, func(fi File) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		p := filepath.Clean(fi.Path)
		if p == root {
			return nil
		}
		parent := filepath.Dir(p)
		for len(stack) > 0 && stack[len(stack)-1].dir != parent {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			return nil
		}
		isDir := fi.IsDir()
		switch {
		case IsVCSDir(filepath.Base(p)):
			if isDir {
				return fs.SkipDir
			}
			return nil
		case fi.Mode&fs.ModeSymlink != 0:
			return nil // links are not followed, as rg does without -L
		case !isDir && !fi.Mode.IsRegular():
			return nil
		}
		if !f.wants(p, isDir, stack) {
			if isDir {
				return fs.SkipDir
			}
			return nil
		}
		if isDir {
			stack = append(stack, loadSearchIgnoreDir(ctx, s.FS, p, f.hasGitRules(stack)))
			return nil
		}
		if !send(grepFileJob{path: p, modTime: fi.ModTime, size: fi.Size}) {
			stopped = true
			return fs.SkipAll
		}
		return nil
	})
	if stopped && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// searchFiles runs a bounded pool of workers over the files produce
// sends.
func (s *GoEngine) searchFiles(ctx context.Context, m *grepMatcher, q *Query, produce func(send func(grepFileJob) bool) error) ([]FileResult, error) {
	workers := s.Workers
	if workers <= 0 {
		workers = max(2, runtime.GOMAXPROCS(0))
	}
	jobs := make(chan grepFileJob, 4*workers)
	results := make([][]FileResult, workers)
	local := s.Local
	// Without context lines or multiline matches, a file can be searched
	// a chunk at a time: a small buffer that stays in the CPU cache and is
	// reused for every file, instead of a whole-file buffer.
	chunked := local && q.Mode != ModeContent && !m.multiline
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var bufp *[]byte
			if local {
				pool := &searchWholePool
				if chunked {
					pool = &searchChunkPool
				}
				bufp = pool.Get().(*[]byte)
				defer pool.Put(bufp)
			}
			for job := range jobs {
				if ctx.Err() != nil {
					continue // drain
				}
				var fm FileResult
				var ok bool
				switch {
				case chunked:
					fm, ok = m.searchLocalChunks(job.path, job.size, bufp, q)
				case local:
					data, err := searchReadLocal(job.path, job.size, *bufp)
					*bufp = data[:0]
					if err == nil && !IsBinary(data) {
						fm, ok = m.search(data, q)
					}
				default:
					data, err := s.FS.ReadFile(ctx, job.path)
					if err == nil && !IsBinary(data) {
						fm, ok = m.search(data, q)
					}
				}
				if ok {
					fm.Path, fm.ModTime = job.path, job.modTime
					results[w] = append(results[w], fm)
				}
			}
		}()
	}
	err := produce(func(j grepFileJob) bool {
		select {
		case jobs <- j:
			return true
		case <-ctx.Done():
			return false
		}
	})
	close(jobs)
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	var out []FileResult
	for _, r := range results {
		out = append(out, r...)
	}
	return out, nil
}

// IsBinary reports whether data looks binary: it holds a NUL byte, as
// ripgrep decides.
func IsBinary(data []byte) bool { return bytes.IndexByte(data, 0) >= 0 }

// searchChunkSize is the read size of chunked searches: large enough to
// make few system calls, small enough to stay in the CPU cache.
const searchChunkSize = 256 << 10

// Buffers outlive a call so repeated searches don't allocate (and zero)
// them again; the pools drop them when the garbage collector runs.
var (
	searchChunkPool = sync.Pool{New: func() any { b := make([]byte, searchChunkSize); return &b }}
	searchWholePool = sync.Pool{New: func() any { var b []byte; return &b }}
)

// searchLocalChunks searches a local file for files_with_matches or count
// mode, reading it a chunk at a time into *bufp (grown for lines longer
// than a chunk). A NUL byte anywhere makes the file binary and ends the
// search with no result, so a matched file is still read to its end.
func (m *grepMatcher) searchLocalChunks(name string, size int64, bufp *[]byte, q *Query) (fm FileResult, ok bool) {
	f, err := os.Open(name)
	if err != nil {
		return fm, false
	}
	defer f.Close()
	buf := *bufp
	keep := 0
	var total int64
	for {
		if keep == len(buf) {
			// One line fills the buffer: grow it to hold more.
			bigger := make([]byte, 2*len(buf))
			copy(bigger, buf)
			buf = bigger
			*bufp = buf
		}
		n, rerr := f.Read(buf[keep:])
		if rerr != nil && rerr != io.EOF {
			return fm, false
		}
		if bytes.IndexByte(buf[keep:keep+n], 0) >= 0 {
			return fm, false
		}
		total += int64(n)
		// Reading exactly the size the walk saw ends the file without
		// another system call to learn of the end.
		eof := rerr == io.EOF || n == 0 || (total >= size && keep+n < len(buf))
		data := buf[:keep+n]
		complete := data
		if !eof {
			last := bytes.LastIndexByte(data, '\n')
			if last < 0 {
				keep = len(data)
				continue
			}
			complete = data[:last+1]
		}
		if !ok || q.Mode == ModeCount {
			m.eachLine(complete, func(int, int) bool {
				fm.Count++
				ok = true
				return q.Mode == ModeCount
			})
		}
		if eof {
			return fm, ok
		}
		keep = copy(buf, data[len(complete):])
	}
}

// searchReadLocal reads a local file into buf (grown as needed and
// returned). It reads the first searchBinaryProbe bytes first and stops
// there when they hold a NUL byte, so large binary files cost one small
// read; the returned data then holds just that NUL-bearing prefix.
func searchReadLocal(name string, size int64, buf []byte) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	want := int(size) + 1 // one more byte to see the end without a second read
	if cap(buf) < want {
		buf = make([]byte, 0, max(want, 2*cap(buf)))
	}
	buf = buf[:0]
	probe := min(searchBinaryProbe, cap(buf))
	n, err := io.ReadFull(f, buf[:probe])
	buf = buf[:n]
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return buf, nil
		}
		return buf, err
	}
	if IsBinary(buf) {
		return buf, nil
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // the file grew since the walk
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
