// Command deploy is an example wasmtools plugin that shows a tool's own
// permission logic. It does not deploy anything: it simulates a
// deployment and streams its progress.
//
//   - check_permissions: a target matching prod-* gets a bypass-immune
//     safety ask (allow rules cannot silence it), dev-* is allowed, any
//     other target gets no opinion (passthrough);
//   - check_read_only: a dry run changes nothing;
//   - match_rule: the content of a rule deploy(PATTERN) is a glob on the
//     target, so deploy(staging-*) covers staging-2;
//   - generate_suggestions: deploy(staging-2) suggests deploy(staging-*).
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o deploy.wasm .
package main

import (
	"fmt"
	"path"
	"strings"

	"github.com/wasmtools/wasmtools/abi"
	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

// Input is the input of the deploy tool.
type Input struct {
	Target  string `json:"target" jsonschema:"the environment to deploy to, e.g. dev-1, staging-eu, prod-eu"`
	Version string `json:"version,omitempty" jsonschema:"the version to deploy (default: latest)"`
	DryRun  bool   `json:"dry_run,omitempty" jsonschema:"only show what would happen"`
}

// steps are the simulated stages of a deployment, streamed as progress.
var steps = []string{"build", "upload", "migrate", "switch traffic"}

func init() {
	guest.SetInfo(guest.PluginInfo{Name: "deploy", Version: "1.0.0"})
	guest.Register(guest.Tool[Input, guest.Result]{
		Name:        "deploy",
		Description: "Deploys a version of the service to a target environment (simulated: an example plugin). Streams progress. Production targets (prod-*) always need a human's approval.",
		Call:        call,
		Check:       check,
		IsReadOnly:  func(in Input) bool { return in.DryRun },
		MatchRule:   matchRule,
		Suggest:     suggest,
	})
}

func check(in Input, _ abi.PermissionContext) abi.Decision {
	switch {
	case strings.HasPrefix(in.Target, "prod-"):
		return abi.Decision{
			Behavior:     abi.Ask,
			Message:      fmt.Sprintf("Deploying to %s needs a human.", in.Target),
			Reason:       "production target",
			BypassImmune: true,
		}
	case strings.HasPrefix(in.Target, "dev-"):
		return abi.Decision{Behavior: abi.Allow, Reason: "development target"}
	}
	return abi.Decision{Behavior: abi.Passthrough}
}

// matchRule matches a rule's content as a glob (path.Match syntax: *, ?
// and [...]) on the target.
func matchRule(content string, in Input) bool {
	ok, err := path.Match(content, in.Target)
	return err == nil && ok
}

// suggest proposes the target's family: staging-2 -> deploy(staging-*).
func suggest(in Input) []string {
	if i := strings.IndexByte(in.Target, '-'); i > 0 {
		return []string{"deploy(" + in.Target[:i+1] + "*)"}
	}
	return []string{"deploy(" + in.Target + ")"}
}

func call(c *guest.Call, in Input) (guest.Result, error) {
	if in.Target == "" {
		return guest.Result{}, fmt.Errorf("target is empty: name an environment such as dev-1")
	}
	version := in.Version
	if version == "" {
		version = "latest"
	}
	if in.DryRun {
		return guest.Result{
			Content:  []abi.Block{guest.Text(fmt.Sprintf("Dry run: would deploy %s to %s in %d steps: %s.", version, in.Target, len(steps), strings.Join(steps, ", ")))},
			Metadata: map[string]any{"target": in.Target, "version": version, "dry_run": true},
		}, nil
	}
	guest.Log.Info("deploying ", version, " to ", in.Target)
	for i, s := range steps {
		if err := c.Progress(float64(i+1)/float64(len(steps)), fmt.Sprintf("[%d/%d] %s\n", i+1, len(steps), s)); err != nil {
			return guest.Result{}, err
		}
	}
	return guest.Result{
		Content:  []abi.Block{guest.Text(fmt.Sprintf("Deployed %s to %s (simulated).", version, in.Target))},
		Metadata: map[string]any{"target": in.Target, "version": version},
	}, nil
}

func main() {}
