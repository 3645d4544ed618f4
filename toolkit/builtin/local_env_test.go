package builtin

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestUnconfinedEnv: a command that runs unconfined gets the environment
// UnconfinedEnv makes; without it, the host's.
func TestUnconfinedEnv(t *testing.T) {
	t.Setenv("WASMTOOLS_PROBE", "from the host")
	filter := func(env []string) []string {
		var out []string
		for _, kv := range env {
			if !strings.HasPrefix(kv, "WASMTOOLS_PROBE=") {
				out = append(out, kv)
			}
		}
		return append(out, "WASMTOOLS_PROBE=filtered")
	}
	for _, tt := range []struct {
		backend *LocalBackend
		want    string
	}{
		{&LocalBackend{}, "from the host"},
		{&LocalBackend{UnconfinedEnv: filter}, "filtered"},
	} {
		var out bytes.Buffer
		res, err := tt.backend.Exec(context.Background(), ExecRequest{Command: `printf %s "$WASMTOOLS_PROBE"`, Dir: t.TempDir()}, func(_ Stream, b []byte) { out.Write(b) })
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("exec: %+v, %v", res, err)
		}
		if out.String() != tt.want {
			t.Errorf("got %q, want %q", out.String(), tt.want)
		}
	}
}
