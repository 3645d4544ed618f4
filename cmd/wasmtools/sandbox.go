package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/wasmtools/wasmtools/sandbox"
)

// registerSandbox adds --sandbox to fs.
func (p *permFlags) registerSandbox(fs interface {
	Func(name, usage string, fn func(string) error)
}) {
	fs.Func("sandbox", "OS sandbox of shell commands: auto (confine where the kernel can), required (never run a command unconfined) or off (default: the configuration's sandbox.mode, else auto)", func(s string) error {
		m, err := sandbox.ParseMode(s)
		if err != nil {
			return err
		}
		p.sandboxMode = m
		return nil
	})
}

// printSandbox prints the sandbox line of list.
func printSandbox(w io.Writer, st sandbox.Status) {
	fmt.Fprintf(w, "\nSANDBOX %s: ", st.Mode)
	switch {
	case st.Enforced:
		fmt.Fprintf(w, "shell commands run confined (Landlock ABI %d), network %s", st.ABI, st.Network)
		if len(st.Writable) > 0 {
			fmt.Fprintf(w, ", also writable: %s", strings.Join(st.Writable, ", "))
		}
	case st.Mode == sandbox.ModeRequired:
		fmt.Fprintf(w, "shell commands will not run: %s", st.Reason)
	default:
		fmt.Fprintf(w, "shell commands run unconfined: %s", st.Reason)
	}
	fmt.Fprintln(w)
}
