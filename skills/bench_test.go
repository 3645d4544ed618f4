package skills

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkWatchReload measures the time from writing a changed SKILL.md
// to the library serving it, debounce included (target: 100 ms).
func BenchmarkWatchReload(b *testing.B) {
	root := b.TempDir()
	writeFile(b, root, "s/SKILL.md", skillMD("s", "v0", ""))
	lib := NewLibrary(Options{Logger: quietLogger()})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := Watch(ctx, lib, root, WatchOptions{}); err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	for i := 0; b.Loop(); i++ {
		want := fmt.Sprintf("v%d", i+1)
		start := time.Now()
		writeFile(b, root, filepath.Join("s", FileName), skillMD("s", want, ""))
		for s, _ := lib.Skill("s"); s.Description != want; s, _ = lib.Skill("s") {
			time.Sleep(100 * time.Microsecond)
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/reload")
}
