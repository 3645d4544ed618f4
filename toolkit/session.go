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
// database, a cache shared by several replicas) can back sessions by
// implementing this interface. Run StoreContract (toolkittest) against it.
type SessionStore interface {
	// Session returns the state of session id, creating it when new. A
	// store that expires idle sessions counts this as a use.
	Session(ctx context.Context, id string) (SessionState, error)
}

// SessionDropper is a SessionStore that can forget a session.
// Toolkit.EndSession uses it.
type SessionDropper interface {
	Drop(ctx context.Context, id string) error
}

// SessionState is one session's state. Implementations must be safe for
// concurrent use: parallel calls of one session share it, and with a
// shared store so do calls of the same session in other processes. Every
// method takes the call's context and may fail (a network store): a
// caller passes the error on, it never takes a failed read for "empty".
type SessionState interface {
	// ID is the session id.
	ID() string

	// ActiveGroups returns the names of the active non-basic tool groups,
	// and whether they were ever set (false: the toolkit's defaults apply).
	ActiveGroups(ctx context.Context) (names []string, set bool, err error)
	// SetActiveGroups replaces the set of active non-basic groups.
	SetActiveGroups(ctx context.Context, names []string) error
	// UpdateActiveGroups replaces the set of active groups by what change
	// returns, given the current one, atomically: an update made
	// meanwhile (by another process) is never lost. change may be called
	// more than once and must not call the session.
	UpdateActiveGroups(ctx context.Context, change func(names []string, set bool) []string) error

	// GrantedRules are the allow rules the user granted in this session
	// while confirming calls.
	GrantedRules(ctx context.Context) ([]permission.Rule, error)
	// GrantRules adds allow rules; rules already granted are not repeated.
	GrantRules(ctx context.Context, rules ...permission.Rule) error

	// Tasks is the session's task list.
	Tasks() TaskList
	// ReadCache remembers which files the session has read, for the
	// read-before-write check of the file tools.
	ReadCache() ReadCache
	// Parked holds the session's turns waiting for an answer.
	Parked() ParkedTurns
}

// ParkedTurns keeps the records of a session's turns that wait for an
// answer (a confirmation, a user's reply): opaque bytes, usually a JSON
// TurnSnapshot with what the turn awaits, under a token the client
// presents with its answer. Claim hands a record out once: two processes
// that receive the same answer cannot both resume the turn.
type ParkedTurns interface {
	// Park stores record under token for ttl (0: as long as the session).
	Park(ctx context.Context, token string, record []byte, ttl time.Duration) error
	// Claim removes and returns the record of token; ok is false when
	// there is none (never parked, claimed already, or expired).
	Claim(ctx context.Context, token string) (record []byte, ok bool, err error)
}

// MemoryStore keeps sessions in memory. The zero value is not usable;
// call NewMemoryStore.
type MemoryStore struct {
	mu sync.Mutex
	// first is the first session made, outside the map: a store mostly
	// serves one session, and the map is then never made nor read (on a
	// new toolkit, each of its parts would be a cache miss).
	first    *memorySession
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
func NewMemoryStore() *MemoryStore { return NewMemoryStoreLimits(DefaultReadCacheLimits) }

// NewMemoryStoreLimits returns an empty in-memory session store whose
// sessions' read caches keep to limits.
func NewMemoryStoreLimits(limits ReadCacheLimits) *MemoryStore {
	return &MemoryStore{limits: limits}
}

// Session implements SessionStore.
func (m *MemoryStore) Session(_ context.Context, id string) (SessionState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.first != nil && m.first.id == id {
		return m.first, nil
	}
	s, ok := m.sessions[id]
	if !ok {
		s = &memorySession{id: id, limits: &m.limits}
		switch {
		case m.first == nil:
			m.first = s
		case m.sessions == nil:
			m.sessions = map[string]*memorySession{id: s}
		default:
			m.sessions[id] = s
		}
	}
	return s, nil
}

// Len reports how many sessions the store holds.
func (m *MemoryStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.sessions)
	if m.first != nil {
		n++
	}
	return n
}

// Drop forgets a session, for example when its MCP connection closes.
func (m *MemoryStore) Drop(_ context.Context, id string) error {
	m.mu.Lock()
	if m.first != nil && m.first.id == id {
		m.first = nil
	} else {
		delete(m.sessions, id)
	}
	m.mu.Unlock()
	return nil
}

type memorySession struct {
	id string

	mu        sync.Mutex
	groups    []string
	groupsSet bool
	granted   []permission.Rule

	// The parts are made on first use: most sessions that only check
	// calls never touch them. limits are the store's, pointed to rather
	// than copied: a session then takes 112 bytes, not 128.
	limits *ReadCacheLimits
	tasks  *memoryTasks
	cache  *memoryReadCache
	parked *memoryParked
}

func (s *memorySession) ID() string { return s.id }

func (s *memorySession) ActiveGroups(context.Context) ([]string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.groups), s.groupsSet, nil
}

func (s *memorySession) SetActiveGroups(_ context.Context, names []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.groups = slices.Clone(names)
	s.groupsSet = true
	return nil
}

func (s *memorySession) UpdateActiveGroups(_ context.Context, change func([]string, bool) []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.groups = slices.Clone(change(slices.Clone(s.groups), s.groupsSet))
	s.groupsSet = true
	return nil
}

func (s *memorySession) GrantedRules(context.Context) ([]permission.Rule, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.granted), nil
}

func (s *memorySession) GrantRules(_ context.Context, rules ...permission.Rule) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.granted = MergeRules(s.granted, rules...)
	return nil
}

// MergeRules appends to granted the rules it does not hold yet, in order.
// Stores use it so that GrantRules behaves the same everywhere.
func MergeRules(granted []permission.Rule, rules ...permission.Rule) []permission.Rule {
	for _, r := range rules {
		if !slices.Contains(granted, r) {
			granted = append(granted, r)
		}
	}
	return granted
}

func (s *memorySession) Tasks() TaskList {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tasks == nil {
		s.tasks = &memoryTasks{data: NewTaskListData()}
	}
	return s.tasks
}

func (s *memorySession) ReadCache() ReadCache {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil {
		s.cache = newMemoryReadCache(*s.limits)
	}
	return s.cache
}

func (s *memorySession) Parked() ParkedTurns {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.parked == nil {
		s.parked = &memoryParked{}
	}
	return s.parked
}

// memoryParked is ParkedTurns in memory; expired records are swept when
// a record is parked.
type memoryParked struct {
	mu      sync.Mutex
	records map[string]parkedRecord
}

type parkedRecord struct {
	data    []byte
	expires time.Time // zero: never
}

func (p *memoryParked) Park(_ context.Context, token string, record []byte, ttl time.Duration) error {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.records == nil {
		p.records = map[string]parkedRecord{}
	}
	for k, r := range p.records {
		if !r.expires.IsZero() && now.After(r.expires) {
			delete(p.records, k)
		}
	}
	r := parkedRecord{data: slices.Clone(record)}
	if ttl > 0 {
		r.expires = now.Add(ttl)
	}
	p.records[token] = r
	return nil
}

func (p *memoryParked) Claim(_ context.Context, token string) ([]byte, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.records[token]
	if !ok {
		return nil, false, nil
	}
	delete(p.records, token)
	if !r.expires.IsZero() && time.Now().After(r.expires) {
		return nil, false, nil
	}
	return r.data, true, nil
}

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
	Create(ctx context.Context, t Task) (Task, error)
	// Get returns a task or ErrNoTask.
	Get(ctx context.Context, id string) (Task, error)
	// List returns the tasks in creation order, or in the order the last
	// Replace gave them (tasks created since come after).
	List(ctx context.Context) ([]Task, error)
	// Update applies change to a copy of the task and stores it when change
	// returns nil. A change that sets Status to TaskDeleted removes the
	// task and every reference to it from other tasks. change may be
	// called more than once (a shared store retries when another process
	// changed the list meanwhile) and must not call the list.
	Update(ctx context.Context, id string, change func(*Task) error) (Task, error)
	// Replace rewrites the whole list at once: change gets a copy of the
	// tasks (as List returns them) and returns the new list, in its order;
	// when change returns nil, that list is stored and returned, else the
	// list stays as it was. A task whose ID names an existing task replaces
	// it (its CreatedAt is kept); a task with an empty ID is new and gets
	// the next id, the Status pending when empty, and CreatedAt. Tasks left
	// out (or given the Status TaskDeleted) are removed with every
	// reference to them. An ID that names no task, or names one twice, is
	// an error (wrapping ErrNoTask for the former) and changes nothing.
	// The whole change is atomic with respect to the other methods; change
	// may be called more than once and must not call the list.
	Replace(ctx context.Context, change func([]Task) ([]Task, error)) ([]Task, error)
}

// TaskListData is the content of a task list as plain data (it encodes
// with encoding/json), with the operations of TaskList on it. Stores
// keep one per session and apply these operations under their own
// concurrency control (a lock, an optimistic transaction), so that every
// store gives tasks the same meaning. The methods are not safe for
// concurrent use.
type TaskListData struct {
	// Next is the number the next new task gets as its id.
	Next int `json:"next"`
	// Order lists the task ids in list order.
	Order []string `json:"order"`
	// Tasks are the tasks by id.
	Tasks map[string]Task `json:"tasks"`
}

// NewTaskListData returns an empty task list.
func NewTaskListData() *TaskListData { return &TaskListData{Next: 1, Tasks: map[string]Task{}} }

// Create implements TaskList.Create on the data.
func (l *TaskListData) Create(t Task) Task {
	if l.Tasks == nil {
		l.Tasks = map[string]Task{}
	}
	t.ID = strconv.Itoa(l.Next)
	l.Next++
	if t.Status == "" {
		t.Status = TaskPending
	}
	t.CreatedAt = time.Now().UTC()
	t = t.clone()
	l.Tasks[t.ID] = t
	l.Order = append(l.Order, t.ID)
	return t.clone()
}

// Get implements TaskList.Get on the data.
func (l *TaskListData) Get(id string) (Task, error) {
	t, ok := l.Tasks[id]
	if !ok {
		return Task{}, fmt.Errorf("task %q: %w", id, ErrNoTask)
	}
	return t.clone(), nil
}

// List implements TaskList.List on the data.
func (l *TaskListData) List() []Task {
	out := make([]Task, 0, len(l.Order))
	for _, id := range l.Order {
		out = append(out, l.Tasks[id].clone())
	}
	return out
}

// Update implements TaskList.Update on the data. When change fails, the
// data is unchanged.
func (l *TaskListData) Update(id string, change func(*Task) error) (Task, error) {
	t, ok := l.Tasks[id]
	if !ok {
		return Task{}, fmt.Errorf("task %q: %w", id, ErrNoTask)
	}
	t = t.clone()
	if err := change(&t); err != nil {
		return Task{}, err
	}
	t.ID = id
	if t.Status == TaskDeleted {
		delete(l.Tasks, id)
		l.Order = slices.DeleteFunc(l.Order, func(s string) bool { return s == id })
		for k, other := range l.Tasks {
			other.Blocks = slices.DeleteFunc(other.Blocks, func(s string) bool { return s == id })
			other.BlockedBy = slices.DeleteFunc(other.BlockedBy, func(s string) bool { return s == id })
			l.Tasks[k] = other
		}
		return t, nil
	}
	l.Tasks[id] = t
	return t.clone(), nil
}

// Replace implements TaskList.Replace on the data. When change fails or
// its list is refused, the data is unchanged.
func (l *TaskListData) Replace(change func([]Task) ([]Task, error)) ([]Task, error) {
	next, err := change(l.List())
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
		if _, ok := l.Tasks[t.ID]; !ok {
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
			t.ID = strconv.Itoa(l.Next)
			l.Next++
			t.CreatedAt = now
		} else {
			t.CreatedAt = l.Tasks[t.ID].CreatedAt
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
	l.Tasks, l.Order = tasks, order
	return l.List(), nil
}

// memoryTasks is a TaskList in memory: the data under a lock.
type memoryTasks struct {
	mu   sync.Mutex
	data *TaskListData
}

func (l *memoryTasks) Create(_ context.Context, t Task) (Task, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.data.Create(t), nil
}

func (l *memoryTasks) Get(_ context.Context, id string) (Task, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.data.Get(id)
}

func (l *memoryTasks) List(context.Context) ([]Task, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.data.List(), nil
}

func (l *memoryTasks) Update(_ context.Context, id string, change func(*Task) error) (Task, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.data.Update(id, change)
}

func (l *memoryTasks) Replace(_ context.Context, change func([]Task) ([]Task, error)) ([]Task, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.data.Replace(change)
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
	Remember(ctx context.Context, path string, stamp FileStamp, contentBytes int64) error
	// Lookup returns the remembered version of path.
	Lookup(ctx context.Context, path string) (FileStamp, bool, error)
	// Forget drops path.
	Forget(ctx context.Context, path string) error
}

type memoryReadCache struct {
	mu     sync.Mutex
	limits ReadCacheLimits
	lru    *list.List // of *cacheEntry, front = most recent
	index  map[string]*list.Element
	bytes  int64
}

type cacheEntry struct {
	path  string
	stamp FileStamp
	size  int64
}

func newMemoryReadCache(l ReadCacheLimits) *memoryReadCache {
	return &memoryReadCache{limits: l, lru: list.New(), index: map[string]*list.Element{}}
}

func (c *memoryReadCache) Remember(_ context.Context, path string, stamp FileStamp, contentBytes int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.index[path]; ok {
		ent := e.Value.(*cacheEntry)
		c.bytes += contentBytes - ent.size
		ent.stamp, ent.size = stamp, contentBytes
		c.lru.MoveToFront(e)
	} else {
		c.index[path] = c.lru.PushFront(&cacheEntry{path: path, stamp: stamp, size: contentBytes})
		c.bytes += contentBytes
	}
	// Evict the least recently used entries, but never the one just added.
	for c.lru.Len() > 1 && (c.lru.Len() > c.limits.Files || c.bytes > c.limits.Bytes) {
		c.remove(c.lru.Back())
	}
	return nil
}

func (c *memoryReadCache) Lookup(_ context.Context, path string) (FileStamp, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.index[path]
	if !ok {
		return FileStamp{}, false, nil
	}
	c.lru.MoveToFront(e)
	return e.Value.(*cacheEntry).stamp, true, nil
}

func (c *memoryReadCache) Forget(_ context.Context, path string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.index[path]; ok {
		c.remove(e)
	}
	return nil
}

func (c *memoryReadCache) remove(e *list.Element) {
	ent := c.lru.Remove(e).(*cacheEntry)
	delete(c.index, ent.path)
	c.bytes -= ent.size
}
