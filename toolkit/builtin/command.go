package builtin

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wasmtools/wasmtools/toolkit"
)

// streamCommand runs a shell command through run and streams its output
// to yield as it comes, cut after maxChars characters (the rest is still
// read, so the command never blocks on a full pipe, and counted). It ends
// with a chunk carrying the exit code, timeout and duration in its
// metadata; a non-zero exit code or a timeout makes the response an error.
// killed says what a timeout did, for the model.
func streamCommand(ctx context.Context, yield func(*toolkit.Chunk, error) bool, maxChars int, timeout time.Duration,
	killed string, run func(ctx context.Context, output func([]byte)) (ExecResult, error)) {
	pieces := make(chan string, 64)
	done := make(chan struct{})
	var res ExecResult
	var runErr error
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(done)
		defer close(pieces)
		// A character split across two reads of the pipe is held back
		// until its end arrives, so no chunk carries half of it.
		var partial []byte
		send := func(text string) {
			select {
			case pieces <- text:
			case <-runCtx.Done():
			}
		}
		res, runErr = run(runCtx, func(data []byte) {
			data = append(partial, data...)
			cut := completeUTF8(data)
			partial = append([]byte(nil), data[cut:]...)
			if cut > 0 {
				send(string(data[:cut]))
			}
		})
		if len(partial) > 0 {
			send(string(partial))
		}
	}()
	shown, total := 0, 0
	stopped := false
	for text := range pieces {
		total += utf8.RuneCountInString(text)
		if stopped || shown >= maxChars {
			continue // keep draining so the runner never blocks
		}
		if n := utf8.RuneCountInString(text); shown+n > maxChars {
			text = cutRunes(text, maxChars-shown)
		}
		shown += utf8.RuneCountInString(text)
		if !yield(toolkit.TextChunk(text), nil) {
			stopped = true
			cancel()
		}
	}
	<-done
	if stopped {
		return
	}
	if runErr != nil {
		yield(nil, runErr)
		return
	}
	var note strings.Builder
	if total > shown {
		fmt.Fprintf(&note, "\n[output cut: %d of %d characters shown]", shown, total)
	}
	state := toolkit.StateSuccess
	switch {
	case res.TimedOut:
		fmt.Fprintf(&note, "\n[timed out after %s: %s]", timeout, killed)
		state = toolkit.StateError
	case res.ExitCode != 0:
		fmt.Fprintf(&note, "\n[exit code %d]", res.ExitCode)
		state = toolkit.StateError
	}
	final := &toolkit.Chunk{State: state, Last: true, Metadata: map[string]any{
		"exit_code": res.ExitCode, "timed_out": res.TimedOut, "duration_ms": res.Duration.Milliseconds(),
	}}
	if res.Refused != "" {
		final.Metadata[toolkit.MetaSandboxRefused] = res.Refused
	}
	if note.Len() > 0 {
		final.Content = []toolkit.Block{toolkit.TextBlock(note.String())}
	}
	yield(final, nil)
}

// cutRunes returns the first n characters of s.
func cutRunes(s string, n int) string {
	i := 0
	for off := range s {
		if i == n {
			return s[:off]
		}
		i++
	}
	return s
}

// completeUTF8 returns the length of the longest prefix of b that does not
// end inside a multi-byte UTF-8 character. Invalid bytes count as whole
// characters: only a valid but unfinished sequence is held back.
func completeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}
