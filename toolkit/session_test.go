package toolkit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/permission"
)

func TestTaskList(t *testing.T) {
	store := NewMemoryStore()
	s, _ := store.Session(context.Background(), "s")
	tl := s.Tasks()
	a := tl.Create(Task{Subject: "a", Description: "first"})
	b := tl.Create(Task{Subject: "b", BlockedBy: []string{a.ID}})
	c := tl.Create(Task{Subject: "c", Status: TaskInProgress, Blocks: []string{b.ID}})
	if a.ID != "1" || b.ID != "2" || c.ID != "3" || a.Status != TaskPending || c.Status != TaskInProgress || a.CreatedAt.IsZero() {
		t.Fatalf("created %+v %+v %+v", a, b, c)
	}
	// Returned tasks are copies.
	b.BlockedBy[0] = "zzz"
	if got, _ := tl.Get("2"); got.BlockedBy[0] != "1" {
		t.Fatal("Create returned a task sharing memory with the list")
	}
	up, err := tl.Update("2", func(t *Task) error {
		t.Status = TaskCompleted
		t.Metadata = map[string]any{"k": "v"}
		return nil
	})
	if err != nil || up.Status != TaskCompleted || up.Metadata["k"] != "v" {
		t.Fatalf("update %+v %v", up, err)
	}
	if _, err := tl.Update("2", func(*Task) error { return errors.New("nope") }); err == nil {
		t.Fatal("a failing change was stored")
	}
	if got, _ := tl.Get("2"); got.Status != TaskCompleted {
		t.Fatal("a failing change altered the task")
	}
	if _, err := tl.Update("1", func(t *Task) error { t.Status = TaskDeleted; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := tl.Get("1"); !errors.Is(err, ErrNoTask) {
		t.Fatalf("deleted task still there: %v", err)
	}
	if got, _ := tl.Get("2"); len(got.BlockedBy) != 0 {
		t.Fatalf("references to a deleted task remain: %+v", got)
	}
	d := tl.Create(Task{Subject: "d"})
	if d.ID != "4" {
		t.Fatalf("ids reused: %s", d.ID)
	}
	var ids []string
	for _, task := range tl.List() {
		ids = append(ids, task.ID)
	}
	if !slices.Equal(ids, []string{"2", "3", "4"}) {
		t.Fatalf("list order %v", ids)
	}
}

func TestReadCacheLRU(t *testing.T) {
	c := newMemoryReadCache(ReadCacheLimits{Files: 3, Bytes: 100})
	st := func(n int) FileStamp { return FileStamp{ModTime: time.Unix(int64(n), 0), Size: int64(n)} }
	for i := range 3 {
		c.Remember(fmt.Sprint(i), st(i), 10)
	}
	c.Lookup("0") // 0 is now the most recent; 1 is the oldest
	c.Remember("3", st(3), 10)
	if _, ok := c.Lookup("1"); ok {
		t.Error("the least recently used entry survived")
	}
	for _, p := range []string{"0", "2", "3"} {
		if _, ok := c.Lookup(p); !ok {
			t.Errorf("%s evicted", p)
		}
	}
	// The byte limit evicts too, but never the entry just added.
	c.Remember("big", st(9), 95)
	if got, ok := c.Lookup("big"); !ok || got != st(9) {
		t.Error("the newest entry was evicted")
	}
	if c.lru.Len() != 1 || c.bytes != 95 {
		t.Errorf("after a big entry: %d entries, %d bytes", c.lru.Len(), c.bytes)
	}
	c.Remember("big", st(10), 5) // update in place
	if got, _ := c.Lookup("big"); got != st(10) || c.bytes != 5 {
		t.Errorf("update: %+v, %d bytes", got, c.bytes)
	}
	c.Forget("big")
	if _, ok := c.Lookup("big"); ok || c.bytes != 0 {
		t.Error("Forget")
	}
}

func TestSessionGrantedRulesAndGroups(t *testing.T) {
	store := NewMemoryStore()
	s, _ := store.Session(context.Background(), "s")
	r := permission.Rule{Tool: "Bash", Content: "npm:*"}
	s.GrantRules(r, r)
	s.GrantRules(r)
	if got := s.GrantedRules(); len(got) != 1 {
		t.Fatalf("granted %v", got)
	}
	if _, set := s.ActiveGroups(); set {
		t.Fatal("a new session claims to have chosen groups")
	}
	s.SetActiveGroups([]string{"a"})
	if g, set := s.ActiveGroups(); !set || !slices.Equal(g, []string{"a"}) {
		t.Fatalf("groups %v %v", g, set)
	}
	store.Drop("s")
	s2, _ := store.Session(context.Background(), "s")
	if len(s2.GrantedRules()) != 0 {
		t.Fatal("Drop kept the session")
	}
}

func TestTaskListReplace(t *testing.T) {
	ids := func(tasks []Task) []string {
		var out []string
		for _, task := range tasks {
			out = append(out, task.ID+":"+task.Subject+":"+string(task.Status))
		}
		return out
	}
	tests := []struct {
		name    string
		change  func(current []Task) []Task
		want    []string // id:subject:status of the list after
		wantErr error    // errors.Is; nil with errText empty: success
		errText string
	}{
		{
			name: "reorder, keep, add and drop",
			change: func(cur []Task) []Task {
				cur[2].Status = TaskCompleted
				return []Task{cur[2], {Subject: "new"}, cur[0]}
			},
			want: []string{"3:c:completed", "4:new:pending", "1:a:pending"},
		},
		{
			name:   "deleted status drops the task",
			change: func(cur []Task) []Task { cur[1].Status = TaskDeleted; return cur },
			want:   []string{"1:a:pending", "3:c:in_progress"},
		},
		{
			name:   "empty list",
			change: func([]Task) []Task { return nil },
			want:   nil,
		},
		{
			name:    "unknown id",
			change:  func(cur []Task) []Task { return append(cur, Task{ID: "99", Subject: "x"}) },
			wantErr: ErrNoTask,
		},
		{
			name:    "id twice",
			change:  func(cur []Task) []Task { return append(cur, cur[0]) },
			errText: "twice",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := NewMemoryStore().Session(context.Background(), "s")
			tl := s.Tasks()
			a := tl.Create(Task{Subject: "a", Blocks: []string{"2"}})
			tl.Create(Task{Subject: "b", BlockedBy: []string{"1"}, Blocks: []string{"3"}})
			tl.Create(Task{Subject: "c", Status: TaskInProgress, BlockedBy: []string{"2"}})
			before := ids(tl.List())
			got, err := tl.Replace(func(cur []Task) ([]Task, error) { return tt.change(cur), nil })
			if tt.wantErr != nil || tt.errText != "" {
				if err == nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("err = %v, want %v %q", err, tt.wantErr, tt.errText)
				}
				if after := ids(tl.List()); !slices.Equal(after, before) {
					t.Errorf("a refused Replace changed the list: %v", after)
				}
				if d := tl.Create(Task{Subject: "d"}); d.ID != "4" {
					t.Errorf("a refused Replace used ids: next is %s", d.ID)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), tt.want) || !slices.Equal(ids(tl.List()), tt.want) {
				t.Errorf("returned %v, listed %v, want %v", ids(got), ids(tl.List()), tt.want)
			}
			// Links to removed tasks are gone; kept tasks keep their
			// creation time.
			for _, task := range tl.List() {
				for _, id := range append(slices.Clone(task.Blocks), task.BlockedBy...) {
					if _, err := tl.Get(id); err != nil {
						t.Errorf("task %s links to %s: %v", task.ID, id, err)
					}
				}
				if task.ID == "1" && !task.CreatedAt.Equal(a.CreatedAt) {
					t.Errorf("task 1 created at %v, was %v", task.CreatedAt, a.CreatedAt)
				}
				if task.CreatedAt.IsZero() {
					t.Errorf("task %s has no creation time", task.ID)
				}
			}
		})
	}

	// A change that fails leaves the list as it was.
	s, _ := NewMemoryStore().Session(context.Background(), "s")
	s.Tasks().Create(Task{Subject: "a"})
	if _, err := s.Tasks().Replace(func([]Task) ([]Task, error) { return nil, errors.New("no") }); err == nil {
		t.Fatal("a failing change was stored")
	}
	if len(s.Tasks().List()) != 1 {
		t.Error("a failing change altered the list")
	}
}
