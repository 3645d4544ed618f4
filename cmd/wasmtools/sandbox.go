package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/wasmtools/wasmtools/sandbox"
)

// configSandbox is the sandbox: section of wasmtools.yaml.
type configSandbox struct {
	// Mode is auto, required or off; --sandbox wins over it.
	Mode string `yaml:"mode"`
	// Network is on (the default) or off: off takes the network from
	// every command, not only in explore mode.
	Network onOff `yaml:"network"`
	// Writable are more files and folders every command may change
	// (not in explore mode); relative to the configuration file, or to
	// the home directory when they start with ~/.
	Writable []string `yaml:"writable"`
}

// UnmarshalYAML reads the section and checks the mode, naming the line.
func (c *configSandbox) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			switch k := n.Content[i]; k.Value {
			case "mode", "network", "writable":
			default:
				return fmt.Errorf("line %d: sandbox: unknown field %q (fields: mode, network, writable)", k.Line, k.Value)
			}
		}
	}
	type plain configSandbox
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	if _, err := sandbox.ParseMode(p.Mode); err != nil {
		return fmt.Errorf("line %d: sandbox.mode: %w", n.Line, err)
	}
	*c = configSandbox(p)
	return nil
}

// onOff is a switch written on or off (true and false work too); unset
// is "".
type onOff string

// UnmarshalYAML accepts on, off, true and false.
func (o *onOff) UnmarshalYAML(n *yaml.Node) error {
	switch strings.ToLower(n.Value) {
	case "on", "true", "yes":
		*o = "on"
	case "off", "false", "no":
		*o = "off"
	default:
		return fmt.Errorf("line %d: %q: write on or off", n.Line, n.Value)
	}
	return nil
}

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

// newSandbox builds the sandbox the flags and the configuration
// describe; the program is its own helper (main calls sandbox.Main).
func (p *permFlags) newSandbox(log *slog.Logger) (*sandbox.Sandbox, error) {
	opts := sandbox.Options{Mode: p.sandboxMode, Logger: log}
	if c := p.config; c != nil {
		if opts.Mode == "" {
			opts.Mode = sandbox.Mode(strings.ToLower(strings.TrimSpace(c.Sandbox.Mode)))
		}
		opts.NoNetwork = c.Sandbox.Network == "off"
		for _, w := range c.Sandbox.Writable {
			if rest, ok := strings.CutPrefix(w, "~/"); ok {
				home, err := os.UserHomeDir()
				if err != nil {
					return nil, fmt.Errorf("%s: sandbox.writable %s: %w", c.file, w, err)
				}
				w = filepath.Join(home, rest)
			}
			opts.Writable = append(opts.Writable, c.rel(w))
		}
	}
	sb, err := sandbox.New(opts)
	if err != nil {
		return nil, err
	}
	p.sandbox = sb
	return sb, nil
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
