package toolkit

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/wasmtools/wasmtools/permission"
)

// SessionStore gives the state of a session by id. The toolkit asks for a
// session's state once per call; tools reach it through the call's
// Runtime. MemoryStore is the in-process implementation; another store (a
// database, a cache) can back sessions by implementing this interface.
type SessionStore interface {
	// Session returns the state of session id, creating it when new.
	Session(ctx context.Context, id string) (SessionState, error)
}

// SessionDropper is a SessionStore that can forget a session.
// Toolkit.EndSession uses it.
type SessionDropper interface {
	Drop(id string)
}

// SessionState is one session's state. Implementations must be safe for
// concurrent use: parallel calls of one session share it.
type SessionState interface {
	// ID is the session id.
	ID() string

	// ActiveGroups returns the names of the active non-basic tool groups,
	// and whether they were ever set (false: the toolkit's defaults apply).
	ActiveGroups() (names []string, set bool)
	// SetActiveGroups replaces the set of active non-basic groups.
	SetActiveGroups(names []string)

	// GrantedRules are the allow rules the user granted in this session
	// while confirming calls.
	GrantedRules() []permission.Rule
	// GrantRules adds allow rules; rules already granted are not repeated.
	GrantRules(rules ...permission.Rule)

	// Tasks is the session's task list.
	Tasks() TaskList
	// ReadCache remembers which files the session has read, for the
	// read-before-write check of the file tools.
	ReadCache() ReadCache
}

// MemoryStore keeps sessions in memory. The zero value is not usable;
// call NewMemoryStore.
type MemoryStore struct {
	mu       sync.Mutex
	sessions map[string]*memorySession
	limits   ReadCacheLimits
}

// ReadCacheLimits bound a session's read cache. The defaults follow the
// reference: 100 files, 25 MB of content.
type ReadCacheLimits struct {
	Files int
	Bytes int64
}

// DefaultReadCacheLimits are the limits used when none are given.
var DefaultReadCacheLimits = ReadCacheLimits{Files: 100, Bytes: 25 << 20}

// NewMemoryStore returns an empty in-memory session store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{sessions: map[string]*memorySession{}, limits: DefaultReadCacheLimits}
}

// Session implements SessionStore.
func (m *MemoryStore) Session(_ context.Context, id string) (SessionState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		// One allocation: the task list and read cache are parts of the
		// session and make their maps at first use (a session that only
		// checks calls never does).
		s = &memorySession{id: id}
		s.tasks.next = 1
		s.cache.limits = m.limits
		m.sessions[id] = s
	}
	return s, nil
}

// Len reports how many sessions the store holds.
func (m *MemoryStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

// Drop forgets a session, for example when its MCP connection closes.
func (m *MemoryStore) Drop(id string) {
	m.mu.Lock()
	delete(m.sessions, id)
	m.mu.Unlock()
}

type memorySession struct {
	id string

	mu        sync.Mutex
	groups    []string
	groupsSet bool
	granted   []permission.Rule

	tasks memoryTasks
	cache memoryReadCache
}

func (s *memorySession) ID() string { return s.id }

func (s *memorySession) ActiveGroups() ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.groups), s.groupsSet
}

func (s *memorySession) SetActiveGroups(names []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.groups = slices.Clone(names)
	s.groupsSet = true
}

func (s *memorySession) GrantedRules() []permission.Rule {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.granted)
}

func (s *memorySession) GrantRules(rules ...permission.Rule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rules {
		if !slices.Contains(s.granted, r) {
			s.granted = append(s.granted, r)
		}
	}
}

func (s *memorySession) Tasks() TaskList      { return &s.tasks }
func (s *memorySession) ReadCache() ReadCache { return &s.cache }

// TaskStatus is the state of a task. "deleted" is accepted by updates
// only: it removes the task.
type TaskStatus string

// The task states.
const (
	TaskPending    TaskStatus = "pending"
	TaskInProgress TaskStatus = "in_progress"
	TaskCompleted  TaskStatus = "completed"
	TaskDeleted    TaskStatus = "deleted"
)

// Task is one entry of a session's task list.
type Task struct {
	ID          string         `json:"id"`
	Subject     string         `json:"subject"`
	Description string         `json:"description"`
	Status      TaskStatus     `json:"status"`
	Owner       string         `json:"owner,omitempty"`
	Blocks      []string       `json:"blocks,omitempty"`
	BlockedBy   []string       `json:"blocked_by,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	CreatedAt   time.Time      `json:"created_at"`
}

func (t Task) clone() Task {
	t.Blocks = slices.Clone(t.Blocks)
	t.BlockedBy = slices.Clone(t.BlockedBy)
	t.Metadata = maps.Clone(t.Metadata)
	return t
}

// ErrNoTask is returned for a task id that does not exist.
var ErrNoTask = errors.New("no such task")

// TaskList is a session's task list. Ids are increasing integers written
// as strings, never reused.
type TaskList interface {
	// Create adds a task; its ID, Status (when empty) and CreatedAt are set
	// by the list. It returns the stored task.
	Create(t Task) Task
	// Get returns a task or ErrNoTask.
	Get(id string) (Task, error)
	// List returns the tasks in creation order, or in the order the last
	// Replace gave them (tasks created since come after).
	List() []Task
	// Update applies change to a copy of the task and stores it when change
	// returns nil. A change that sets Status to TaskDeleted removes the
	// task and every reference to it from other tasks.
	Update(id string, change func(*Task) error) (Task, error)
	// Replace rewrites the whole list at once: change gets a copy of the
	// tasks (as List returns them) and returns the new list, in its order;
	// when change returns nil, that list is stored and returned, else the
	// list stays as it was. A task whose ID names an existing task replaces
	// it (its CreatedAt is kept); a task with an empty ID is new and gets
	// the next id, the Status pending when empty, and CreatedAt. Tasks left
	// out (or given the Status TaskDeleted) are removed with every
	// reference to them. An ID that names no task, or names one twice, is
	// an error (wrapping ErrNoTask for the former) and changes nothing.
	// The whole change is atomic with respect to the other methods: change
	// runs under the list's lock and must not call the list.
	Replace(change func([]Task) ([]Task, error)) ([]Task, error)
}

type memoryTasks struct {
	mu    sync.Mutex
	next  int
	order []string
	tasks map[string]Task
}

func (l *memoryTasks) Create(t Task) Task {
	l.mu.Lock()
	defer l.mu.Unlock()
	t.ID = strconv.Itoa(l.next)
	l.next++
	if t.Status == "" {
		t.Status = TaskPending
	}
	t.CreatedAt = time.Now().UTC()
	t = t.clone()
	if l.tasks == nil {
		l.tasks = map[string]Task{}
	}
	l.tasks[t.ID] = t
	l.order = append(l.order, t.ID)
	return t.clone()
}

func (l *memoryTasks) Get(id string) (Task, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.tasks[id]
	if !ok {
		return Task{}, fmt.Errorf("task %q: %w", id, ErrNoTask)
	}
	return t.clone(), nil
}

func (l *memoryTasks) List() []Task {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Task, 0, len(l.order))
	for _, id := range l.order {
		out = append(out, l.tasks[id].clone())
	}
	return out
}

func (l *memoryTasks) Update(id string, change func(*Task) error) (Task, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.tasks[id]
	if !ok {
		return Task{}, fmt.Errorf("task %q: %w", id, ErrNoTask)
	}
	t = t.clone()
	if err := change(&t); err != nil {
		return Task{}, err
	}
	t.ID = id
	if t.Status == TaskDeleted {
		delete(l.tasks, id)
		l.order = slices.DeleteFunc(l.order, func(s string) bool { return s == id })
		for k, other := range l.tasks {
			other.Blocks = slices.DeleteFunc(other.Blocks, func(s string) bool { return s == id })
			other.BlockedBy = slices.DeleteFunc(other.BlockedBy, func(s string) bool { return s == id })
			l.tasks[k] = other
		}
		return t, nil
	}
	l.tasks[id] = t
	return t.clone(), nil
}

func (l *memoryTasks) Replace(change func([]Task) ([]Task, error)) ([]Task, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	current := make([]Task, 0, len(l.order))
	for _, id := range l.order {
		current = append(current, l.tasks[id].clone())
	}
	next, err := change(current)
	if err != nil {
		return nil, err
	}
	// Check every id before assigning any, so a bad list changes nothing
	// (not even the id counter).
	seen := map[string]bool{}
	for _, t := range next {
		if t.ID == "" {
			continue
		}
		if _, ok := l.tasks[t.ID]; !ok {
			return nil, fmt.Errorf("task %q: %w", t.ID, ErrNoTask)
		}
		if seen[t.ID] {
			return nil, fmt.Errorf("task %q is in the new list twice", t.ID)
		}
		seen[t.ID] = true
	}
	now := time.Now().UTC()
	tasks := make(map[string]Task, len(next))
	order := make([]string, 0, len(next))
	for _, t := range next {
		if t.Status == TaskDeleted {
			continue
		}
		t = t.clone()
		if t.ID == "" {
			t.ID = strconv.Itoa(l.next)
			l.next++
			t.CreatedAt = now
		} else {
			t.CreatedAt = l.tasks[t.ID].CreatedAt
		}
		if t.Status == "" {
			t.Status = TaskPending
		}
		tasks[t.ID] = t
		order = append(order, t.ID)
	}
	// Links to tasks that are gone would dangle.
	gone := func(id string) bool { _, ok := tasks[id]; return !ok }
	for id, t := range tasks {
		t.Blocks = slices.DeleteFunc(t.Blocks, gone)
		t.BlockedBy = slices.DeleteFunc(t.BlockedBy, gone)
		tasks[id] = t
	}
	l.tasks, l.order = tasks, order
	out := make([]Task, 0, len(order))
	for _, id := range order {
		out = append(out, tasks[id].clone())
	}
	return out, nil
}

// FileStamp identifies one version of a file as a backend sees it.
type FileStamp struct {
	ModTime time.Time
	Size    int64
}

// ReadCache is the read-before-write memory of a session: which version of
// each file the session last read (or wrote itself).
type ReadCache interface {
	// Remember records that the session has seen this version of path;
	// contentBytes is what the entry costs against the cache's byte limit.
	Remember(path string, stamp FileStamp, contentBytes int64)
	// Lookup returns the remembered version of path.
	Lookup(path string) (FileStamp, bool)
	// Forget drops path.
	Forget(path string)
}

type memoryReadCache struct {
	mu     sync.Mutex
	limits ReadCacheLimits
	lru    list.List                // of *cacheEntry, front = most recent; the zero List is empty
	index  map[string]*list.Element // made at the first Remember
	bytes  int64
}

type cacheEntry struct {
	path  string
	stamp FileStamp
	size  int64
}

func newMemoryReadCache(l ReadCacheLimits) *memoryReadCache {
	return &memoryReadCache{limits: l}
}

func (c *memoryReadCache) Remember(path string, stamp FileStamp, contentBytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.index[path]; ok {
		ent := e.Value.(*cacheEntry)
		c.bytes += contentBytes - ent.size
		ent.stamp, ent.size = stamp, contentBytes
		c.lru.MoveToFront(e)
	} else {
		if c.index == nil {
			c.index = map[string]*list.Element{}
		}
		c.index[path] = c.lru.PushFront(&cacheEntry{path: path, stamp: stamp, size: contentBytes})
		c.bytes += contentBytes
	}
	// Evict the least recently used entries, but never the one just added.
	for c.lru.Len() > 1 && (c.lru.Len() > c.limits.Files || c.bytes > c.limits.Bytes) {
		c.remove(c.lru.Back())
	}
}

func (c *memoryReadCache) Lookup(path string) (FileStamp, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.index[path]
	if !ok {
		return FileStamp{}, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*cacheEntry).stamp, true
}

func (c *memoryReadCache) Forget(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.index[path]; ok {
		c.remove(e)
	}
}

func (c *memoryReadCache) remove(e *list.Element) {
	ent := c.lru.Remove(e).(*cacheEntry)
	delete(c.index, ent.path)
	c.bytes -= ent.size
}
