package skills

import (
	"fmt"
	"strings"
	"sync"

	"github.com/wasmtools/wasmtools/toolkit"
)

// Attach makes tk serve lib: the viewer tool is registered while lib
// holds at least one skill and removed when it holds none, now and after
// every change of lib. It returns the viewer so the caller can list the
// skills a session sees (Viewer.Visible) for the prompt fragment.
func Attach(tk *toolkit.Toolkit, lib *Library) (*Viewer, error) {
	v := NewViewer(lib, tk)
	var mu sync.Mutex // orders reconciles from concurrent library changes
	listed := ""      // the skill names the registered viewer's spec lists
	reconcile := func() error {
		mu.Lock()
		defer mu.Unlock()
		_, registered := tk.Tool(ViewerName)
		names := strings.Join(skillNames(lib.Skills()), "\x00")
		want := names != ""
		switch {
		case want && !registered:
			listed = names
			return tk.Register(v)
		case want && names != listed:
			// The spec names the skills: register again so the toolkit
			// (and MCP clients, told the list changed) see the new one.
			listed = names
			return tk.Register(v, toolkit.Replacing())
		case !want && registered:
			listed = ""
			return tk.Unregister(ViewerName)
		}
		return nil
	}
	if err := reconcile(); err != nil {
		return nil, fmt.Errorf("skills: registering the %s tool: %w", ViewerName, err)
	}
	lib.Subscribe(func() {
		if err := reconcile(); err != nil {
			lib.log.Error("skills: keeping the viewer tool in step", "err", err)
		}
	})
	return v, nil
}
