package toolkittest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// StoreFactory opens two clients of one fresh session store backend whose
// read caches keep to limits: a and b see the same sessions, as two
// replicas of a server would (an in-process store returns itself twice).
type StoreFactory func(t *testing.T, limits toolkit.ReadCacheLimits) (a, b toolkit.SessionStore)

// StoreContract checks that a toolkit.SessionStore behaves as the
// toolkit expects: the same table of behaviours runs against every store,
// so that a session means the same thing in memory and in a shared store.
// It includes concurrent updates of one session from both clients, which
// must lose nothing.
func StoreContract(t *testing.T, open StoreFactory) {
	t.Helper()
	limits := toolkit.ReadCacheLimits{Files: 3, Bytes: 100}
	tests := []struct {
		name string
		run  func(t *testing.T, ctx context.Context, a, b toolkit.SessionStore, id string)
	}{
		{"new session is empty", contractNewSession},
		{"groups", contractGroups},
		{"granted rules", contractGrants},
		{"tasks", contractTasks},
		{"task replace", contractTaskReplace},
		{"read cache", contractReadCache},
		{"parked turns", contractParked},
		{"sessions are separate", contractSeparate},
		{"drop", contractDrop},
		{"concurrent updates from two clients", contractConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := open(t, limits)
			ctx := context.Background()
			// Unique per test, so that a shared backend needs no flush.
			id := fmt.Sprintf("contract-%s-%d", strings.ReplaceAll(tt.name, " ", "-"), time.Now().UnixNano())
			tt.run(t, ctx, a, b, id)
		})
	}
}

func session(t *testing.T, ctx context.Context, st toolkit.SessionStore, id string) toolkit.SessionState {
	t.Helper()
	s, err := st.Session(ctx, id)
	if err != nil {
		t.Fatalf("Session(%q): %v", id, err)
	}
	if s.ID() != id {
		t.Fatalf("Session(%q).ID() = %q", id, s.ID())
	}
	return s
}

// must(f())(t) is f's value, or the end of test t when f failed.
func must[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func contractNewSession(t *testing.T, ctx context.Context, a, _ toolkit.SessionStore, id string) {
	s := session(t, ctx, a, id)
	if g, set, err := s.ActiveGroups(ctx); err != nil || set || len(g) != 0 {
		t.Errorf("ActiveGroups = %v %v %v, want none, unset", g, set, err)
	}
	if r, err := s.GrantedRules(ctx); err != nil || len(r) != 0 {
		t.Errorf("GrantedRules = %v %v", r, err)
	}
	if l, err := s.Tasks().List(ctx); err != nil || len(l) != 0 {
		t.Errorf("Tasks().List = %v %v", l, err)
	}
	if _, ok, err := s.ReadCache().Lookup(ctx, "/x"); err != nil || ok {
		t.Errorf("ReadCache().Lookup = %v %v", ok, err)
	}
	if _, ok, err := s.Parked().Claim(ctx, "tok"); err != nil || ok {
		t.Errorf("Parked().Claim = %v %v", ok, err)
	}
}

func contractGroups(t *testing.T, ctx context.Context, a, b toolkit.SessionStore, id string) {
	sa, sb := session(t, ctx, a, id), session(t, ctx, b, id)
	if err := sa.SetActiveGroups(ctx, []string{"x", "y"}); err != nil {
		t.Fatal(err)
	}
	if g, set, err := sb.ActiveGroups(ctx); err != nil || !set || !slices.Equal(g, []string{"x", "y"}) {
		t.Fatalf("other client sees %v %v %v", g, set, err)
	}
	if err := sb.UpdateActiveGroups(ctx, func(names []string, set bool) []string {
		if !set || !slices.Equal(names, []string{"x", "y"}) {
			t.Errorf("update given %v %v", names, set)
		}
		return append(names, "z")
	}); err != nil {
		t.Fatal(err)
	}
	if g, _, _ := sa.ActiveGroups(ctx); !slices.Equal(g, []string{"x", "y", "z"}) {
		t.Fatalf("after update %v", g)
	}
	// An empty set is a choice too: no group, not the defaults.
	if err := sa.SetActiveGroups(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if g, set, err := sb.ActiveGroups(ctx); err != nil || !set || len(g) != 0 {
		t.Fatalf("after clearing %v %v %v", g, set, err)
	}
}

func contractGrants(t *testing.T, ctx context.Context, a, b toolkit.SessionStore, id string) {
	sa, sb := session(t, ctx, a, id), session(t, ctx, b, id)
	r1 := permission.Rule{Tool: "Bash", Content: "npm:*"}
	r2 := permission.Rule{Tool: "Read"}
	if err := sa.GrantRules(ctx, r1, r1); err != nil {
		t.Fatal(err)
	}
	if err := sb.GrantRules(ctx, r1, r2); err != nil {
		t.Fatal(err)
	}
	for _, s := range []toolkit.SessionState{sa, sb} {
		if got := must(s.GrantedRules(ctx))(t); !slices.Equal(got, []permission.Rule{r1, r2}) {
			t.Errorf("granted %v, want %v", got, []permission.Rule{r1, r2})
		}
	}
}

func contractTasks(t *testing.T, ctx context.Context, a, b toolkit.SessionStore, id string) {
	tl, other := session(t, ctx, a, id).Tasks(), session(t, ctx, b, id).Tasks()
	ta := must(tl.Create(ctx, toolkit.Task{Subject: "a", Description: "first"}))(t)
	tb := must(other.Create(ctx, toolkit.Task{Subject: "b", BlockedBy: []string{ta.ID}}))(t)
	tc := must(tl.Create(ctx, toolkit.Task{Subject: "c", Status: toolkit.TaskInProgress, Blocks: []string{tb.ID}}))(t)
	if ta.ID != "1" || tb.ID != "2" || tc.ID != "3" || ta.Status != toolkit.TaskPending || tc.Status != toolkit.TaskInProgress || ta.CreatedAt.IsZero() {
		t.Fatalf("created %+v %+v %+v", ta, tb, tc)
	}
	// Returned tasks are copies.
	tb.BlockedBy[0] = "zzz"
	if got := must(tl.Get(ctx, "2"))(t); got.BlockedBy[0] != "1" {
		t.Fatal("Create returned a task sharing memory with the list")
	}
	up, err := other.Update(ctx, "2", func(t *toolkit.Task) error {
		t.Status = toolkit.TaskCompleted
		t.Metadata = map[string]any{"k": "v"}
		return nil
	})
	if err != nil || up.Status != toolkit.TaskCompleted || up.Metadata["k"] != "v" {
		t.Fatalf("update %+v %v", up, err)
	}
	if _, err := tl.Update(ctx, "2", func(*toolkit.Task) error { return errors.New("nope") }); err == nil {
		t.Fatal("a failing change was stored")
	}
	if got := must(tl.Get(ctx, "2"))(t); got.Status != toolkit.TaskCompleted || got.Metadata["k"] != "v" {
		t.Fatalf("a failing change altered the task, or the other client's update is lost: %+v", got)
	}
	if _, err := tl.Update(ctx, "9", func(*toolkit.Task) error { return nil }); !errors.Is(err, toolkit.ErrNoTask) {
		t.Fatalf("update of a missing task: %v", err)
	}
	if _, err := tl.Update(ctx, "1", func(t *toolkit.Task) error { t.Status = toolkit.TaskDeleted; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Get(ctx, "1"); !errors.Is(err, toolkit.ErrNoTask) {
		t.Fatalf("deleted task still there: %v", err)
	}
	if got := must(other.Get(ctx, "2"))(t); len(got.BlockedBy) != 0 {
		t.Fatalf("references to a deleted task remain: %+v", got)
	}
	if d := must(other.Create(ctx, toolkit.Task{Subject: "d"}))(t); d.ID != "4" {
		t.Fatalf("ids reused: %s", d.ID)
	}
	if ids := taskIDs(must(tl.List(ctx))(t)); !slices.Equal(ids, []string{"2:b:completed", "3:c:in_progress", "4:d:pending"}) {
		t.Fatalf("list %v", ids)
	}
}

func taskIDs(tasks []toolkit.Task) []string {
	var out []string
	for _, task := range tasks {
		out = append(out, task.ID+":"+task.Subject+":"+string(task.Status))
	}
	return out
}

func contractTaskReplace(t *testing.T, ctx context.Context, a, b toolkit.SessionStore, id string) {
	tests := []struct {
		name    string
		change  func(current []toolkit.Task) []toolkit.Task
		want    []string // id:subject:status of the list after
		wantErr error    // errors.Is; nil with errText empty: success
		errText string
	}{
		{
			name: "reorder, keep, add and drop",
			change: func(cur []toolkit.Task) []toolkit.Task {
				cur[2].Status = toolkit.TaskCompleted
				return []toolkit.Task{cur[2], {Subject: "new"}, cur[0]}
			},
			want: []string{"3:c:completed", "4:new:pending", "1:a:pending"},
		},
		{
			name:   "deleted status drops the task",
			change: func(cur []toolkit.Task) []toolkit.Task { cur[1].Status = toolkit.TaskDeleted; return cur },
			want:   []string{"1:a:pending", "3:c:in_progress"},
		},
		{
			name:   "empty list",
			change: func([]toolkit.Task) []toolkit.Task { return nil },
			want:   nil,
		},
		{
			name:    "unknown id",
			change:  func(cur []toolkit.Task) []toolkit.Task { return append(cur, toolkit.Task{ID: "99", Subject: "x"}) },
			wantErr: toolkit.ErrNoTask,
		},
		{
			name:    "id twice",
			change:  func(cur []toolkit.Task) []toolkit.Task { return append(cur, cur[0]) },
			errText: "twice",
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sid := fmt.Sprintf("%s-%d", id, i)
			tl, other := session(t, ctx, a, sid).Tasks(), session(t, ctx, b, sid).Tasks()
			first := must(tl.Create(ctx, toolkit.Task{Subject: "a", Blocks: []string{"2"}}))(t)
			must(tl.Create(ctx, toolkit.Task{Subject: "b", BlockedBy: []string{"1"}, Blocks: []string{"3"}}))(t)
			must(tl.Create(ctx, toolkit.Task{Subject: "c", Status: toolkit.TaskInProgress, BlockedBy: []string{"2"}}))(t)
			before := taskIDs(must(tl.List(ctx))(t))
			got, err := other.Replace(ctx, func(cur []toolkit.Task) ([]toolkit.Task, error) { return tt.change(cur), nil })
			if tt.wantErr != nil || tt.errText != "" {
				if err == nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("err = %v, want %v %q", err, tt.wantErr, tt.errText)
				}
				if after := taskIDs(must(tl.List(ctx))(t)); !slices.Equal(after, before) {
					t.Errorf("a refused Replace changed the list: %v", after)
				}
				if d := must(tl.Create(ctx, toolkit.Task{Subject: "d"}))(t); d.ID != "4" {
					t.Errorf("a refused Replace used ids: next is %s", d.ID)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			listed := taskIDs(must(tl.List(ctx))(t))
			if !slices.Equal(taskIDs(got), tt.want) || !slices.Equal(listed, tt.want) {
				t.Errorf("returned %v, listed %v, want %v", taskIDs(got), listed, tt.want)
			}
			// Links to removed tasks are gone; kept tasks keep their
			// creation time.
			for _, task := range must(tl.List(ctx))(t) {
				for _, link := range append(slices.Clone(task.Blocks), task.BlockedBy...) {
					if _, err := tl.Get(ctx, link); err != nil {
						t.Errorf("task %s links to %s: %v", task.ID, link, err)
					}
				}
				if task.ID == "1" && !task.CreatedAt.Equal(first.CreatedAt) {
					t.Errorf("task 1 created at %v, was %v", task.CreatedAt, first.CreatedAt)
				}
				if task.CreatedAt.IsZero() {
					t.Errorf("task %s has no creation time", task.ID)
				}
			}
		})
	}
	// A change that fails leaves the list as it was.
	tl := session(t, ctx, a, id+"-fail").Tasks()
	must(tl.Create(ctx, toolkit.Task{Subject: "a"}))(t)
	if _, err := tl.Replace(ctx, func([]toolkit.Task) ([]toolkit.Task, error) { return nil, errors.New("no") }); err == nil {
		t.Fatal("a failing change was stored")
	}
	if l := must(tl.List(ctx))(t); len(l) != 1 {
		t.Error("a failing change altered the list")
	}
}

// contractReadCache runs with limits of 3 files and 100 bytes.
func contractReadCache(t *testing.T, ctx context.Context, a, b toolkit.SessionStore, id string) {
	c, other := session(t, ctx, a, id).ReadCache(), session(t, ctx, b, id).ReadCache()
	st := func(n int) toolkit.FileStamp {
		return toolkit.FileStamp{ModTime: time.Unix(int64(n), 123456789).UTC(), Size: int64(n)}
	}
	lookup := func(c toolkit.ReadCache, p string) (toolkit.FileStamp, bool) {
		t.Helper()
		s, ok, err := c.Lookup(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return s, ok
	}
	remember := func(c toolkit.ReadCache, p string, s toolkit.FileStamp, n int64) {
		t.Helper()
		if err := c.Remember(ctx, p, s, n); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		remember(c, fmt.Sprint(i), st(i), 10)
	}
	if got, ok := lookup(other, "0"); !ok || !got.ModTime.Equal(st(0).ModTime) || got.Size != 0 {
		t.Fatalf("other client: %+v %v", got, ok)
	} // 0 is now the most recent; 1 is the oldest
	remember(c, "3", st(3), 10)
	if _, ok := lookup(c, "1"); ok {
		t.Error("the least recently used entry survived")
	}
	for _, p := range []string{"0", "2", "3"} {
		if _, ok := lookup(other, p); !ok {
			t.Errorf("%s evicted", p)
		}
	}
	// The byte limit evicts too, but never the entry just added.
	remember(other, "big", st(9), 95)
	if got, ok := lookup(c, "big"); !ok || !got.ModTime.Equal(st(9).ModTime) || got.Size != 9 {
		t.Error("the newest entry was evicted")
	}
	for _, p := range []string{"0", "2", "3"} {
		if _, ok := lookup(c, p); ok {
			t.Errorf("%s kept past the byte limit", p)
		}
	}
	remember(c, "big", st(10), 5) // update in place
	remember(c, "small", st(1), 90)
	if got, ok := lookup(c, "big"); !ok || got.Size != 10 {
		t.Errorf("update in place: %+v %v (the byte count must follow the update)", got, ok)
	}
	if err := other.Forget(ctx, "big"); err != nil {
		t.Fatal(err)
	}
	if _, ok := lookup(c, "big"); ok {
		t.Error("Forget")
	}
	remember(c, "after", st(2), 10) // 90 + 10 fits once "big" is forgotten
	if _, ok := lookup(c, "small"); !ok {
		t.Error("Forget left its bytes counted")
	}
}

func contractParked(t *testing.T, ctx context.Context, a, b toolkit.SessionStore, id string) {
	pa, pb := session(t, ctx, a, id).Parked(), session(t, ctx, b, id).Parked()
	if err := pa.Park(ctx, "t1", []byte(`{"turn":1}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := pa.Park(ctx, "t2", []byte(`{"turn":2}`), 0); err != nil {
		t.Fatal(err)
	}
	got, ok, err := pb.Claim(ctx, "t1")
	if err != nil || !ok || string(got) != `{"turn":1}` {
		t.Fatalf("claim from the other client: %q %v %v", got, ok, err)
	}
	if _, ok, _ := pa.Claim(ctx, "t1"); ok {
		t.Fatal("a parked turn was claimed twice")
	}
	if got, ok, _ := pa.Claim(ctx, "t2"); !ok || string(got) != `{"turn":2}` {
		t.Fatalf("claim t2: %q %v", got, ok)
	}
	if err := pa.Park(ctx, "t3", []byte("x"), time.Millisecond); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if _, ok, _ := pb.Claim(ctx, "t3"); ok {
		t.Fatal("an expired parked turn was claimed")
	}
	// Many claimers at once: exactly one wins.
	if err := pa.Park(ctx, "race", []byte("r"), time.Minute); err != nil {
		t.Fatal(err)
	}
	var wins sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range 8 {
		p := pa
		if i%2 == 1 {
			p = pb
		}
		wins.Add(1)
		go func() {
			defer wins.Done()
			if _, ok, err := p.Claim(ctx, "race"); err == nil && ok {
				mu.Lock()
				won++
				mu.Unlock()
			}
		}()
	}
	wins.Wait()
	if won != 1 {
		t.Fatalf("%d claimers won one parked turn", won)
	}
}

func contractSeparate(t *testing.T, ctx context.Context, a, b toolkit.SessionStore, id string) {
	s1, s2 := session(t, ctx, a, id+"-1"), session(t, ctx, b, id+"-2")
	if err := s1.SetActiveGroups(ctx, []string{"g"}); err != nil {
		t.Fatal(err)
	}
	if err := s1.GrantRules(ctx, permission.Rule{Tool: "Read"}); err != nil {
		t.Fatal(err)
	}
	must(s1.Tasks().Create(ctx, toolkit.Task{Subject: "a"}))(t)
	if err := s1.ReadCache().Remember(ctx, "/f", toolkit.FileStamp{Size: 1}, 1); err != nil {
		t.Fatal(err)
	}
	if err := s1.Parked().Park(ctx, "tok", []byte("x"), time.Minute); err != nil {
		t.Fatal(err)
	}
	contractNewSession(t, ctx, b, a, s2.ID())
}

func contractDrop(t *testing.T, ctx context.Context, a, b toolkit.SessionStore, id string) {
	d, ok := a.(toolkit.SessionDropper)
	if !ok {
		t.Skip("the store cannot drop sessions")
	}
	s := session(t, ctx, a, id)
	if err := s.SetActiveGroups(ctx, []string{"g"}); err != nil {
		t.Fatal(err)
	}
	if err := s.GrantRules(ctx, permission.Rule{Tool: "Read"}); err != nil {
		t.Fatal(err)
	}
	must(s.Tasks().Create(ctx, toolkit.Task{Subject: "a"}))(t)
	if err := s.ReadCache().Remember(ctx, "/f", toolkit.FileStamp{Size: 1}, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Parked().Park(ctx, "tok", []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	if err := d.Drop(ctx, id); err != nil {
		t.Fatal(err)
	}
	contractNewSession(t, ctx, b, a, id)
}

// contractConcurrent hammers one session from both clients at once:
// every task created, every rule granted, every group activated and
// every task update must be there at the end.
func contractConcurrent(t *testing.T, ctx context.Context, a, b toolkit.SessionStore, id string) {
	const workers, each = 4, 25
	counter := must(session(t, ctx, a, id).Tasks().Create(ctx, toolkit.Task{Subject: "counter", Metadata: map[string]any{"n": float64(0)}}))(t)
	var wg sync.WaitGroup
	errs := make(chan error, workers*each*4)
	for w := range workers {
		st := a
		if w%2 == 1 {
			st = b
		}
		s := session(t, ctx, st, id)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := s.Tasks().Create(ctx, toolkit.Task{Subject: fmt.Sprintf("w%d-%d", w, i)}); err != nil {
					errs <- err
				}
				if _, err := s.Tasks().Update(ctx, counter.ID, func(t *toolkit.Task) error {
					t.Metadata["n"] = t.Metadata["n"].(float64) + 1
					return nil
				}); err != nil {
					errs <- err
				}
				if err := s.GrantRules(ctx, permission.Rule{Tool: "Bash", Content: fmt.Sprintf("w%d-%d:*", w, i)}); err != nil {
					errs <- err
				}
				group := fmt.Sprintf("g%d-%d", w, i)
				if err := s.UpdateActiveGroups(ctx, func(names []string, _ bool) []string { return append(names, group) }); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s := session(t, ctx, b, id)
	tasks := must(s.Tasks().List(ctx))(t)
	if len(tasks) != 1+workers*each {
		t.Errorf("%d tasks, want %d", len(tasks), 1+workers*each)
	}
	ids := map[string]bool{}
	for _, task := range tasks {
		if ids[task.ID] {
			t.Errorf("task id %s given twice", task.ID)
		}
		ids[task.ID] = true
	}
	if got := must(s.Tasks().Get(ctx, counter.ID))(t); got.Metadata["n"] != float64(workers*each) {
		t.Errorf("counter = %v, want %d: updates were lost", got.Metadata["n"], workers*each)
	}
	if got := must(s.GrantedRules(ctx))(t); len(got) != workers*each {
		t.Errorf("%d rules granted, want %d", len(got), workers*each)
	}
	if got, _, err := s.ActiveGroups(ctx); err != nil || len(got) != workers*each {
		t.Errorf("%d groups active (%v), want %d", len(got), err, workers*each)
	}
}
