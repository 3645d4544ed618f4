package pathpolicy

import "testing"

// benchWords are words a command's analysis judges, as the shell
// analysis gets them (a "~" already expanded), in a working directory
// that does not exist, as in the corpus benchmarks.
var benchWords = []struct{ name, word string }{
	{"relative", "README.md"},
	{"relative-dir", "build"},
	{"home", "/home/user/.bashrc"}, // sensitive by spelling: Sensitive alone
	{"etc", "/etc/passwd"},
	{"deep", "src/internal/pkg/Server/handler_test.go"},
}

const benchCwd = "/tmp/project"

// BenchmarkSensitivePath is the shell analysis's check of one path word
// (permission/bash's sensitiveWordIn): Sensitive on the word as spelled,
// then, unless that was enough, SensitivePath, on a fresh scope of a fresh policy's copy, as each
// decision makes one. The scope's one probe of the working directory is
// part of each operation.
func BenchmarkSensitivePath(b *testing.B) {
	p := New(Options{Home: "/home/user"})
	for _, w := range benchWords {
		b.Run(w.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s := p.ScopedIn(benchCwd)
				if _, ok := s.Sensitive(w.word); ok {
					continue
				}
				s.SensitivePath(w.word, benchCwd)
			}
		})
	}
}

// BenchmarkSensitive is Sensitive alone, on the absolute form of each
// word (what SensitivePath asks first).
func BenchmarkSensitive(b *testing.B) {
	p := New(Options{Home: "/home/user"})
	for _, w := range benchWords {
		abs := Abs(w.word, benchCwd)
		b.Run(w.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Sensitive(abs)
			}
		})
	}
}

// BenchmarkScopedIn is the copy each decision makes.
func BenchmarkScopedIn(b *testing.B) {
	p := New(Options{Home: "/home/user"})
	b.ReportAllocs()
	for b.Loop() {
		p.ScopedIn(benchCwd)
	}
}

// BenchmarkGlobMaySensitive is the check of a glob word (the shell
// analysis's sensitiveWordIn for a word with glob syntax) on a fresh
// scope, in the working directory that does not exist: the entries'
// comparison with the glob, then its expansion (nothing).
func BenchmarkGlobMaySensitive(b *testing.B) {
	p := New(Options{Home: "/home/user"})
	for _, glob := range []string{"*.go", "src/*.md"} {
		b.Run(glob, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s := p.ScopedIn(benchCwd)
				if what, ok := s.GlobMaySensitive(glob, benchCwd); ok {
					b.Fatal(what)
				}
			}
		})
	}
}
