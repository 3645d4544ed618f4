package builtin

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

// TestTodoWrite walks one session through TodoWrite and the Task* tools on
// the same list: ids of matching tasks stay, the rest are new, left-out
// tasks go with their links, and each reply shows the list.
func TestTodoWrite(t *testing.T) {
	tk := newTaskToolkit(t, permission.ModeExplore)
	list := sessionList(t, tk, "s")
	steps := []struct {
		name   string
		tool   string
		args   string
		state  toolkit.State
		text   []string // substrings of the reply
		absent []string
		after  string // TaskList's text after the step, when set
	}{
		{name: "a task of TaskCreate", tool: "TaskCreate", args: `{"subject":"Run the tests","description":"go test ./...","owner":"bob"}`,
			state: toolkit.StateSuccess},
		{name: "a task that blocks it", tool: "TaskCreate", args: `{"subject":"Old idea","description":"d","blocks":["1"]}`,
			state: toolkit.StateSuccess},
		{name: "first write", tool: "TodoWrite",
			args: `{"todos":[{"content":"Write the code","status":"completed","activeForm":"Writing the code"},` +
				`{"content":"Run the tests","status":"in_progress","activeForm":"Running the tests"},` +
				`{"content":"Ship","status":"pending","activeForm":"Shipping"}]}`,
			state: toolkit.StateSuccess,
			text: []string{"now holds 3 task(s):\n#3 [completed] Write the code\n#1 [in_progress] Run the tests (owner: bob)\n#4 [pending] Ship",
				"Removed: #2."},
			after: "#3 [completed] Write the code\n#1 [in_progress] Run the tests (owner: bob)\n#4 [pending] Ship"},
		{name: "TaskGet sees the kept task, its link to the removed one gone", tool: "TaskGet", args: `{"task_id":"1"}`,
			state:  toolkit.StateSuccess,
			text:   []string{"Task #1: Run the tests", "Status: in_progress", "Owner: bob", `"active_form":"Running the tests"`, "Description:\ngo test ./..."},
			absent: []string{"Blocked by"}},
		{name: "the removed task is gone", tool: "TaskGet", args: `{"task_id":"2"}`, state: toolkit.StateError,
			text: []string{"does not exist"}},
		{name: "tick one off: ids stay", tool: "TodoWrite",
			args: `{"todos":[{"content":"Write the code","status":"completed","activeForm":"Writing the code"},` +
				`{"content":"Run the tests","status":"completed","activeForm":"Running the tests"},` +
				`{"content":"Ship","status":"in_progress","activeForm":"Shipping"}]}`,
			state: toolkit.StateSuccess, absent: []string{"Removed"},
			after: "#3 [completed] Write the code\n#1 [completed] Run the tests (owner: bob)\n#4 [in_progress] Ship"},
		{name: "TaskUpdate works on what TodoWrite wrote", tool: "TaskUpdate", args: `{"task_id":"4","status":"completed"}`,
			state: toolkit.StateSuccess, after: "#3 [completed] Write the code\n#1 [completed] Run the tests (owner: bob)\n#4 [completed] Ship"},
		{name: "two in progress", tool: "TodoWrite",
			args:  `{"todos":[{"content":"A","status":"in_progress"},{"content":"B","status":"in_progress"}]}`,
			state: toolkit.StateError, text: []string{"Invalid arguments for TodoWrite", `2 todos are in_progress ("A", "B")`, "one at a time"},
			after: "#3 [completed] Write the code\n#1 [completed] Run the tests (owner: bob)\n#4 [completed] Ship"},
		{name: "bad status", tool: "TodoWrite", args: `{"todos":[{"content":"A","status":"done"}]}`,
			state: toolkit.StateError, text: []string{"Invalid arguments for TodoWrite", "/todos/0/status"}},
		{name: "deleted is no todo status", tool: "TodoWrite", args: `{"todos":[{"content":"A","status":"deleted"}]}`,
			state: toolkit.StateError, text: []string{"/todos/0/status"}},
		{name: "no content", tool: "TodoWrite", args: `{"todos":[{"content":"  ","status":"pending"}]}`,
			state: toolkit.StateError, text: []string{"todo 1 has no content"}},
		{name: "no todos", tool: "TodoWrite", args: `{}`, state: toolkit.StateError, text: []string{"todos"}},
		{name: "clear", tool: "TodoWrite", args: `{"todos":[]}`, state: toolkit.StateSuccess,
			text: []string{"The task list is now empty.", "Removed: #3, #1, #4."}, after: "No tasks."},
		{name: "ids are never reused", tool: "TodoWrite", args: `{"todos":[{"content":"Write the code","status":"pending"}]}`,
			state: toolkit.StateSuccess, text: []string{"#5 [pending] Write the code"}},
	}
	for _, st := range steps {
		r := toolkittest.Call(t, tk, "s", st.tool, st.args)
		if r.State != st.state {
			t.Fatalf("%s: state %s, want %s: %q", st.name, r.State, st.state, r.Text())
		}
		for _, want := range st.text {
			if !strings.Contains(r.Text(), want) {
				t.Errorf("%s: reply %q lacks %q", st.name, r.Text(), want)
			}
		}
		for _, bad := range st.absent {
			if strings.Contains(r.Text(), bad) {
				t.Errorf("%s: reply %q has %q", st.name, r.Text(), bad)
			}
		}
		if st.after != "" {
			if got := toolkittest.Call(t, tk, "s", "TaskList", `{}`).Text(); got != st.after {
				t.Errorf("%s: TaskList = %q, want %q", st.name, got, st.after)
			}
		}
	}
	if tasks := mustList(t, list); len(tasks) != 1 || tasks[0].Metadata != nil {
		t.Errorf("a todo without activeForm: %+v, want no metadata", tasks)
	}
}

// TestTodoWriteResult: the structured result is the list as TaskList
// gives it, plus the removed ids.
func TestTodoWriteResult(t *testing.T) {
	tk := newTaskToolkit(t, permission.ModeDefault)
	toolkittest.Call(t, tk, "s", "TaskCreate", `{"subject":"gone","description":"d"}`)
	r := toolkittest.Call(t, tk, "s", "TodoWrite", `{"todos":[{"content":"A","status":"pending","activeForm":"Doing A"}]}`)
	tasks, _ := r.Metadata["tasks"].([]any)
	removed, _ := r.Metadata["removed"].([]string)
	if len(tasks) != 1 || len(removed) != 1 || removed[0] != "1" {
		t.Fatalf("metadata %#v", r.Metadata)
	}
	task := tasks[0].(map[string]any)
	if task["id"] != "2" || task["subject"] != "A" || task["status"] != "pending" ||
		task["metadata"].(map[string]any)[todoActiveFormKey] != "Doing A" {
		t.Errorf("task %#v", task)
	}
	list := toolkittest.Call(t, tk, "s", "TaskList", `{}`)
	if got, want := list.Metadata["tasks"], r.Metadata["tasks"]; len(got.([]any)) != 1 || got.([]any)[0].(map[string]any)["id"] != want.([]any)[0].(map[string]any)["id"] {
		t.Errorf("TaskList %v, TodoWrite %v", got, want)
	}
}

// TestTodoWriteSessionsAreSeparate: a write in one session leaves the
// other's list alone.
func TestTodoWriteSessionsAreSeparate(t *testing.T) {
	tk := newTaskToolkit(t, permission.ModeDefault)
	toolkittest.Call(t, tk, "b", "TaskCreate", `{"subject":"b's task","description":"d"}`)
	toolkittest.Call(t, tk, "a", "TodoWrite", `{"todos":[{"content":"a's todo","status":"in_progress"}]}`)
	if got := toolkittest.Call(t, tk, "b", "TaskList", `{}`).Text(); got != "#1 [pending] b's task" {
		t.Errorf("session b: %q", got)
	}
	if got := toolkittest.Call(t, tk, "a", "TaskList", `{}`).Text(); got != "#1 [in_progress] a's todo" {
		t.Errorf("session a: %q", got)
	}
}

// TestTodoWritePermissions: a coordination tool, allowed in every mode
// (explore included) unless a rule names it.
func TestTodoWritePermissions(t *testing.T) {
	call := toolkit.Call{Name: "TodoWrite", Arguments: `{"todos":[{"content":"A","status":"pending"}]}`}
	tests := []struct {
		mode permission.Mode
		deny []permission.Rule
		ask  []permission.Rule
		want permission.Behavior
	}{
		{mode: permission.ModeDefault, want: permission.Allow},
		{mode: permission.ModeExplore, want: permission.Allow},
		{mode: permission.ModeDontAsk, want: permission.Allow},
		{mode: permission.ModeAcceptEdits, want: permission.Allow},
		{mode: permission.ModeBypass, want: permission.Allow},
		{mode: permission.ModeExplore, deny: []permission.Rule{{Tool: "TodoWrite"}}, want: permission.Deny},
		{mode: permission.ModeBypass, deny: []permission.Rule{{Tool: "TodoWrite"}}, want: permission.Deny},
		{mode: permission.ModeDefault, ask: []permission.Rule{{Tool: "TodoWrite"}}, want: permission.Ask},
		{mode: permission.ModeDefault, deny: []permission.Rule{{Tool: "TaskCreate"}}, want: permission.Allow},
	}
	for _, tt := range tests {
		tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: tt.mode, Deny: tt.deny, Ask: tt.ask}})
		if err := tk.Register(NewTodoWrite()); err != nil {
			t.Fatal(err)
		}
		d, err := tk.Check(context.Background(), "s", call, toolkit.CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Behavior != tt.want {
			t.Errorf("mode %s, deny %v, ask %v: %s (%s), want %s", tt.mode, tt.deny, tt.ask, d.Behavior, d.Message, tt.want)
		}
		if tt.want == permission.Deny {
			r := toolkittest.Call(t, tk, "s", "TodoWrite", call.Arguments)
			if r.State != toolkit.StateDenied {
				t.Errorf("denied call ran: %s %q", r.State, r.Text())
			}
			if tasks := mustList(t, sessionList(t, tk, "s")); len(tasks) != 0 {
				t.Errorf("a denied call wrote the list: %+v", tasks)
			}
		}
	}
}

// TestTodoWriteDirectCall: a call that skips the pipeline (no schema, no
// validator) is still checked before the list changes.
func TestTodoWriteDirectCall(t *testing.T) {
	store := toolkit.NewMemoryStore()
	sess, _ := store.Session(context.Background(), "s")
	_, _ = sess.Tasks().Create(context.Background(), toolkit.Task{Subject: "keep me"})
	ctx := toolkit.WithRuntime(context.Background(), &toolkit.Runtime{SessionID: "s", Session: sess})
	for _, in := range []toolkit.Input{
		{"todos": []any{map[string]any{"content": "A", "status": "in_progress"}, map[string]any{"content": "B", "status": "in_progress"}}},
		{"todos": []any{map[string]any{"content": "A", "status": "deleted"}}},
		{"todos": "A"},
	} {
		var gotErr error
		for _, err := range NewTodoWrite().Call(ctx, in) {
			if err != nil {
				gotErr = err
			}
		}
		if gotErr == nil || !strings.Contains(gotErr.Error(), "Nothing was changed") {
			t.Errorf("%v: error %v", in, gotErr)
		}
	}
	if tasks := mustList(t, sess.Tasks()); len(tasks) != 1 || tasks[0].Subject != "keep me" {
		t.Errorf("list after refused calls: %+v", tasks)
	}
}
