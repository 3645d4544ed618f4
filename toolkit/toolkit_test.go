package toolkit

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/wasmtools/wasmtools/permission"
)

func TestRegister(t *testing.T) {
	tk := New(Options{})
	mustRegister(t, tk, cmdTool("A", true, nil))
	tests := []struct {
		name    string
		tool    Tool
		opts    []RegisterOption
		wantErr string
	}{
		{"duplicate", cmdTool("A", true, nil), nil, "already registered"},
		{"reserved name", cmdTool(ResetToolsName, true, nil), nil, "reserved"},
		{"bad name", cmdTool("a b", true, nil), nil, "letters, digits"},
		{"empty name", cmdTool("", true, nil), nil, "1 to 64"},
		{"unknown group", cmdTool("B", true, nil), []RegisterOption{InGroup("nope")}, "AddGroup"},
		{"bad schema", &testTool{spec: Spec{Name: "C", InputSchema: json.RawMessage(`{"type":"string"}`)}}, nil, "type\": \"object\""},
		{"schema not json", &testTool{spec: Spec{Name: "C", InputSchema: json.RawMessage(`{`)}}, nil, "not JSON"},
		{"schema does not compile", &testTool{spec: Spec{Name: "C", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"nonsense"}}}`)}}, nil, "does not compile"},
		{"no call, not external", externalOnly{spec: Spec{Name: "D"}}, nil, "Caller"},
	}
	for _, tt := range tests {
		err := tk.Register(tt.tool, tt.opts...)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.wantErr)
		}
	}
	if err := tk.Register(externalOnly{spec: Spec{Name: "E", External: true}}); err != nil {
		t.Errorf("external tool without Call: %v", err)
	}
	if err := tk.Register(cmdTool("A", false, nil), Replacing()); err != nil {
		t.Errorf("replacing: %v", err)
	}
	if tool, _ := tk.Tool("A"); tool.Spec().ConcurrencySafe {
		t.Error("Replacing did not replace")
	}
	if err := tk.Unregister("A"); err != nil {
		t.Fatal(err)
	}
	if _, ok := tk.Tool("A"); ok {
		t.Error("Unregister left the tool")
	}
	if err := tk.Unregister("A"); err == nil {
		t.Error("Unregister of a missing tool succeeded")
	}
}

type externalOnly struct{ spec Spec }

func (e externalOnly) Spec() Spec { return e.spec }
func (e externalOnly) CheckPermissions(context.Context, Input, *permission.Context) (permission.Decision, error) {
	return allowAll(nil), nil
}

func TestGroups(t *testing.T) {
	tk := New(Options{})
	for _, tt := range []struct {
		g       Group
		wantErr string
	}{
		{Group{Name: "basic", Description: "x"}, "reserved"},
		{Group{Name: "web"}, "description is required"},
		{Group{Name: ""}, "empty name"},
	} {
		if err := tk.AddGroup(tt.g); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("AddGroup(%+v) = %v, want %q", tt.g, err, tt.wantErr)
		}
	}
	if _, ok := tk.Tool(ResetToolsName); ok {
		t.Fatal("reset_tools exists without a named group")
	}
	if err := tk.AddGroup(Group{Name: "web", Description: "Web tools"}); err != nil {
		t.Fatal(err)
	}
	if err := tk.AddGroup(Group{Name: "web", Description: "again"}); err == nil {
		t.Error("duplicate group accepted")
	}
	if _, ok := tk.Tool(ResetToolsName); !ok {
		t.Fatal("reset_tools not registered once a named group exists")
	}
	mustRegister(t, tk, cmdTool("fetch", true, nil), InGroup("web"))
	if err := tk.RemoveGroup("web"); err != nil {
		t.Fatal(err)
	}
	if _, ok := tk.Tool("fetch"); ok {
		t.Error("RemoveGroup left the group's tool")
	}
	if _, ok := tk.Tool(ResetToolsName); ok {
		t.Error("reset_tools left after the last named group went")
	}
}

// groupKit has basic tool "ls", group "web" (fetch) and group "db" (query).
func groupKit(t *testing.T) *Toolkit {
	t.Helper()
	tk := New(Options{})
	for _, g := range []Group{
		{Name: "web", Description: "Web access", Instructions: "Cite the URLs you fetch."},
		{Name: "db", Description: "Database queries"},
	} {
		if err := tk.AddGroup(g); err != nil {
			t.Fatal(err)
		}
	}
	mustRegister(t, tk, cmdTool("ls", true, allowAll))
	mustRegister(t, tk, cmdTool("fetch", true, allowAll), InGroup("web"))
	mustRegister(t, tk, cmdTool("query", true, allowAll), InGroup("db"))
	return tk
}

func TestResetTools(t *testing.T) {
	tests := []struct {
		name       string
		args       string
		wantState  State
		wantText   []string
		wantActive []string
	}{
		{"activate one", `{"web": true}`, StateSuccess, []string{"web", "Cite the URLs"}, []string{"web"}},
		{"final state: others off", `{"db": true}`, StateSuccess, []string{"db"}, []string{"db"}},
		{"both", `{"web": true, "db": true}`, StateSuccess, []string{"web, db"}, []string{"web", "db"}},
		{"none", `{}`, StateSuccess, []string{"No tool groups are active"}, nil},
		{"false is off", `{"web": false, "db": true}`, StateSuccess, []string{"db"}, []string{"db"}},
		{"unknown name changes nothing", `{"web": true, "nosuch": true}`, StateError, []string{"nosuch", "web, db", "Nothing was changed"}, []string{"db"}},
		{"non-boolean changes nothing", `{"web": "yes"}`, StateError, []string{"boolean"}, []string{"db"}},
	}
	tk := groupKit(t)
	sess, _ := tk.Store().Session(context.Background(), "s")
	// Start from {"db"} so that failed calls can show they changed nothing.
	_ = sess.SetActiveGroups(context.Background(), []string{"db"})
	prev := []string{"db"}
	for _, tt := range tests {
		if tt.wantState != StateSuccess {
			_ = sess.SetActiveGroups(context.Background(), prev)
		}
		turn := runTurn(t, tk, TurnOptions{}, Call{Name: ResetToolsName, Arguments: tt.args})
		resp := turn.Responses()[0]
		if resp.State != tt.wantState {
			t.Errorf("%s: state %s, want %s (%s)", tt.name, resp.State, tt.wantState, resp.Text())
		}
		for _, w := range tt.wantText {
			if !strings.Contains(resp.Text(), w) {
				t.Errorf("%s: reply %q lacks %q", tt.name, resp.Text(), w)
			}
		}
		got, _ := tk.ActiveGroups(context.Background(), "s")
		if !slices.Equal(got, tt.wantActive) {
			t.Errorf("%s: active groups %v, want %v", tt.name, got, tt.wantActive)
		}
		if tt.wantState == StateSuccess {
			prev = got
		}
	}
}

func TestResetToolsSchemaShowsActiveGroups(t *testing.T) {
	tk := groupKit(t)
	ctx := context.Background()
	sess, _ := tk.Store().Session(ctx, "s")
	_ = sess.SetActiveGroups(ctx, []string{"web"})
	defs, err := tk.Definitions(ctx, "s", nil)
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]struct {
			Description string `json:"description"`
			Default     bool   `json:"default"`
		} `json:"properties"`
	}
	found := false
	for _, d := range defs {
		if d.Name == ResetToolsName {
			found = true
			if err := json.Unmarshal(d.InputSchema, &schema); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !found {
		t.Fatal("reset_tools not offered")
	}
	web, db := schema.Properties["web"], schema.Properties["db"]
	if !web.Default || !strings.Contains(web.Description, "active now") {
		t.Errorf("web property %+v does not show it is active", web)
	}
	if db.Default || strings.Contains(db.Description, "active now") {
		t.Errorf("db property %+v claims to be active", db)
	}
	// Another session sees its own state.
	defs, _ = tk.Definitions(ctx, "other", nil)
	for _, d := range defs {
		if d.Name == ResetToolsName && strings.Contains(string(d.InputSchema), "active now") {
			t.Error("a fresh session sees another session's active groups")
		}
	}
}

func TestAvailability(t *testing.T) {
	tk := groupKit(t)
	tests := []struct {
		call Call
		want []string
	}{
		{Call{Name: "fetch", Arguments: `{"cmd":"x"}`}, []string{`"web"`, ResetToolsName, `{"web": true}`}},
		{Call{Name: "nosuch", Arguments: `{}`}, []string{"nosuch", "does not exist", "ls", ResetToolsName}},
	}
	for _, tt := range tests {
		turn := runTurn(t, tk, TurnOptions{}, tt.call)
		resp := turn.Responses()[0]
		if resp.State != StateError {
			t.Errorf("%s: state %s, want error", tt.call.Name, resp.State)
		}
		for _, w := range tt.want {
			if !strings.Contains(resp.Text(), w) {
				t.Errorf("%s: message %q lacks %q", tt.call.Name, resp.Text(), w)
			}
		}
	}
	// After activation the tool runs.
	runTurn(t, tk, TurnOptions{}, Call{Name: ResetToolsName, Arguments: `{"web":true}`})
	resp := runTurn(t, tk, TurnOptions{}, Call{Name: "fetch", Arguments: `{"cmd":"x"}`}).Responses()[0]
	if resp.State != StateSuccess || resp.Text() != "fetch:x" {
		t.Errorf("after activation: %s %q", resp.State, resp.Text())
	}
}

func TestDefaultActiveGroup(t *testing.T) {
	tk := New(Options{})
	if err := tk.AddGroup(Group{Name: "g", Description: "d", Active: true}); err != nil {
		t.Fatal(err)
	}
	mustRegister(t, tk, cmdTool("x", true, allowAll), InGroup("g"))
	resp := runTurn(t, tk, TurnOptions{}, Call{Name: "x", Arguments: `{"cmd":"1"}`}).Responses()[0]
	if resp.State != StateSuccess {
		t.Fatalf("default-active group's tool: %s %s", resp.State, resp.Text())
	}
}

func TestDefinitionsAndFormats(t *testing.T) {
	tk := groupKit(t)
	ro := &testTool{spec: Spec{Name: "read", Description: "reads", ReadOnly: true,
		InputSchema: json.RawMessage(`{"type":"object","title":"ReadInput","properties":{"title":{"type":"string","title":"Title"}}}`)}}
	mustRegister(t, tk, ro)
	defs, err := tk.Definitions(context.Background(), "s", nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
	}
	// Inactive groups' tools are not offered; reset_tools comes last.
	if want := []string{"ls", "read", ResetToolsName}; !slices.Equal(names, want) {
		t.Fatalf("definitions %v, want %v", names, want)
	}

	oa, _ := json.Marshal(OpenAI(defs[1:2]))
	if !strings.Contains(string(oa), `"type":"function"`) || strings.Contains(string(oa), `"title":"`) {
		t.Errorf("OpenAI format %s: want type function and no title keywords", oa)
	}
	if !strings.Contains(string(oa), `"properties":{"title":{"type":"string"}}`) {
		t.Errorf("OpenAI format %s: a property named title must survive", oa)
	}
	// The stripped schema made at registration serves only while the
	// definition holds the schema it was made from.
	changed := slices.Clone(defs[1:2])
	changed[0].InputSchema = json.RawMessage(`{"type":"object","title":"Other","properties":{"n":{"type":"integer"}}}`)
	if oa, _ := json.Marshal(OpenAI(changed)); !strings.Contains(string(oa), `"n":{"type":"integer"}`) || strings.Contains(string(oa), `Other`) {
		t.Errorf("OpenAI format of a replaced schema %s: want the new schema, stripped", oa)
	}
	an, _ := json.Marshal(Anthropic(defs[1:2]))
	if !strings.Contains(string(an), `"input_schema":{`) || !strings.Contains(string(an), `"name":"read"`) {
		t.Errorf("Anthropic format %s", an)
	}
	mc, _ := json.Marshal(MCP(defs[1:2]))
	if !strings.Contains(string(mc), `"inputSchema":{`) || !strings.Contains(string(mc), `"readOnlyHint":true`) {
		t.Errorf("MCP format %s", mc)
	}
}

func TestViews(t *testing.T) {
	tk := groupKit(t)
	ext := []Spec{
		{Name: "ask_ui", Description: "ask the UI", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`)},
		{Name: "ls", Description: "the client's own ls"},
	}
	names := func(v *View) []string {
		defs, err := tk.Definitions(context.Background(), "s", v)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range defs {
			out = append(out, d.Name+map[bool]string{true: "*", false: ""}[d.External])
		}
		return out
	}
	if got, want := names(&View{External: ext, Mode: ViewMerge}), []string{"ask_ui*", "ls*", ResetToolsName}; !slices.Equal(got, want) {
		t.Errorf("merge: %v, want %v", got, want)
	}
	if got, want := names(&View{External: ext, Mode: ViewExternalOnly}), []string{"ask_ui*", "ls*"}; !slices.Equal(got, want) {
		t.Errorf("external only: %v, want %v", got, want)
	}
	if got, want := names(&View{External: ext, Mode: ViewToolkitOnly}), []string{"ls", ResetToolsName}; !slices.Equal(got, want) {
		t.Errorf("toolkit only: %v, want %v", got, want)
	}

	// A call to a view's tool suspends for external execution, after
	// validation against the view's schema.
	rec := &recorder{}
	turn := runTurn(t, tk, TurnOptions{View: &View{External: ext}, OnEvent: rec.on},
		Call{ID: "1", Name: "ask_ui", Arguments: `{"q":"color?"}`},
		Call{ID: "2", Name: "ask_ui", Arguments: `{}`})
	out := turn.Outcomes()
	if out[0].Status != StatusNeedsExternal || out[0].External.Input.String("q") != "color?" {
		t.Fatalf("view tool call: %+v", out[0])
	}
	// External execution stops a sequential batch: the next call waits.
	if out[1].Status != StatusPending {
		t.Fatalf("call after an external one: %+v", out[1])
	}
	if err := turn.SubmitResult("1", &Response{Content: []Block{TextBlock("blue")}}); err != nil {
		t.Fatal(err)
	}
	if err := turn.SubmitResult("1", &Response{}); err == nil {
		t.Error("a second result for the same call was accepted")
	}
	if err := turn.Run(context.Background()); err != nil && !errors.Is(err, ErrWaiting) {
		t.Fatal(err)
	}
	if r := turn.Responses()[1]; r.State != StateError || !strings.Contains(r.Text(), "q") {
		t.Fatalf("invalid view tool call: %s %q", r.State, r.Text())
	}
	if len(rec.kinds(EventExternal)) != 1 {
		t.Errorf("external events: %d, want 1", len(rec.kinds(EventExternal)))
	}
	if r := turn.Responses(); len(r) != 2 || r[0].Text() != "blue" || r[0].State != StateSuccess {
		t.Fatalf("after submit: %+v", r)
	}
	// Toolkit-only views do not know the request's tools.
	turn = runTurn(t, tk, TurnOptions{View: &View{External: ext, Mode: ViewToolkitOnly}}, Call{Name: "ask_ui", Arguments: `{"q":"x"}`})
	if r := turn.Responses()[0]; r.State != StateError {
		t.Errorf("toolkit-only view ran a request tool: %s", r.State)
	}
}

func TestPutGroup(t *testing.T) {
	var changes []Change
	tk := New(Options{OnChange: func(c Change) { changes = append(changes, c) }})
	g := Group{Name: "web", Description: "Web tools."}
	if err := tk.PutGroup(g); err != nil {
		t.Fatal(err)
	}
	echo, _ := NewFunc("fetch", "Fetches.", func(context.Context, struct{}) (string, error) { return "ok", nil }, FuncOptions{})
	if err := tk.Register(echo, InGroup("web")); err != nil {
		t.Fatal(err)
	}
	g.Instructions, g.Active = "Cite sources.", true
	if err := tk.PutGroup(g); err != nil {
		t.Fatal(err)
	}
	if got := tk.Groups(); len(got) != 1 || got[0] != g {
		t.Errorf("groups = %+v, want %+v", got, g)
	}
	if _, ok := tk.Tool("fetch"); !ok {
		t.Error("PutGroup dropped the group's tools")
	}
	n := len(changes)
	if err := tk.PutGroup(g); err != nil || len(changes) != n {
		t.Errorf("an unchanged PutGroup: err %v, %d change events (want none)", err, len(changes)-n)
	}
	for _, bad := range []Group{{Name: "basic", Description: "x"}, {Name: "x"}, {Description: "x"}} {
		if err := tk.PutGroup(bad); err == nil {
			t.Errorf("PutGroup(%+v) succeeded", bad)
		}
	}
}

// TestSchemaRefsStayInside: a schema's $ref to anything outside itself (a
// local file, which the host would otherwise read, or a relative name)
// refuses the registration; a $ref to its own $defs works.
func TestSchemaRefsStayInside(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "defs.json")
	if err := os.WriteFile(outside, []byte(`{"type":"string"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, schema string
		ok           bool
	}{
		{"local file", `{"type":"object","properties":{"x":{"$ref":"file://` + filepath.ToSlash(outside) + `"}}}`, false},
		{"relative name", `{"type":"object","properties":{"x":{"$ref":"defs.json"}}}`, false},
		{"own defs", `{"type":"object","$defs":{"s":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/s"}}}`, true},
	}
	for _, tt := range tests {
		tk := New(Options{})
		err := tk.Register(externalOnly{spec: Spec{Name: "T", External: true, InputSchema: json.RawMessage(tt.schema)}})
		if tt.ok && err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		if !tt.ok && (err == nil || !strings.Contains(err.Error(), "self-contained")) {
			t.Errorf("%s: error %v, want one saying the schema must be self-contained", tt.name, err)
		}
	}
}

// TestResetToolsReply: the reply describes the groups a call activates,
// with their instructions, and only names those active before.
func TestResetToolsReply(t *testing.T) {
	tk := New(Options{})
	for _, g := range []Group{
		{Name: "web", Description: "Fetch web pages.", Instructions: "Cite your sources."},
		{Name: "db", Description: "Query the database.", Instructions: "Never write."},
		{Name: "always", Description: "On from the start.", Instructions: "Be brief.", Active: true},
	} {
		if err := tk.AddGroup(g); err != nil {
			t.Fatal(err)
		}
	}
	call := func(args string) string {
		t.Helper()
		r, err := tk.Call(context.Background(), "s", Call{Name: ResetToolsName, Arguments: args}, TurnOptions{})
		if err != nil || r.State != StateSuccess {
			t.Fatalf("reset_tools %s: %v %+v", args, err, r)
		}
		return r.Text()
	}
	tests := []struct {
		args          string
		want, notWant []string
	}{
		// The first call describes every group it leaves active, the
		// default-active one included: the model has not read it yet.
		{`{"web":true,"always":true}`, []string{"Active tool groups: web, always.", "## web (activated now)\nFetch web pages.\n\nCite your sources.", "## always (activated now)\nOn from the start.\n\nBe brief."}, []string{"db"}},
		// Already active groups are named, not described again.
		{`{"web":true,"always":true,"db":true}`, []string{"Active tool groups: web, db, always.", "## db (activated now)\nQuery the database.\n\nNever write."}, []string{"Cite your sources.", "Be brief.", "## web", "## always"}},
		{`{}`, []string{"No tool groups are active now"}, []string{"##"}},
		{`{"web":true}`, []string{"## web (activated now)", "Cite your sources."}, nil},
	}
	for _, tt := range tests {
		got := call(tt.args)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("reset_tools %s: reply lacks %q:\n%s", tt.args, w, got)
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(got, w) {
				t.Errorf("reset_tools %s: reply has %q:\n%s", tt.args, w, got)
			}
		}
	}
}

// TestNoResetTools: without the meta tool the program activates groups
// itself, and the model is not told to call a tool it does not have.
func TestNoResetTools(t *testing.T) {
	tk := New(Options{NoResetTools: true, Permission: permission.Context{Mode: permission.ModeBypass}})
	if err := tk.AddGroup(Group{Name: "web", Description: "Fetch web pages."}); err != nil {
		t.Fatal(err)
	}
	mustRegister(t, tk, cmdTool("fetch", true, allowAll), InGroup("web"))
	names := func() []string {
		defs, err := tk.Definitions(context.Background(), "s", nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range defs {
			out = append(out, d.Name)
		}
		return out
	}
	if got := names(); len(got) != 0 {
		t.Errorf("tools offered with the group inactive and no meta tool: %v", got)
	}
	if _, ok := tk.Tool(ResetToolsName); ok {
		t.Error("reset_tools is registered")
	}
	r, err := tk.Call(context.Background(), "s", Call{Name: "fetch", Arguments: `{"cmd":"x"}`}, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != KindInactive || strings.Contains(r.Text(), ResetToolsName) {
		t.Errorf("inactive without the meta tool: %s %q", r.Kind, r.Text())
	}
	if err := tk.SetActiveGroups(context.Background(), "s", []string{"nope"}); err == nil {
		t.Error("an unknown group was accepted")
	}
	if err := tk.SetActiveGroups(context.Background(), "s", []string{"web"}); err != nil {
		t.Fatal(err)
	}
	if got := names(); len(got) != 1 || got[0] != "fetch" {
		t.Errorf("tools after SetActiveGroups: %v", got)
	}
	if r, err := tk.Call(context.Background(), "s", Call{Name: "fetch", Arguments: `{"cmd":"x"}`}, TurnOptions{}); err != nil || r.State != StateSuccess {
		t.Errorf("fetch after SetActiveGroups: %v %+v", err, r)
	}
}

// TestLookupFewAndMany: a tool is found by name whether the registry
// holds few tools (looked up in its own list) or many (in its map), as
// tools come and go.
func TestLookupFewAndMany(t *testing.T) {
	tk := New(Options{})
	var names []string
	check := func() {
		t.Helper()
		for _, n := range names {
			if tool, ok := tk.Tool(n); !ok || tool.Spec().Name != n {
				t.Fatalf("with %d tools, %s not found", len(names), n)
			}
		}
		for _, n := range []string{"missing", "", "t"} {
			if _, ok := tk.Tool(n); ok {
				t.Fatalf("with %d tools, %q found", len(names), n)
			}
		}
	}
	check()
	for i := range 7 {
		n := "t" + string(rune('a'+i))
		mustRegister(t, tk, cmdTool(n, true, nil))
		names = append(names, n)
		check()
	}
	for len(names) > 0 {
		if err := tk.Unregister(names[0]); err != nil {
			t.Fatal(err)
		}
		if _, ok := tk.Tool(names[0]); ok {
			t.Fatalf("%s found after Unregister", names[0])
		}
		names = names[1:]
		check()
	}
}

// TestEntrySize keeps an entry to three whole cache lines (its size
// class is then a multiple of 64 bytes), with what gates 1 to 3 read
// in the first.
func TestEntrySize(t *testing.T) {
	var e entry
	if n := unsafe.Sizeof(e); n > 192 {
		t.Errorf("an entry takes %d bytes, more than three cache lines", n)
	}
	if end := unsafe.Offsetof(e.validator) + unsafe.Sizeof(e.validator); end > 64 {
		t.Errorf("subject, group and validator end at byte %d, past the first cache line", end)
	}
}
