package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// TodoWrite replaces the session's whole task list in one call: the form
// of planning tool that models trained on coding agents reach for
// (Claude Code's TodoWrite). It works on the same list as the Task* tools,
// so TaskList and TaskGet show what TodoWrite wrote and the other way
// round.
//
// Each todo becomes a task whose subject is the todo's content. A todo
// whose content equals the subject of a task already in the list keeps
// that task (its id, description, owner, links and metadata), so a model
// that rewrites its list to tick one item off does not renumber the rest;
// other todos become new tasks with new ids. Tasks the new list leaves
// out are removed, with the links to them. At most one todo may be
// in_progress: the model works on one thing at a time, and a list that
// says otherwise is refused with a message saying how to fix it. The
// activeForm (the present-continuous form a UI shows while the task runs)
// is kept in the task's metadata as "active_form".
type TodoWrite struct{}

// NewTodoWrite returns the TodoWrite tool.
func NewTodoWrite() *TodoWrite { return &TodoWrite{} }

var (
	_ toolkit.Caller         = (*TodoWrite)(nil)
	_ toolkit.InputValidator = (*TodoWrite)(nil)
)

// todoActiveFormKey is the task metadata key of a todo's activeForm.
const todoActiveFormKey = "active_form"

// The items do not forbid other properties: older TodoWrite formats send
// "id" and "priority" with each item, and refusing a whole plan over a
// field that changes nothing would only cost the model a retry.
var todoWriteSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "todos": {
      "type": "array",
      "description": "The complete new task list, in order. Tasks left out are removed.",
      "items": {
        "type": "object",
        "properties": {
          "content": {"type": "string", "minLength": 1, "description": "What to do, in the imperative, e.g. \"Run the tests\"."},
          "status": {"type": "string", "enum": ["pending", "in_progress", "completed"], "description": "At most one todo may be in_progress."},
          "activeForm": {"type": "string", "description": "The same in the present continuous, shown while it runs, e.g. \"Running the tests\"."}
        },
        "required": ["content", "status"]
      }
    }
  },
  "required": ["todos"],
  "additionalProperties": false
}`)

// todoWriteOutput is the result's structured form: the list after the
// write, as TaskList returns it, and the ids of the removed tasks.
var todoWriteOutput = json.RawMessage(`{"type": "object", "properties": {"tasks": {"type": "array", "items": ` + taskSchema +
	`}, "removed": {"type": "array", "items": {"type": "string"}}}, "required": ["tasks", "removed"]}`)

// Spec implements toolkit.Tool.
func (*TodoWrite) Spec() toolkit.Spec {
	return toolkit.Spec{
		Name: "TodoWrite",
		Description: "Replaces the session's task list with the given todos, in order, and returns the new list. " +
			"Send the complete list every time: todos left out are removed. A todo whose content matches an existing task " +
			"keeps that task's id. Mark a todo in_progress before you start it (at most one at a time) and completed as soon as it is done. " +
			"The list is the one TaskList, TaskGet and TaskUpdate work on.",
		InputSchema:  todoWriteSchema,
		OutputSchema: todoWriteOutput,
		// It rewrites the list: two at once would lose one of the writes.
		ConcurrencySafe: false,
		Coordination:    true,
		StateInjected:   true,
		Source:          toolkit.Source{Kind: toolkit.SourceBuiltin},
	}
}

// CheckPermissions implements toolkit.Tool: the task list is the session's
// own state, so every call is allowed (deny and ask rules still apply).
func (*TodoWrite) CheckPermissions(context.Context, toolkit.Input, *permission.Context) (permission.Decision, error) {
	return permission.AllowDecision("the task list is session state"), nil
}

type todoItem struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm"`
}

// parseTodos decodes and checks the todos: what the schema says (for a
// direct call that skipped it) and what it cannot say (one in_progress).
func parseTodos(in toolkit.Input) ([]todoItem, error) {
	var args struct {
		Todos *[]todoItem `json:"todos"`
	}
	if err := in.Decode(&args); err != nil {
		return nil, fmt.Errorf("invalid TodoWrite arguments: %v. Send {\"todos\": [{\"content\": ..., \"status\": ..., \"activeForm\": ...}]}", err)
	}
	if args.Todos == nil {
		return nil, fmt.Errorf("todos is missing: send the complete list, or [] to clear it")
	}
	todos := *args.Todos
	var working []string
	for i, t := range todos {
		if strings.TrimSpace(t.Content) == "" {
			return nil, fmt.Errorf("todo %d has no content: say what is to be done", i+1)
		}
		switch toolkit.TaskStatus(t.Status) {
		case toolkit.TaskPending, toolkit.TaskCompleted:
		case toolkit.TaskInProgress:
			working = append(working, fmt.Sprintf("%q", t.Content))
		default:
			return nil, fmt.Errorf("todo %q has the status %q: use pending, in_progress or completed (leave a todo out to remove it)", t.Content, t.Status)
		}
	}
	if len(working) > 1 {
		return nil, fmt.Errorf("%d todos are in_progress (%s): work on one at a time. Keep one in_progress and set the others to pending or completed",
			len(working), strings.Join(working, ", "))
	}
	return todos, nil
}

// ValidateInput implements toolkit.InputValidator: a list the tool would
// refuse is refused before the permission check, as a mistake the model
// can fix.
func (*TodoWrite) ValidateInput(in toolkit.Input) error {
	_, err := parseTodos(in)
	return err
}

// Call implements toolkit.Caller.
func (*TodoWrite) Call(ctx context.Context, in toolkit.Input) toolkit.Stream {
	return func(yield func(*toolkit.Chunk, error) bool) {
		list, err := sessionTasks(ctx, "TodoWrite")
		if err != nil {
			yield(nil, err)
			return
		}
		todos, err := parseTodos(in)
		if err != nil {
			yield(nil, fmt.Errorf("%w. Nothing was changed", err))
			return
		}
		var removed []string
		tasks, err := list.Replace(ctx, func(current []toolkit.Task) ([]toolkit.Task, error) {
			removed = nil
			next, kept := todoTasks(current, todos)
			for _, t := range current {
				if !kept[t.ID] {
					removed = append(removed, t.ID)
				}
			}
			return next, nil
		})
		if err != nil {
			yield(nil, fmt.Errorf("the task list could not be replaced: %w. Call TodoWrite again", err))
			return
		}
		all := make([]any, len(tasks))
		status := make(map[string]toolkit.TaskStatus, len(tasks))
		for i, t := range tasks {
			all[i] = taskJSON(t)
			status[t.ID] = t.Status
		}
		if removed == nil {
			removed = []string{}
		}
		var b strings.Builder
		if len(tasks) == 0 {
			b.WriteString("The task list is now empty.")
		} else {
			fmt.Fprintf(&b, "The task list now holds %d task(s):", len(tasks))
			for _, t := range tasks {
				b.WriteString("\n")
				b.WriteString(taskLine(t, status))
			}
		}
		if len(removed) > 0 {
			fmt.Fprintf(&b, "\nRemoved: %s.", taskRefs(removed))
		}
		yield(taskChunk(b.String(), map[string]any{"tasks": all, "removed": removed}), nil)
	}
}

// todoTasks turns todos into the new task list: a todo takes over the
// first task not taken yet whose subject equals its content, keeping what
// the task tools set on it; other todos are new tasks. kept names the
// tasks taken over.
func todoTasks(current []toolkit.Task, todos []todoItem) (next []toolkit.Task, kept map[string]bool) {
	kept = map[string]bool{}
	next = make([]toolkit.Task, 0, len(todos))
	for _, todo := range todos {
		t := toolkit.Task{Subject: todo.Content}
		for _, c := range current {
			if !kept[c.ID] && c.Subject == todo.Content {
				t = c
				kept[c.ID] = true
				break
			}
		}
		t.Status = toolkit.TaskStatus(todo.Status)
		if todo.ActiveForm != "" {
			if t.Metadata == nil {
				t.Metadata = map[string]any{}
			}
			t.Metadata[todoActiveFormKey] = todo.ActiveForm
		} else {
			delete(t.Metadata, todoActiveFormKey)
			if len(t.Metadata) == 0 {
				t.Metadata = nil
			}
		}
		next = append(next, t)
	}
	return next, kept
}
