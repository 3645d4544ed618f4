package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// The task tools share the session's task list (toolkit.SessionState.Tasks):
// the model plans its work there and other agents of the session can pick
// tasks up. TodoWrite (todowrite.go) writes the same list whole. They are coordination tools: they change nothing outside the
// session, so they are allowed in every permission mode, EXPLORE included
// (AgentScope denies them there because they are not marked read-only).

// TaskCreate adds a task to the session's task list.
type TaskCreate struct{}

// TaskGet returns one task of the session's task list in full.
type TaskGet struct{}

// TaskList lists the session's tasks compactly.
type TaskList struct{}

// TaskUpdate changes, links or deletes a task of the session's task list.
type TaskUpdate struct{}

// NewTaskCreate returns the TaskCreate tool.
func NewTaskCreate() *TaskCreate { return &TaskCreate{} }

// NewTaskGet returns the TaskGet tool.
func NewTaskGet() *TaskGet { return &TaskGet{} }

// NewTaskList returns the TaskList tool.
func NewTaskList() *TaskList { return &TaskList{} }

// NewTaskUpdate returns the TaskUpdate tool.
func NewTaskUpdate() *TaskUpdate { return &TaskUpdate{} }

// TaskTools returns the task tools, ready to register together: the four
// Task* tools and TodoWrite, which all work on the session's one list.
func TaskTools() []toolkit.Tool {
	return []toolkit.Tool{NewTaskCreate(), NewTaskGet(), NewTaskList(), NewTaskUpdate(), NewTodoWrite()}
}

var (
	_ toolkit.Caller = (*TaskCreate)(nil)
	_ toolkit.Caller = (*TaskGet)(nil)
	_ toolkit.Caller = (*TaskList)(nil)
	_ toolkit.Caller = (*TaskUpdate)(nil)
)

var taskCreateSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "subject": {"type": "string", "minLength": 1, "description": "A short title in the imperative, e.g. \"Add a retry to the upload\"."},
    "description": {"type": "string", "description": "What has to be done and how to tell it is done."},
    "owner": {"type": "string", "description": "Who works on the task (an agent name); omit when nobody does yet."},
    "metadata": {"type": "object", "description": "Free-form key/value data to keep with the task."},
    "blocks": {"type": "array", "items": {"type": "string"}, "description": "Ids of existing tasks that cannot start before this one is completed."},
    "blocked_by": {"type": "array", "items": {"type": "string"}, "description": "Ids of existing tasks that must be completed before this one can start."}
  },
  "required": ["subject", "description"],
  "additionalProperties": false
}`)

var taskGetSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "task_id": {"type": "string", "description": "The task's id, as TaskList shows it (without the #)."}
  },
  "required": ["task_id"],
  "additionalProperties": false
}`)

var taskListSchema = json.RawMessage(`{"type": "object", "properties": {}, "additionalProperties": false}`)

var taskUpdateSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "task_id": {"type": "string", "description": "The id of the task to change."},
    "subject": {"type": "string", "minLength": 1, "description": "A new title."},
    "description": {"type": "string", "description": "A new description."},
    "status": {"type": "string", "enum": ["pending", "in_progress", "completed", "deleted"], "description": "The new status; \"deleted\" removes the task and every reference to it."},
    "owner": {"type": "string", "description": "The new owner; the empty string clears it."},
    "add_blocks": {"type": "array", "items": {"type": "string"}, "description": "Ids of tasks that cannot start before this one is completed."},
    "add_blocked_by": {"type": "array", "items": {"type": "string"}, "description": "Ids of tasks that must be completed before this one can start."},
    "metadata": {"type": "object", "description": "Keys to merge into the task's metadata; a null value deletes the key."}
  },
  "required": ["task_id"],
  "additionalProperties": false
}`)

// taskSpec is the Spec shared by the task tools: coordination (allowed in
// every mode) and state-injected (they work on the session's list).
func taskSpec(name, description string, schema json.RawMessage, readOnly bool) toolkit.Spec {
	output := oneTaskOutput
	if name == "TaskList" {
		output = taskListOutput
	}
	return toolkit.Spec{
		Name:         name,
		Description:  description,
		InputSchema:  schema,
		OutputSchema: output,
		// Reads may run beside each other; writes go one at a time so that
		// a TaskUpdate sees the effect of the TaskCreate before it.
		ConcurrencySafe: readOnly,
		ReadOnly:        readOnly,
		Coordination:    true,
		StateInjected:   true,
		Source:          toolkit.Source{Kind: toolkit.SourceBuiltin},
	}
}

// Spec implements toolkit.Tool.
func (*TaskCreate) Spec() toolkit.Spec {
	return taskSpec("TaskCreate",
		"Adds a task to the session's task list and returns it with its id. Use it to plan work of several steps "+
			"and to hand work to other agents. New tasks are pending; link them with blocks and blocked_by.",
		taskCreateSchema, false)
}

// Spec implements toolkit.Tool.
func (*TaskGet) Spec() toolkit.Spec {
	return taskSpec("TaskGet",
		"Returns one task of the session's task list in full: subject, description, status, owner, links and metadata.",
		taskGetSchema, true)
}

// Spec implements toolkit.Tool.
func (*TaskList) Spec() toolkit.Spec {
	return taskSpec("TaskList",
		"Lists the session's tasks, one line each: id, status, subject, owner and the unfinished tasks blocking it. "+
			"Use TaskGet for a task's description and metadata.",
		taskListSchema, true)
}

// Spec implements toolkit.Tool.
func (*TaskUpdate) Spec() toolkit.Spec {
	return taskSpec("TaskUpdate",
		"Changes a task of the session's task list: subject, description, status (pending, in_progress, completed, "+
			"or deleted to remove it), owner, metadata (merged; null deletes a key), and adds blocks/blocked_by links. "+
			"Mark a task in_progress when you start it and completed as soon as it is done.",
		taskUpdateSchema, false)
}

// CheckPermissions implements toolkit.Tool: the task list is the session's
// own state, so every call is allowed.
func (*TaskCreate) CheckPermissions(context.Context, toolkit.Input, *permission.Context) (permission.Decision, error) {
	return permission.AllowDecision("the task list is session state"), nil
}

// CheckPermissions implements toolkit.Tool: reading the task list is always allowed.
func (*TaskGet) CheckPermissions(context.Context, toolkit.Input, *permission.Context) (permission.Decision, error) {
	return permission.AllowDecision("the task list is session state"), nil
}

// CheckPermissions implements toolkit.Tool: reading the task list is always allowed.
func (*TaskList) CheckPermissions(context.Context, toolkit.Input, *permission.Context) (permission.Decision, error) {
	return permission.AllowDecision("the task list is session state"), nil
}

// CheckPermissions implements toolkit.Tool: the task list is the session's
// own state, so every call is allowed.
func (*TaskUpdate) CheckPermissions(context.Context, toolkit.Input, *permission.Context) (permission.Decision, error) {
	return permission.AllowDecision("the task list is session state"), nil
}

type taskCreateInput struct {
	Subject     string         `json:"subject"`
	Description string         `json:"description"`
	Owner       string         `json:"owner"`
	Metadata    map[string]any `json:"metadata"`
	Blocks      []string       `json:"blocks"`
	BlockedBy   []string       `json:"blocked_by"`
}

// Call implements toolkit.Caller: it creates the task, then adds the
// reverse links (blocked_by on the tasks it blocks, blocks on the tasks
// blocking it) so both sides of every link agree.
func (*TaskCreate) Call(ctx context.Context, in toolkit.Input) toolkit.Stream {
	return func(yield func(*toolkit.Chunk, error) bool) {
		list, err := sessionTasks(ctx, "TaskCreate")
		if err != nil {
			yield(nil, err)
			return
		}
		var args taskCreateInput
		if err := in.Decode(&args); err != nil {
			yield(nil, fmt.Errorf("invalid TaskCreate arguments: %v", err))
			return
		}
		// Check every linked id before creating anything: a bad id must
		// leave the list as it was.
		blocks, err := taskCheckLinks(ctx, list, "", "blocks", args.Blocks)
		if err != nil {
			yield(nil, err)
			return
		}
		blockedBy, err := taskCheckLinks(ctx, list, "", "blocked_by", args.BlockedBy)
		if err != nil {
			yield(nil, err)
			return
		}
		if err := taskCheckNoContradiction(blocks, blockedBy); err != nil {
			yield(nil, err)
			return
		}
		meta := maps.Clone(args.Metadata)
		// A null value means "no such key", as in TaskUpdate.
		maps.DeleteFunc(meta, func(_ string, v any) bool { return v == nil })
		if len(meta) == 0 {
			meta = nil
		}
		t, err := list.Create(ctx, toolkit.Task{
			Subject:     args.Subject,
			Description: args.Description,
			Status:      toolkit.TaskPending,
			Owner:       args.Owner,
			Blocks:      blocks,
			BlockedBy:   blockedBy,
			Metadata:    meta,
		})
		if err != nil {
			yield(nil, fmt.Errorf("the task could not be created: %w. Call TaskCreate again", err))
			return
		}
		t, err = taskLinkBack(ctx, list, t, blocks, blockedBy)
		if err != nil {
			yield(nil, err)
			return
		}
		text := "Created task " + taskLine(t, nil)
		yield(taskChunk(text, map[string]any{"task": taskJSON(t)}), nil)
	}
}

// Call implements toolkit.Caller.
func (*TaskGet) Call(ctx context.Context, in toolkit.Input) toolkit.Stream {
	return func(yield func(*toolkit.Chunk, error) bool) {
		list, err := sessionTasks(ctx, "TaskGet")
		if err != nil {
			yield(nil, err)
			return
		}
		t, err := taskLookup(ctx, list, in.String("task_id"))
		if err != nil {
			yield(nil, err)
			return
		}
		yield(taskChunk(taskDetails(t), map[string]any{"task": taskJSON(t)}), nil)
	}
}

// Call implements toolkit.Caller. The text shows, for each task, only the
// blockers that are not completed yet (the tasks it still waits for); the
// metadata holds every task in full.
func (*TaskList) Call(ctx context.Context, _ toolkit.Input) toolkit.Stream {
	return func(yield func(*toolkit.Chunk, error) bool) {
		list, err := sessionTasks(ctx, "TaskList")
		if err != nil {
			yield(nil, err)
			return
		}
		tasks, err := list.List(ctx)
		if err != nil {
			yield(nil, fmt.Errorf("the task list could not be read: %w. Call TaskList again", err))
			return
		}
		all := make([]any, len(tasks))
		status := make(map[string]toolkit.TaskStatus, len(tasks))
		for i, t := range tasks {
			all[i] = taskJSON(t)
			status[t.ID] = t.Status
		}
		meta := map[string]any{"tasks": all}
		if len(tasks) == 0 {
			yield(taskChunk("No tasks.", meta), nil)
			return
		}
		var b strings.Builder
		for i, t := range tasks {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(taskLine(t, status))
		}
		yield(taskChunk(b.String(), meta), nil)
	}
}

type taskUpdateInput struct {
	TaskID       string         `json:"task_id"`
	Subject      *string        `json:"subject"`
	Description  *string        `json:"description"`
	Status       *string        `json:"status"`
	Owner        *string        `json:"owner"`
	AddBlocks    []string       `json:"add_blocks"`
	AddBlockedBy []string       `json:"add_blocked_by"`
	Metadata     map[string]any `json:"metadata"`
}

// Call implements toolkit.Caller. Every id is checked before anything is
// changed; links are added on both tasks; status "deleted" removes the task
// and every reference to it (the rest of the update is then moot).
func (*TaskUpdate) Call(ctx context.Context, in toolkit.Input) toolkit.Stream {
	return func(yield func(*toolkit.Chunk, error) bool) {
		list, err := sessionTasks(ctx, "TaskUpdate")
		if err != nil {
			yield(nil, err)
			return
		}
		var args taskUpdateInput
		if err := in.Decode(&args); err != nil {
			yield(nil, fmt.Errorf("invalid TaskUpdate arguments: %v", err))
			return
		}
		before, err := taskLookup(ctx, list, args.TaskID)
		if err != nil {
			yield(nil, err)
			return
		}
		id := before.ID

		if args.Status != nil && toolkit.TaskStatus(*args.Status) == toolkit.TaskDeleted {
			deleted, err := list.Update(ctx, id, func(t *toolkit.Task) error {
				t.Status = toolkit.TaskDeleted
				return nil
			})
			if err != nil {
				yield(nil, taskNotFound(id, err))
				return
			}
			yield(taskChunk(fmt.Sprintf("Deleted task #%s (%s); links to it were removed from other tasks.", id, before.Subject),
				map[string]any{"task": taskJSON(deleted), "deleted": true}), nil)
			return
		}

		if args.Status != nil {
			switch s := toolkit.TaskStatus(*args.Status); s {
			case toolkit.TaskPending, toolkit.TaskInProgress, toolkit.TaskCompleted:
			default:
				// The schema's enum stops this in the pipeline; a direct
				// call must not store a status nobody knows.
				yield(nil, fmt.Errorf("unknown status %q: use pending, in_progress, completed or deleted. Nothing was changed", s))
				return
			}
		}
		addBlocks, err := taskCheckLinks(ctx, list, id, "add_blocks", args.AddBlocks)
		if err != nil {
			yield(nil, err)
			return
		}
		addBlockedBy, err := taskCheckLinks(ctx, list, id, "add_blocked_by", args.AddBlockedBy)
		if err != nil {
			yield(nil, err)
			return
		}
		if err := taskCheckNoContradiction(
			taskUnion(before.Blocks, addBlocks), taskUnion(before.BlockedBy, addBlockedBy)); err != nil {
			yield(nil, err)
			return
		}

		after, err := list.Update(ctx, id, func(t *toolkit.Task) error {
			if args.Subject != nil {
				t.Subject = *args.Subject
			}
			if args.Description != nil {
				t.Description = *args.Description
			}
			if args.Status != nil {
				t.Status = toolkit.TaskStatus(*args.Status)
			}
			if args.Owner != nil {
				t.Owner = *args.Owner
			}
			t.Blocks = taskUnion(t.Blocks, addBlocks)
			t.BlockedBy = taskUnion(t.BlockedBy, addBlockedBy)
			for k, v := range args.Metadata {
				if v == nil {
					delete(t.Metadata, k)
					continue
				}
				if t.Metadata == nil {
					t.Metadata = map[string]any{}
				}
				t.Metadata[k] = v
			}
			if len(t.Metadata) == 0 {
				t.Metadata = nil
			}
			return nil
		})
		if err != nil {
			yield(nil, taskNotFound(id, err))
			return
		}
		after, err = taskLinkBack(ctx, list, after, addBlocks, addBlockedBy)
		if err != nil {
			yield(nil, err)
			return
		}
		changed := taskChanges(before, after)
		var text string
		if len(changed) == 0 {
			text = fmt.Sprintf("Task #%s is unchanged (the update asked for nothing new): %s", id, taskLine(after, nil))
		} else {
			text = fmt.Sprintf("Updated task #%s (%s): %s", id, strings.Join(changed, ", "), taskLine(after, nil))
		}
		yield(taskChunk(text, map[string]any{"task": taskJSON(after), "changed": changed}), nil)
	}
}

// sessionTasks returns the session's task list, or the error a call
// without a session ends with.
func sessionTasks(ctx context.Context, tool string) (toolkit.TaskList, error) {
	rt := toolkit.RuntimeFrom(ctx)
	if rt == nil || rt.Session == nil {
		return nil, fmt.Errorf("%s cannot run: the call has no session, so there is no task list. "+
			"The host must run task tools through a toolkit turn; go on without the task list", tool)
	}
	list := rt.Session.Tasks()
	if list == nil {
		return nil, fmt.Errorf("%s cannot run: this session has no task list; go on without it", tool)
	}
	return list, nil
}

// taskLookup returns a task, or an error naming the id and the way out.
func taskLookup(ctx context.Context, list toolkit.TaskList, id string) (toolkit.Task, error) {
	id = strings.TrimPrefix(strings.TrimSpace(id), "#")
	t, err := list.Get(ctx, id)
	if err != nil {
		return toolkit.Task{}, taskNotFound(id, err)
	}
	return t, nil
}

func taskNotFound(id string, err error) error {
	if errors.Is(err, toolkit.ErrNoTask) {
		return fmt.Errorf("task %q does not exist (it may have been deleted). Call TaskList to see the ids of the existing tasks", id)
	}
	return fmt.Errorf("task %q: %v", id, err)
}

// taskCheckLinks checks that every id of a links field names an existing
// task other than self, and returns the ids without duplicates (and
// without a leading #, which models copy from TaskList's output).
func taskCheckLinks(ctx context.Context, list toolkit.TaskList, self, field string, ids []string) ([]string, error) {
	var out []string
	for _, raw := range ids {
		id := strings.TrimPrefix(strings.TrimSpace(raw), "#")
		if self != "" && id == self {
			return nil, fmt.Errorf("%s: task #%s cannot be linked to itself. Nothing was changed", field, id)
		}
		if _, err := list.Get(ctx, id); err != nil {
			if errors.Is(err, toolkit.ErrNoTask) {
				return nil, fmt.Errorf("%s: task %q does not exist. Call TaskList to see the ids of the existing tasks. Nothing was changed", field, raw)
			}
			return nil, fmt.Errorf("%s: task %q: %v. Nothing was changed", field, raw, err)
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// taskCheckNoContradiction refuses a task that would both block and wait
// for the same task: neither could ever start.
func taskCheckNoContradiction(blocks, blockedBy []string) error {
	for _, id := range blocks {
		if slices.Contains(blockedBy, id) {
			return fmt.Errorf("task #%s would both block this task and be blocked by it, so neither could ever start. Nothing was changed", id)
		}
	}
	return nil
}

// taskLinkBack adds the reverse side of new links: t blocks b means b is
// blocked by t, and the other way round. The task list updates one task at
// a time, so a linked task deleted in between (by a concurrent call of the
// same session) cannot be linked: the link is then taken off t as well,
// keeping both sides consistent.
func taskLinkBack(ctx context.Context, list toolkit.TaskList, t toolkit.Task, blocks, blockedBy []string) (toolkit.Task, error) {
	var gone []string
	for _, other := range blocks {
		if _, err := list.Update(ctx, other, func(o *toolkit.Task) error {
			o.BlockedBy = taskUnion(o.BlockedBy, []string{t.ID})
			return nil
		}); err != nil {
			gone = append(gone, other)
		}
	}
	for _, other := range blockedBy {
		if _, err := list.Update(ctx, other, func(o *toolkit.Task) error {
			o.Blocks = taskUnion(o.Blocks, []string{t.ID})
			return nil
		}); err != nil {
			gone = append(gone, other)
		}
	}
	if len(gone) == 0 {
		return t, nil
	}
	fixed, err := list.Update(ctx, t.ID, func(self *toolkit.Task) error {
		drop := func(s string) bool { return slices.Contains(gone, s) }
		self.Blocks = slices.DeleteFunc(self.Blocks, drop)
		self.BlockedBy = slices.DeleteFunc(self.BlockedBy, drop)
		return nil
	})
	if err != nil {
		return t, taskNotFound(t.ID, err)
	}
	t = fixed
	return t, fmt.Errorf("task #%s was saved, but task(s) %s were deleted meanwhile and could not be linked. Call TaskList to see the current tasks",
		t.ID, strings.Join(gone, ", "))
}

// taskUnion appends the ids of add that a lacks.
func taskUnion(a, add []string) []string {
	out := slices.Clone(a)
	for _, id := range add {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// taskChanges names the fields that differ between two versions of a task.
func taskChanges(a, b toolkit.Task) []string {
	changed := []string{}
	if a.Subject != b.Subject {
		changed = append(changed, "subject")
	}
	if a.Description != b.Description {
		changed = append(changed, "description")
	}
	if a.Status != b.Status {
		changed = append(changed, fmt.Sprintf("status %s → %s", a.Status, b.Status))
	}
	if a.Owner != b.Owner {
		changed = append(changed, "owner")
	}
	if !slices.Equal(a.Blocks, b.Blocks) {
		changed = append(changed, "blocks")
	}
	if !slices.Equal(a.BlockedBy, b.BlockedBy) {
		changed = append(changed, "blocked_by")
	}
	am, _ := json.Marshal(a.Metadata)
	bm, _ := json.Marshal(b.Metadata)
	if !bytes.Equal(am, bm) {
		changed = append(changed, "metadata")
	}
	return changed
}

// taskLine is the one-line form of a task: "#3 [in_progress] Subject
// (owner: x) (blocked by #1, #2)". With status (the statuses of every task
// by id) only blockers not completed yet are shown; without it, all.
func taskLine(t toolkit.Task, status map[string]toolkit.TaskStatus) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%s [%s] %s", t.ID, t.Status, t.Subject)
	if t.Owner != "" {
		fmt.Fprintf(&b, " (owner: %s)", t.Owner)
	}
	var open []string
	for _, id := range t.BlockedBy {
		if status == nil || status[id] != toolkit.TaskCompleted {
			open = append(open, "#"+id)
		}
	}
	if len(open) > 0 {
		fmt.Fprintf(&b, " (blocked by %s)", strings.Join(open, ", "))
	}
	return b.String()
}

// taskDetails is the full text form of a task, for TaskGet.
func taskDetails(t toolkit.Task) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Task #%s: %s\nStatus: %s\n", t.ID, t.Subject, t.Status)
	if t.Owner != "" {
		fmt.Fprintf(&b, "Owner: %s\n", t.Owner)
	}
	if len(t.Blocks) > 0 {
		fmt.Fprintf(&b, "Blocks: %s\n", taskRefs(t.Blocks))
	}
	if len(t.BlockedBy) > 0 {
		fmt.Fprintf(&b, "Blocked by: %s\n", taskRefs(t.BlockedBy))
	}
	fmt.Fprintf(&b, "Created: %s\n", t.CreatedAt.UTC().Format(time.RFC3339))
	if len(t.Metadata) > 0 {
		m, _ := json.Marshal(t.Metadata)
		fmt.Fprintf(&b, "Metadata: %s\n", m)
	}
	fmt.Fprintf(&b, "Description:\n%s", t.Description)
	return b.String()
}

func taskRefs(ids []string) string {
	refs := make([]string, len(ids))
	for i, id := range ids {
		refs[i] = "#" + id
	}
	return strings.Join(refs, ", ")
}

// taskJSON is a task as plain JSON values (what a client reading the
// metadata over the wire sees), so in-process callers see the same shape.
func taskJSON(t toolkit.Task) map[string]any {
	raw, err := json.Marshal(t)
	if err != nil {
		// Metadata came from JSON input; failing to encode it again is a
		// bug, and the text still carries the task.
		return map[string]any{"id": t.ID, "error": err.Error()}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return map[string]any{"id": t.ID, "error": err.Error()}
	}
	// omitempty drops empty link lists; a client should not have to guess.
	if _, ok := m["blocks"]; !ok {
		m["blocks"] = []any{}
	}
	if _, ok := m["blocked_by"]; !ok {
		m["blocked_by"] = []any{}
	}
	return m
}

func taskChunk(text string, meta map[string]any) *toolkit.Chunk {
	return &toolkit.Chunk{
		Content:    []toolkit.Block{toolkit.TextBlock(text)},
		State:      toolkit.StateSuccess,
		Last:       true,
		Metadata:   meta,
		Structured: meta, // the same data, as the output schema describes it
	}
}

// taskSchema is the JSON Schema of one task as the task tools return it.
const taskSchema = `{"type": "object", "properties": {
    "id": {"type": "string"}, "subject": {"type": "string"}, "description": {"type": "string"},
    "status": {"type": "string", "enum": ["pending", "in_progress", "completed", "deleted"]},
    "owner": {"type": "string"}, "blocks": {"type": "array", "items": {"type": "string"}},
    "blocked_by": {"type": "array", "items": {"type": "string"}}, "metadata": {"type": "object"},
    "created_at": {"type": "string"}},
  "required": ["id", "subject", "status", "blocks", "blocked_by"]}`

// Output schemas of the task tools: one task (TaskCreate, TaskGet,
// TaskUpdate), or the list (TaskList).
var (
	oneTaskOutput = json.RawMessage(`{"type": "object", "properties": {"task": ` + taskSchema +
		`, "changed": {"type": "array", "items": {"type": "string"}}, "deleted": {"type": "boolean"}}, "required": ["task"]}`)
	taskListOutput = json.RawMessage(`{"type": "object", "properties": {"tasks": {"type": "array", "items": ` + taskSchema + `}}, "required": ["tasks"]}`)
)
