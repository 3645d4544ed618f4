package host

import (
	"encoding/json"
	"testing"

	"github.com/wasmtools/wasmtools/abi"
)

// TestCallBody: the hand-written request is what json.Marshal writes
// (for an input json.Marshal wrote, as Call's is).
func TestCallBody(t *testing.T) {
	tests := []struct{ tool, input, callID, sessionID string }{
		{"hash", `{"text":"abc"}`, "", ""},
		{"h<a>sh", `{"text":"a\"b\u00e9\u003c"}`, "c&1", "s\u2028"},
		{"t", `{}`, "call", ""},
		{"t", `[1,2]`, "", "session"},
	}
	for _, tt := range tests {
		want, err := json.Marshal(abi.CallRequest{ABI: abi.Version, Tool: tt.tool, Input: json.RawMessage(tt.input), CallID: tt.callID, SessionID: tt.sessionID})
		if err != nil {
			t.Fatal(err)
		}
		if got := callBody(tt.tool, []byte(tt.input), tt.callID, tt.sessionID); string(got) != string(want) {
			t.Errorf("callBody:\n got %s\nwant %s", got, want)
		}
	}
}
