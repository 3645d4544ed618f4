package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

// newTaskToolkit returns a toolkit with the four task tools, in mode.
func newTaskToolkit(t *testing.T, mode permission.Mode) *toolkit.Toolkit {
	t.Helper()
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: mode}})
	for _, tool := range TaskTools() {
		if err := tk.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	return tk
}

// sessionList returns the task list of a session, to check the effect of
// calls directly.
func sessionList(t *testing.T, tk *toolkit.Toolkit, session string) toolkit.TaskList {
	t.Helper()
	s, err := tk.Store().Session(context.Background(), session)
	if err != nil {
		t.Fatal(err)
	}
	return s.Tasks()
}

// mustList returns the tasks of l.
func mustList(t *testing.T, l toolkit.TaskList) []toolkit.Task {
	t.Helper()
	tasks, err := l.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}

// links returns a task's blocks and blocked_by, for comparisons.
func links(t *testing.T, l toolkit.TaskList, id string) (blocks, blockedBy []string) {
	t.Helper()
	task, err := l.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("task %s: %v", id, err)
	}
	return task.Blocks, task.BlockedBy
}

func metaTask(t *testing.T, r *toolkit.Response) map[string]any {
	t.Helper()
	m, ok := r.Metadata["task"].(map[string]any)
	if !ok {
		t.Fatalf("no task in the metadata: %#v", r.Metadata)
	}
	return m
}

func TestTaskToolSpecs(t *testing.T) {
	tests := []struct {
		tool     toolkit.Tool
		name     string
		safe     bool
		readOnly bool
	}{
		{NewTaskCreate(), "TaskCreate", false, false},
		{NewTaskGet(), "TaskGet", true, true},
		{NewTaskList(), "TaskList", true, true},
		{NewTaskUpdate(), "TaskUpdate", false, false},
		{NewTodoWrite(), "TodoWrite", false, false},
	}
	for _, tt := range tests {
		s := tt.tool.Spec()
		if s.Name != tt.name || s.ConcurrencySafe != tt.safe || s.ReadOnly != tt.readOnly ||
			!s.Coordination || !s.StateInjected || s.External || s.Source.Kind != toolkit.SourceBuiltin {
			t.Errorf("%s: spec %+v", tt.name, s)
		}
		if _, ok := tt.tool.(toolkit.Caller); !ok {
			t.Errorf("%s has no Call method", tt.name)
		}
	}
	var schema struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(NewTaskUpdate().Spec().InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if got := schema.Properties["status"].Enum; !slices.Equal(got, []string{"pending", "in_progress", "completed", "deleted"}) {
		t.Errorf("status enum %v", got)
	}
}

// TestTaskToolsAllowedInEveryMode: coordination tools are allowed in every
// mode, EXPLORE and DONT_ASK included, through the real engine.
func TestTaskToolsAllowedInEveryMode(t *testing.T) {
	calls := []toolkit.Call{
		{Name: "TaskCreate", Arguments: `{"subject":"s","description":"d"}`},
		{Name: "TaskGet", Arguments: `{"task_id":"1"}`},
		{Name: "TaskList", Arguments: `{}`},
		{Name: "TaskUpdate", Arguments: `{"task_id":"1","status":"completed"}`},
		{Name: "TodoWrite", Arguments: `{"todos":[{"content":"c","status":"in_progress","activeForm":"a"}]}`},
	}
	for _, mode := range permission.Modes {
		tk := newTaskToolkit(t, mode)
		for _, c := range calls {
			d, err := tk.Check(context.Background(), "s", c, toolkit.CheckOptions{})
			if err != nil {
				t.Fatalf("%s %s: %v", mode, c.Name, err)
			}
			if d.Behavior != permission.Allow {
				t.Errorf("%s %s: %s (%s), want allow", mode, c.Name, d.Behavior, d.Message)
			}
		}
	}
	// Direct checks say allow too, for hosts that call them.
	for _, tool := range TaskTools() {
		d, err := tool.CheckPermissions(context.Background(), toolkit.Input{}, &permission.Context{})
		if err != nil || d.Behavior != permission.Allow {
			t.Errorf("%s: %v %v", tool.Spec().Name, d, err)
		}
	}
	// A deny rule still wins over coordination.
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: permission.ModeExplore,
		Deny: []permission.Rule{{Tool: "TaskCreate"}}}})
	if err := tk.Register(NewTaskCreate()); err != nil {
		t.Fatal(err)
	}
	if d, _ := tk.Check(context.Background(), "s", calls[0], toolkit.CheckOptions{}); d.Behavior != permission.Deny {
		t.Errorf("deny rule: %s", d.Behavior)
	}
}

// TestTaskLifecycle walks one session through create, list, get, update and
// delete; each step checks the reply and the list itself.
func TestTaskLifecycle(t *testing.T) {
	tk := newTaskToolkit(t, permission.ModeExplore)
	list := sessionList(t, tk, "s")
	steps := []struct {
		name   string
		tool   string
		args   string
		state  toolkit.State
		text   []string
		absent []string
		check  func(t *testing.T, r *toolkit.Response)
	}{
		{name: "empty list", tool: "TaskList", args: `{}`, state: toolkit.StateSuccess, text: []string{"No tasks"},
			check: func(t *testing.T, r *toolkit.Response) {
				if tasks, ok := r.Metadata["tasks"].([]any); !ok || len(tasks) != 0 {
					t.Errorf("metadata %#v", r.Metadata)
				}
			}},
		{name: "create first", tool: "TaskCreate", args: `{"subject":"Write the parser","description":"Parse the grammar."}`,
			state: toolkit.StateSuccess, text: []string{"#1", "[pending]", "Write the parser"},
			check: func(t *testing.T, r *toolkit.Response) {
				m := metaTask(t, r)
				if m["id"] != "1" || m["status"] != "pending" || m["subject"] != "Write the parser" ||
					m["description"] != "Parse the grammar." || m["created_at"] == nil {
					t.Errorf("task metadata %#v", m)
				}
				if b, _ := m["blocks"].([]any); b == nil || len(b) != 0 {
					t.Errorf("blocks should be an empty list: %#v", m["blocks"])
				}
			}},
		{name: "create blocked", tool: "TaskCreate",
			args:  `{"subject":"Test the parser","description":"Table tests.","owner":"bob","blocked_by":["1"],"metadata":{"prio":2,"gone":null}}`,
			state: toolkit.StateSuccess, text: []string{"#2", "(owner: bob)", "(blocked by #1)"},
			check: func(t *testing.T, r *toolkit.Response) {
				if blocks, _ := links(t, list, "1"); !slices.Equal(blocks, []string{"2"}) {
					t.Errorf("task 1 blocks %v, want [2]: both sides of a link", blocks)
				}
				task, _ := list.Get(context.Background(), "2")
				if task.Owner != "bob" || fmt.Sprint(task.Metadata) != "map[prio:2]" {
					t.Errorf("task 2: %+v", task)
				}
			}},
		{name: "list", tool: "TaskList", args: `{}`, state: toolkit.StateSuccess,
			text: []string{"#1 [pending] Write the parser\n#2 [pending] Test the parser (owner: bob) (blocked by #1)"}},
		{name: "get", tool: "TaskGet", args: `{"task_id":"1"}`, state: toolkit.StateSuccess,
			text: []string{"Task #1: Write the parser", "Status: pending", "Blocks: #2", "Description:\nParse the grammar."}},
		{name: "get with #", tool: "TaskGet", args: `{"task_id":"#2"}`, state: toolkit.StateSuccess,
			text: []string{"Task #2", "Owner: bob", "Blocked by: #1", `Metadata: {"prio":2}`}},
		{name: "get unknown", tool: "TaskGet", args: `{"task_id":"9"}`, state: toolkit.StateError,
			text: []string{`"9"`, "does not exist", "TaskList"}},
		{name: "start", tool: "TaskUpdate", args: `{"task_id":"1","status":"in_progress","owner":"alice"}`,
			state: toolkit.StateSuccess, text: []string{"status pending → in_progress", "owner", "#1 [in_progress] Write the parser (owner: alice)"}},
		{name: "complete", tool: "TaskUpdate", args: `{"task_id":"1","status":"completed"}`, state: toolkit.StateSuccess,
			text: []string{"status in_progress → completed"}},
		{name: "list hides finished blockers", tool: "TaskList", args: `{}`, state: toolkit.StateSuccess,
			text: []string{"#1 [completed]", "#2 [pending] Test the parser (owner: bob)"}, absent: []string{"blocked by"}},
		{name: "metadata merge", tool: "TaskUpdate", args: `{"task_id":"2","metadata":{"prio":null,"area":"lexer"}}`,
			state: toolkit.StateSuccess, text: []string{"metadata"},
			check: func(t *testing.T, r *toolkit.Response) {
				if got := fmt.Sprint(metaTask(t, r)["metadata"]); got != "map[area:lexer]" {
					t.Errorf("merged metadata %s", got)
				}
			}},
		{name: "metadata: deleting the last key", tool: "TaskUpdate", args: `{"task_id":"2","metadata":{"area":null}}`,
			state: toolkit.StateSuccess,
			check: func(t *testing.T, r *toolkit.Response) {
				if task, _ := list.Get(context.Background(), "2"); task.Metadata != nil {
					t.Errorf("metadata %v, want none", task.Metadata)
				}
			}},
		{name: "no change", tool: "TaskUpdate", args: `{"task_id":"2","owner":"bob"}`, state: toolkit.StateSuccess,
			text: []string{"unchanged"}},
		{name: "update unknown", tool: "TaskUpdate", args: `{"task_id":"7","status":"completed"}`, state: toolkit.StateError,
			text: []string{`"7"`, "TaskList"}},
		{name: "delete", tool: "TaskUpdate", args: `{"task_id":"1","status":"deleted"}`, state: toolkit.StateSuccess,
			text: []string{"Deleted task #1"},
			check: func(t *testing.T, r *toolkit.Response) {
				if r.Metadata["deleted"] != true {
					t.Errorf("metadata %v", r.Metadata)
				}
				if _, err := list.Get(context.Background(), "1"); err == nil {
					t.Error("task 1 still exists")
				}
				if _, blockedBy := links(t, list, "2"); len(blockedBy) != 0 {
					t.Errorf("task 2 still blocked by %v", blockedBy)
				}
			}},
		{name: "get deleted", tool: "TaskGet", args: `{"task_id":"1"}`, state: toolkit.StateError, text: []string{"TaskList"}},
		{name: "ids are not reused", tool: "TaskCreate", args: `{"subject":"Ship","description":""}`, state: toolkit.StateSuccess,
			text: []string{"#3"}},
		{name: "list after delete", tool: "TaskList", args: `{}`, state: toolkit.StateSuccess,
			text: []string{"#2 [pending] Test the parser (owner: bob)\n#3 [pending] Ship"}, absent: []string{"#1"}},
	}
	for _, st := range steps {
		r := toolkittest.Call(t, tk, "s", st.tool, st.args)
		if r.State != st.state {
			t.Fatalf("%s: state %s, want %s: %s", st.name, r.State, st.state, r.Text())
		}
		for _, w := range st.text {
			if !strings.Contains(r.Text(), w) {
				t.Errorf("%s: %q lacks %q", st.name, r.Text(), w)
			}
		}
		for _, w := range st.absent {
			if strings.Contains(r.Text(), w) {
				t.Errorf("%s: %q has %q", st.name, r.Text(), w)
			}
		}
		if st.check != nil {
			st.check(t, r)
		}
	}
}

// TestTaskLinks: links are kept on both tasks, and a bad link changes
// nothing at all.
func TestTaskLinks(t *testing.T) {
	tests := []struct {
		name  string
		tool  string
		args  string
		ok    bool
		text  string
		links map[string][2][]string // id -> blocks, blocked_by after the call
	}{
		{name: "add_blocks", tool: "TaskUpdate", args: `{"task_id":"1","add_blocks":["2","3","2"]}`, ok: true,
			links: map[string][2][]string{"1": {{"2", "3"}, nil}, "2": {nil, {"1"}}, "3": {nil, {"1"}}}},
		{name: "add_blocked_by", tool: "TaskUpdate", args: `{"task_id":"3","add_blocked_by":["#2"]}`, ok: true,
			links: map[string][2][]string{"2": {{"3"}, nil}, "3": {nil, {"2"}}}},
		{name: "create with both", tool: "TaskCreate", args: `{"subject":"x","description":"y","blocks":["3"],"blocked_by":["1"]}`, ok: true,
			links: map[string][2][]string{"4": {{"3"}, {"1"}}, "3": {nil, {"4"}}, "1": {{"4"}, nil}}},
		{name: "unknown in add_blocks", tool: "TaskUpdate", args: `{"task_id":"1","add_blocks":["2","42"],"status":"completed"}`,
			text: `"42" does not exist`},
		{name: "unknown in add_blocked_by", tool: "TaskUpdate", args: `{"task_id":"1","add_blocked_by":["42"]}`,
			text: "TaskList"},
		{name: "unknown on create", tool: "TaskCreate", args: `{"subject":"x","description":"y","blocks":["1"],"blocked_by":["42"]}`,
			text: `"42" does not exist`},
		{name: "self link", tool: "TaskUpdate", args: `{"task_id":"2","add_blocks":["2"]}`, text: "itself"},
		{name: "both directions at once", tool: "TaskUpdate", args: `{"task_id":"2","add_blocks":["3"],"add_blocked_by":["3"]}`,
			text: "neither could ever start"},
		{name: "reverse of an existing link", tool: "TaskUpdate", args: `{"task_id":"2","add_blocks":["1"]}`,
			text: "neither could ever start"},
	}
	for _, tt := range tests {
		tk := newTaskToolkit(t, permission.ModeDefault)
		for range 3 {
			toolkittest.Call(t, tk, "s", "TaskCreate", `{"subject":"t","description":"d"}`)
		}
		list := sessionList(t, tk, "s")
		if tt.name == "reverse of an existing link" {
			toolkittest.Call(t, tk, "s", "TaskUpdate", `{"task_id":"1","add_blocks":["2"]}`)
		}
		before := mustList(t, list)
		r := toolkittest.Call(t, tk, "s", tt.tool, tt.args)
		if tt.ok != (r.State == toolkit.StateSuccess) {
			t.Errorf("%s: state %s: %s", tt.name, r.State, r.Text())
			continue
		}
		if !tt.ok {
			if !strings.Contains(r.Text(), tt.text) || !strings.Contains(r.Text(), "Nothing was changed") {
				t.Errorf("%s: %q lacks %q and \"Nothing was changed\"", tt.name, r.Text(), tt.text)
			}
			if after := mustList(t, list); !reflect.DeepEqual(before, after) {
				t.Errorf("%s: the list changed:\n%+v\n%+v", tt.name, before, after)
			}
			continue
		}
		for id, want := range tt.links {
			blocks, blockedBy := links(t, list, id)
			if !slices.Equal(blocks, want[0]) || !slices.Equal(blockedBy, want[1]) {
				t.Errorf("%s: task %s blocks %v blocked_by %v, want %v %v", tt.name, id, blocks, blockedBy, want[0], want[1])
			}
		}
	}
}

// TestTaskSchemaViolations: the pipeline rejects bad input before the tool
// runs, with the message the model reads.
func TestTaskSchemaViolations(t *testing.T) {
	tests := []struct{ tool, args, text string }{
		{"TaskCreate", `{"subject":"s"}`, "description"},
		{"TaskCreate", `{"subject":"","description":"d"}`, "/subject"},
		{"TaskCreate", `{"subject":"s","description":"d","status":"completed"}`, "status"},
		{"TaskCreate", `{"subject":"s","description":"d","blocks":"1"}`, "/blocks"},
		{"TaskGet", `{}`, "task_id"},
		{"TaskGet", `{"task_id":1}`, "/task_id"},
		{"TaskList", `{"all":true}`, "all"},
		{"TaskUpdate", `{"task_id":"1","status":"done"}`, "/status"},
		{"TaskUpdate", `{"status":"completed"}`, "task_id"},
		{"TaskUpdate", `{"task_id":"1","metadata":[1]}`, "/metadata"},
	}
	tk := newTaskToolkit(t, permission.ModeDefault)
	toolkittest.Call(t, tk, "s", "TaskCreate", `{"subject":"t","description":"d"}`)
	for _, tt := range tests {
		r := toolkittest.Call(t, tk, "s", tt.tool, tt.args)
		if r.State != toolkit.StateError || !strings.Contains(r.Text(), "Invalid arguments for "+tt.tool) ||
			!strings.Contains(r.Text(), tt.text) {
			t.Errorf("%s %s: %s %q, want a schema error naming %q", tt.tool, tt.args, r.State, r.Text(), tt.text)
		}
	}
	if task, _ := sessionList(t, tk, "s").Get(context.Background(), "1"); task.Status != toolkit.TaskPending {
		t.Errorf("a rejected call changed the task: %+v", task)
	}
}

// TestTaskToolsWithoutSession: outside a toolkit call there is no task
// list; each tool ends its stream with an error saying so.
func TestTaskToolsWithoutSession(t *testing.T) {
	inputs := map[string]toolkit.Input{
		"TaskCreate": {"subject": "s", "description": "d"},
		"TaskGet":    {"task_id": "1"},
		"TaskList":   {},
		"TaskUpdate": {"task_id": "1"},
		"TodoWrite":  {"todos": []any{}},
	}
	for _, tool := range TaskTools() {
		name := tool.Spec().Name
		for _, ctx := range []context.Context{
			context.Background(),
			toolkit.WithRuntime(context.Background(), &toolkit.Runtime{SessionID: "s"}), // a runtime without state
		} {
			var gotErr error
			for _, err := range tool.(toolkit.Caller).Call(ctx, inputs[name]) {
				if err != nil {
					gotErr = err
				}
			}
			if gotErr == nil || !strings.Contains(gotErr.Error(), name) || !strings.Contains(gotErr.Error(), "no session") {
				t.Errorf("%s: error %v", name, gotErr)
			}
		}
	}
}

// TestTaskSessionsAreSeparate: one toolkit, two sessions, two lists.
func TestTaskSessionsAreSeparate(t *testing.T) {
	tk := newTaskToolkit(t, permission.ModeDefault)
	toolkittest.Call(t, tk, "a", "TaskCreate", `{"subject":"only in a","description":"d"}`)
	if r := toolkittest.Call(t, tk, "b", "TaskList", `{}`); !strings.Contains(r.Text(), "No tasks") {
		t.Errorf("session b sees %q", r.Text())
	}
	if r := toolkittest.Call(t, tk, "b", "TaskCreate", `{"subject":"in b","description":"d"}`); metaTask(t, r)["id"] != "1" {
		t.Errorf("session b's first id is %v", metaTask(t, r)["id"])
	}
}

// TestTaskConcurrentTurns: many turns of one session at once (reads in
// parallel batches, writes one by one) under the race detector; every
// create gets its own id.
func TestTaskConcurrentTurns(t *testing.T) {
	tk := newTaskToolkit(t, permission.ModeDefault)
	toolkittest.Call(t, tk, "s", "TaskCreate", `{"subject":"root","description":"d"}`)
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ctx := context.Background()
			calls := []toolkit.Call{
				{Name: "TaskCreate", Arguments: fmt.Sprintf(`{"subject":"t%d","description":"d","blocked_by":["1"]}`, i)},
				{Name: "TaskList", Arguments: `{}`},
				{Name: "TaskGet", Arguments: `{"task_id":"1"}`},
				{Name: "TaskUpdate", Arguments: `{"task_id":"1","metadata":{"k":"v"}}`},
			}
			turn, err := tk.NewTurn(ctx, "s", calls, toolkit.TurnOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			if err := turn.Run(ctx); err != nil && !errors.Is(err, toolkit.ErrWaiting) {
				t.Error(err)
				return
			}
			for _, r := range turn.Responses() {
				if r.State != toolkit.StateSuccess {
					t.Errorf("%s: %s", r.Tool, r.Text())
				}
			}
		})
	}
	wg.Wait()
	list := sessionList(t, tk, "s")
	tasks := mustList(t, list)
	ids := map[string]bool{}
	for _, task := range tasks {
		ids[task.ID] = true
	}
	if len(tasks) != n+1 || len(ids) != n+1 {
		t.Fatalf("%d tasks, %d distinct ids; want %d", len(tasks), len(ids), n+1)
	}
	if blocks, _ := links(t, list, "1"); len(blocks) != n {
		t.Errorf("task 1 blocks %d tasks, want %d: %v", len(blocks), n, blocks)
	}
}

// racyStore is a session store whose task lists delete one task just
// before it is updated, as a concurrent call of the same session could
// between TaskUpdate's checks and its writes.
type racyStore struct {
	*toolkit.MemoryStore
	victim string
}

func (s racyStore) Session(ctx context.Context, id string) (toolkit.SessionState, error) {
	st, err := s.MemoryStore.Session(ctx, id)
	return racySession{st, s.victim}, err
}

type racySession struct {
	toolkit.SessionState
	victim string
}

func (s racySession) Tasks() toolkit.TaskList { return racyList{s.SessionState.Tasks(), s.victim} }

type racyList struct {
	toolkit.TaskList
	victim string
}

func (l racyList) Update(ctx context.Context, id string, change func(*toolkit.Task) error) (toolkit.Task, error) {
	if id == l.victim {
		_, _ = l.TaskList.Update(ctx, id, func(t *toolkit.Task) error { t.Status = toolkit.TaskDeleted; return nil })
	}
	return l.TaskList.Update(ctx, id, change)
}

// TestTaskLinkToTaskDeletedMeanwhile: when the other side of a new link
// disappears before it can be written, the link is taken back off the
// updated task, and the reply says so.
func TestTaskLinkToTaskDeletedMeanwhile(t *testing.T) {
	for _, tt := range []struct{ tool, args string }{
		{"TaskUpdate", `{"task_id":"1","add_blocks":["2"],"owner":"ann"}`},
		{"TaskCreate", `{"subject":"new","description":"d","blocked_by":["2"]}`},
	} {
		tk := toolkit.New(toolkit.Options{Store: racyStore{toolkit.NewMemoryStore(), "2"}})
		for _, tool := range TaskTools() {
			if err := tk.Register(tool); err != nil {
				t.Fatal(err)
			}
		}
		toolkittest.Call(t, tk, "s", "TaskCreate", `{"subject":"one","description":"d"}`)
		toolkittest.Call(t, tk, "s", "TaskCreate", `{"subject":"two","description":"d"}`)
		r := toolkittest.Call(t, tk, "s", tt.tool, tt.args)
		if r.State != toolkit.StateError || !strings.Contains(r.Text(), "deleted meanwhile") {
			t.Errorf("%s: %s %q", tt.tool, r.State, r.Text())
		}
		for _, task := range mustList(t, sessionList(t, tk, "s")) {
			if slices.Contains(task.Blocks, "2") || slices.Contains(task.BlockedBy, "2") {
				t.Errorf("%s: task %s still links to the deleted task: %+v", tt.tool, task.ID, task)
			}
		}
	}
}
