package builtin

import (
	"context"
	"errors"
	"io/fs"
	"time"
)

// Backend is where the built-in tools run commands and touch files.
// Implementations must be safe for concurrent use.
type Backend interface {
	// Exec runs a shell command, calling output with each piece of its
	// standard output and standard error as it arrives (never
	// concurrently). It returns when the command and everything it
	// started have ended, or were killed on timeout or cancellation.
	Exec(ctx context.Context, req ExecRequest, output func(stream Stream, data []byte)) (ExecResult, error)
	// ReadFile returns a file's contents.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// WriteFile replaces a file's contents atomically: a reader sees the
	// old or the new contents, never a mix, and a crash leaves one of
	// them. Parent directories are created; an existing file keeps its
	// mode, a new one gets perm.
	WriteFile(ctx context.Context, path string, data []byte, perm fs.FileMode) error
}

// Stream names an output stream of a command.
type Stream string

// The output streams.
const (
	Stdout Stream = "stdout"
	Stderr Stream = "stderr"
)

// ExecRequest describes a command to run.
type ExecRequest struct {
	// Command is shell source, run by bash (or sh where bash is missing).
	Command string
	// Dir is the working directory; empty means the backend's default.
	Dir string
	// Env adds NAME=value entries to the backend's environment.
	Env []string
	// Timeout ends the command (and every process it started); 0 means
	// none beyond the context.
	Timeout time.Duration
	// Unsandboxed runs the command outside the OS sandbox of a backend
	// that has one. Set it only for a call the user approved as such
	// (the Bash tool's "sandbox": "off").
	Unsandboxed bool
}

// ExecResult is how a command ended.
type ExecResult struct {
	ExitCode int
	// TimedOut is set when the command was killed at its timeout.
	TimedOut bool
	// Duration is how long it ran.
	Duration time.Duration
	// Refused, for a confined command that reported a refused access,
	// says what was refused and what would allow it; "" otherwise.
	Refused string
}

// ErrNotSupported is returned by backends for operations they lack.
var ErrNotSupported = errors.New("not supported by this backend")
