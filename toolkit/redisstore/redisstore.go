// Package redisstore keeps toolkit sessions in Redis, so that several
// processes serving the same clients (replicas behind a load balancer)
// share them: a session's active groups, granted rules, task list,
// read-before-write stamps and parked turns are the same whichever
// replica a request lands on.
//
// # Keys
//
// Every key of a session starts with the prefix (default "wasmtools:")
// and the session id in braces, a Redis Cluster hash tag that keeps a
// session's keys in one slot:
//
//	PREFIX{ID}:groups   string  JSON array of active group names (absent: never set)
//	PREFIX{ID}:granted  string  JSON array of granted allow rules
//	PREFIX{ID}:tasks    string  JSON toolkit.TaskListData
//	PREFIX{ID}:rc       hash    path -> JSON {m: mtime ns, s: size, b: bytes counted}
//	PREFIX{ID}:rcz      zset    path scored by last use (least recent first)
//	PREFIX{ID}:rcm      hash    bytes: total counted, seq: last use counter
//	PREFIX{ID}:parked   hash    token -> "EXPIRES_MS|record" (EXPIRES_MS 0: none)
//	PREFIX{ID}:meta     hash    what servers keep beside the session (SetSessionMeta)
//
// # Expiry
//
// With Options.TTL set (the session idle timeout), every key of a session
// expires TTL after the session was last used: Store.Session refreshes
// them (at most once per tenth of the TTL in each process, so a key keeps
// at least 90% of the TTL after a use), and every write sets the TTL of
// the keys it writes.
//
// # Concurrency
//
// Read-modify-write updates whose change is Go code (task list changes,
// group updates, grants) are optimistic transactions: WATCH the key,
// read, apply the change, write in MULTI/EXEC, and start again when
// another client wrote the key meanwhile. The read cache (an LRU with
// limits) and parked turns use Lua scripts, which Redis runs atomically;
// claiming a parked turn removes it in the same step, so two replicas
// can never both resume it.
package redisstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// DefaultPrefix starts every key the store writes.
const DefaultPrefix = "wasmtools:"

// maxAttempts bounds the retries of one optimistic transaction.
const maxAttempts = 200

// Options configure a Store.
type Options struct {
	// TTL is how long a session's state outlives its last use; 0 keeps
	// it until the session is dropped. Set it to the server's session
	// idle timeout.
	TTL time.Duration
	// Limits bound each session's read cache; zero means
	// toolkit.DefaultReadCacheLimits.
	Limits toolkit.ReadCacheLimits
	// Prefix starts every key; empty means DefaultPrefix. Servers that
	// share a Redis database but not their sessions use different ones.
	Prefix string
}

// Store is a toolkit.SessionStore in Redis. It is safe for concurrent
// use, in one process and across processes sharing the database.
type Store struct {
	rdb  redis.UniversalClient
	opts Options
	own  bool   // Close closes rdb
	addr string // for String; empty for a client given to New

	// refreshed is when this process last refreshed each session's
	// expiry: Session skips the round trip when that is recent (a tenth
	// of the TTL), so a session's keys always have 90% of their TTL left
	// or more after a use.
	mu        sync.Mutex
	refreshed map[string]time.Time
	swept     time.Time
}

// New returns a store over an existing client; Close leaves the client
// open.
func New(rdb redis.UniversalClient, opts Options) *Store {
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if opts.Limits.Files <= 0 || opts.Limits.Bytes <= 0 {
		opts.Limits = toolkit.DefaultReadCacheLimits
	}
	return &Store{rdb: rdb, opts: opts, refreshed: map[string]time.Time{}}
}

// Open connects to the Redis server a URL names
// (redis://[[user]:password@]host:port/db, or rediss:// for TLS) and
// checks that it answers.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis store %q: %w", redactURL(url), err)
	}
	rdb := redis.NewClient(o)
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		return nil, fmt.Errorf("redis store %s: %w", o.Addr, err)
	}
	s := New(rdb, opts)
	s.own, s.addr = true, fmt.Sprintf("redis://%s/%d", o.Addr, o.DB)
	return s, nil
}

// redactURL hides a password in a URL for messages.
func redactURL(url string) string {
	at := strings.LastIndex(url, "@")
	scheme := strings.Index(url, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return url
	}
	return url[:scheme+3] + "…" + url[at:]
}

// String names the server and database (never the password).
func (s *Store) String() string { return cmp.Or(s.addr, "redis") }

// Close closes the connection Open made.
func (s *Store) Close() error {
	if s.own {
		return s.rdb.Close()
	}
	return nil
}

// Client is the store's Redis client.
func (s *Store) Client() redis.UniversalClient { return s.rdb }

type keys struct {
	groups, granted, tasks, rc, rcz, rcm, parked, meta string
}

func (s *Store) keys(id string) keys {
	base := s.opts.Prefix + "{" + id + "}:"
	return keys{groups: base + "groups", granted: base + "granted", tasks: base + "tasks",
		rc: base + "rc", rcz: base + "rcz", rcm: base + "rcm", parked: base + "parked", meta: base + "meta"}
}

func (k keys) all() []string {
	return []string{k.groups, k.granted, k.tasks, k.rc, k.rcz, k.rcm, k.parked, k.meta}
}

// Session implements toolkit.SessionStore. A session's keys are created
// by its first write; Session refreshes their expiry (one round trip).
func (s *Store) Session(ctx context.Context, id string) (toolkit.SessionState, error) {
	sess := &session{st: s, id: id, k: s.keys(id)}
	if s.opts.TTL > 0 && s.needsRefresh(id) {
		if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, key := range sess.k.all() {
				p.PExpire(ctx, key, s.opts.TTL)
			}
			return nil
		}); err != nil {
			s.mu.Lock()
			delete(s.refreshed, id)
			s.mu.Unlock()
			return nil, fmt.Errorf("refresh session %q: %w", id, err)
		}
	}
	return sess, nil
}

// needsRefresh reports whether session id's expiry was not refreshed by
// this process for a tenth of the TTL, and counts it refreshed now.
func (s *Store) needsRefresh(id string) bool {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Sub(s.swept) > s.opts.TTL {
		// Forget sessions this process has not seen for a TTL.
		for k, at := range s.refreshed {
			if now.Sub(at) > s.opts.TTL {
				delete(s.refreshed, k)
			}
		}
		s.swept = now
	}
	if at, ok := s.refreshed[id]; ok && now.Sub(at) < s.opts.TTL/10 {
		return false
	}
	s.refreshed[id] = now
	return true
}

// Drop implements toolkit.SessionDropper: it deletes every key of the
// session.
func (s *Store) Drop(ctx context.Context, id string) error {
	s.mu.Lock()
	delete(s.refreshed, id)
	s.mu.Unlock()
	if err := s.rdb.Del(ctx, s.keys(id).all()...).Err(); err != nil {
		return fmt.Errorf("drop session %q: %w", id, err)
	}
	return nil
}

// SetSessionMeta keeps value under key beside session id's state, with
// the session's expiry: what a server needs to take up a session another
// server began (an MCP session's initialisation, say).
func (s *Store) SetSessionMeta(ctx context.Context, id, key string, value []byte) error {
	k := s.keys(id).meta
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, k, key, value)
		if s.opts.TTL > 0 {
			p.PExpire(ctx, k, s.opts.TTL)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("session %q: set %s: %w", id, key, err)
	}
	return nil
}

// SessionMeta returns what SetSessionMeta kept under key.
func (s *Store) SessionMeta(ctx context.Context, id, key string) ([]byte, bool, error) {
	v, err := s.rdb.HGet(ctx, s.keys(id).meta, key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("session %q: get %s: %w", id, key, err)
	}
	return v, true, nil
}

// busChannel is the pub/sub channel of the servers sharing the store.
func (s *Store) busChannel() string { return s.opts.Prefix + "bus" }

// Publish sends msg about session to every server subscribed to the
// store's bus (Redis pub/sub: at most once, to the servers listening now).
func (s *Store) Publish(ctx context.Context, session string, msg []byte) error {
	if err := s.rdb.Publish(ctx, s.busChannel(), msg).Err(); err != nil {
		return fmt.Errorf("publish for session %q: %w", session, err)
	}
	return nil
}

// Subscribe calls deliver with each message published on the store's
// bus until ctx ends. The session argument is empty: the servers' message
// names its session itself.
func (s *Store) Subscribe(ctx context.Context, deliver func(session string, msg []byte)) error {
	sub := s.rdb.Subscribe(ctx, s.busChannel())
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil { // the subscription's confirmation
		return fmt.Errorf("subscribe: %w", err)
	}
	ch := sub.Channel()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m, ok := <-ch:
			if !ok {
				return nil
			}
			deliver("", []byte(m.Payload))
		}
	}
}

type session struct {
	st *Store
	id string
	k  keys
}

func (s *session) ID() string { return s.id }

// set writes a JSON value with the session's TTL.
func (s *session) set(ctx context.Context, c redis.Cmdable, key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.Set(ctx, key, data, s.st.opts.TTL).Err()
}

// get reads a JSON value; ok is false when the key does not exist.
func get[T any](ctx context.Context, c redis.Cmdable, key string) (v T, ok bool, err error) {
	data, err := c.Get(ctx, key).Bytes()
	if errors.Is(err, redis.Nil) {
		return v, false, nil
	}
	if err != nil {
		return v, false, err
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return v, false, fmt.Errorf("%s: %w", key, err)
	}
	return v, true, nil
}

// update runs an optimistic transaction on key: read, change, write;
// again from the start when another client wrote key in between. change
// gets the current value (ok false: none) and returns the value to
// write, or write false to leave the key as it is.
func update[T any](ctx context.Context, s *session, key string, change func(cur T, ok bool) (next T, write bool, err error)) error {
	for attempt := range maxAttempts {
		err := s.st.rdb.Watch(ctx, func(tx *redis.Tx) error {
			cur, ok, err := get[T](ctx, tx, key)
			if err != nil {
				return err
			}
			next, write, err := change(cur, ok)
			if err != nil || !write {
				return err
			}
			data, err := json.Marshal(next)
			if err != nil {
				return err
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, key, data, s.st.opts.TTL)
				return nil
			})
			return err
		}, key)
		if !errors.Is(err, redis.TxFailedErr) {
			return err
		}
		// Someone else wrote first: back off a little, growing, jittered.
		if attempt > 2 {
			d := time.Duration(rand.IntN(100*min(attempt, 20))) * time.Microsecond
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(d):
			}
		}
	}
	return fmt.Errorf("%s: still contended after %d attempts", key, maxAttempts)
}

func (s *session) ActiveGroups(ctx context.Context) ([]string, bool, error) {
	names, ok, err := get[[]string](ctx, s.st.rdb, s.k.groups)
	if err != nil {
		return nil, false, fmt.Errorf("active groups: %w", err)
	}
	return names, ok, nil
}

func (s *session) SetActiveGroups(ctx context.Context, names []string) error {
	if names == nil {
		names = []string{} // set, and empty
	}
	if err := s.set(ctx, s.st.rdb, s.k.groups, names); err != nil {
		return fmt.Errorf("set active groups: %w", err)
	}
	return nil
}

func (s *session) UpdateActiveGroups(ctx context.Context, change func([]string, bool) []string) error {
	err := update(ctx, s, s.k.groups, func(cur []string, ok bool) ([]string, bool, error) {
		next := change(slices.Clone(cur), ok)
		if next == nil {
			next = []string{}
		}
		return next, true, nil
	})
	if err != nil {
		return fmt.Errorf("update active groups: %w", err)
	}
	return nil
}

func (s *session) GrantedRules(ctx context.Context) ([]permission.Rule, error) {
	rules, _, err := get[[]permission.Rule](ctx, s.st.rdb, s.k.granted)
	if err != nil {
		return nil, fmt.Errorf("granted rules: %w", err)
	}
	return rules, nil
}

func (s *session) GrantRules(ctx context.Context, rules ...permission.Rule) error {
	if len(rules) == 0 {
		return nil
	}
	err := update(ctx, s, s.k.granted, func(cur []permission.Rule, _ bool) ([]permission.Rule, bool, error) {
		next := toolkit.MergeRules(cur, rules...)
		return next, len(next) != len(cur), nil
	})
	if err != nil {
		return fmt.Errorf("grant rules: %w", err)
	}
	return nil
}

func (s *session) Tasks() toolkit.TaskList      { return tasks{s} }
func (s *session) ReadCache() toolkit.ReadCache { return readCache{s} }
func (s *session) Parked() toolkit.ParkedTurns  { return parked{s} }

// tasks is the session's task list: one JSON toolkit.TaskListData,
// changed in optimistic transactions.
type tasks struct{ s *session }

func (l tasks) load(ctx context.Context) (*toolkit.TaskListData, error) {
	d, ok, err := get[*toolkit.TaskListData](ctx, l.s.st.rdb, l.s.k.tasks)
	if err != nil {
		return nil, fmt.Errorf("task list: %w", err)
	}
	if !ok || d == nil {
		d = toolkit.NewTaskListData()
	}
	return d, nil
}

// change applies op to the list in a transaction.
func (l tasks) change(ctx context.Context, op func(d *toolkit.TaskListData) error) error {
	return update(ctx, l.s, l.s.k.tasks, func(d *toolkit.TaskListData, ok bool) (*toolkit.TaskListData, bool, error) {
		if !ok || d == nil {
			d = toolkit.NewTaskListData()
		}
		if err := op(d); err != nil {
			return nil, false, err
		}
		return d, true, nil
	})
}

func (l tasks) Create(ctx context.Context, t toolkit.Task) (toolkit.Task, error) {
	var out toolkit.Task
	err := l.change(ctx, func(d *toolkit.TaskListData) error {
		out = d.Create(t)
		return nil
	})
	return out, err
}

func (l tasks) Get(ctx context.Context, id string) (toolkit.Task, error) {
	d, err := l.load(ctx)
	if err != nil {
		return toolkit.Task{}, err
	}
	return d.Get(id)
}

func (l tasks) List(ctx context.Context) ([]toolkit.Task, error) {
	d, err := l.load(ctx)
	if err != nil {
		return nil, err
	}
	return d.List(), nil
}

func (l tasks) Update(ctx context.Context, id string, change func(*toolkit.Task) error) (toolkit.Task, error) {
	var out toolkit.Task
	err := l.change(ctx, func(d *toolkit.TaskListData) error {
		var err error
		out, err = d.Update(id, change)
		return err
	})
	return out, err
}

func (l tasks) Replace(ctx context.Context, change func([]toolkit.Task) ([]toolkit.Task, error)) ([]toolkit.Task, error) {
	var out []toolkit.Task
	err := l.change(ctx, func(d *toolkit.TaskListData) error {
		var err error
		out, err = d.Replace(change)
		return err
	})
	return out, err
}

// readCache is the session's read-before-write memory: an LRU kept by
// Lua scripts so that eviction and the byte count stay consistent.
type readCache struct{ s *session }

type stampJSON struct {
	M int64 `json:"m"` // modification time, ns since the epoch
	S int64 `json:"s"` // file size
	B int64 `json:"b"` // bytes counted against the limit
}

// rememberScript: KEYS rc rcz rcm; ARGV path entry bytes maxFiles maxBytes ttlMs.
var rememberScript = redis.NewScript(`
local rc, rcz, rcm = KEYS[1], KEYS[2], KEYS[3]
local path, entry, size = ARGV[1], ARGV[2], tonumber(ARGV[3])
local maxFiles, maxBytes, ttl = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local total = tonumber(redis.call('HGET', rcm, 'bytes') or '0')
local old = redis.call('HGET', rc, path)
if old then total = total - cjson.decode(old).b end
redis.call('HSET', rc, path, entry)
total = total + size
redis.call('ZADD', rcz, redis.call('HINCRBY', rcm, 'seq', 1), path)
local n = redis.call('ZCARD', rcz)
while n > 1 and (n > maxFiles or total > maxBytes) do
  local oldest = redis.call('ZRANGE', rcz, 0, 0)[1]
  local v = redis.call('HGET', rc, oldest)
  if v then total = total - cjson.decode(v).b end
  redis.call('HDEL', rc, oldest)
  redis.call('ZREM', rcz, oldest)
  n = n - 1
end
redis.call('HSET', rcm, 'bytes', total)
if ttl > 0 then
  redis.call('PEXPIRE', rc, ttl)
  redis.call('PEXPIRE', rcz, ttl)
  redis.call('PEXPIRE', rcm, ttl)
end
return n
`)

// lookupScript: KEYS rc rcz rcm; ARGV path. A hit becomes the most
// recently used entry.
var lookupScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], ARGV[1])
if v then
  redis.call('ZADD', KEYS[2], 'XX', redis.call('HINCRBY', KEYS[3], 'seq', 1), ARGV[1])
end
return v
`)

// forgetScript: KEYS rc rcz rcm; ARGV path.
var forgetScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], ARGV[1])
if v then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('HINCRBY', KEYS[3], 'bytes', -cjson.decode(v).b)
end
return 0
`)

func (c readCache) keys() []string { return []string{c.s.k.rc, c.s.k.rcz, c.s.k.rcm} }

func (c readCache) Remember(ctx context.Context, path string, stamp toolkit.FileStamp, contentBytes int64) error {
	entry, err := json.Marshal(stampJSON{M: stamp.ModTime.UnixNano(), S: stamp.Size, B: contentBytes})
	if err != nil {
		return err
	}
	lim := c.s.st.opts.Limits
	err = rememberScript.Run(ctx, c.s.st.rdb, c.keys(), path, entry, contentBytes, lim.Files, lim.Bytes, c.s.st.opts.TTL.Milliseconds()).Err()
	if err != nil {
		return fmt.Errorf("remember %s: %w", path, err)
	}
	return nil
}

func (c readCache) Lookup(ctx context.Context, path string) (toolkit.FileStamp, bool, error) {
	v, err := lookupScript.Run(ctx, c.s.st.rdb, c.keys(), path).Text()
	if errors.Is(err, redis.Nil) {
		return toolkit.FileStamp{}, false, nil
	}
	if err != nil {
		return toolkit.FileStamp{}, false, fmt.Errorf("look up %s: %w", path, err)
	}
	var e stampJSON
	if err := json.Unmarshal([]byte(v), &e); err != nil {
		return toolkit.FileStamp{}, false, fmt.Errorf("look up %s: %w", path, err)
	}
	return toolkit.FileStamp{ModTime: time.Unix(0, e.M).UTC(), Size: e.S}, true, nil
}

func (c readCache) Forget(ctx context.Context, path string) error {
	if err := forgetScript.Run(ctx, c.s.st.rdb, c.keys(), path).Err(); err != nil {
		return fmt.Errorf("forget %s: %w", path, err)
	}
	return nil
}

// parked keeps parked turns in one hash; each record carries its own
// expiry, checked against the Redis server's clock (replicas' clocks may
// differ).
type parked struct{ s *session }

// parkScript: KEYS parked; ARGV token record ttlMs sessionTtlMs. Expired
// records of the session are swept on the way.
var parkScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local exp = tonumber(string.match(all[i+1], '^(%d+)|'))
  if exp and exp > 0 and exp <= now then redis.call('HDEL', KEYS[1], all[i]) end
end
local ttl = tonumber(ARGV[3])
local exp = 0
if ttl > 0 then exp = now + ttl end
redis.call('HSET', KEYS[1], ARGV[1], exp .. '|' .. ARGV[2])
local sttl = tonumber(ARGV[4])
if sttl > 0 then redis.call('PEXPIRE', KEYS[1], sttl) end
return 1
`)

// claimScript: KEYS parked; ARGV token. Returns the record and removes
// it, or nil.
var claimScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return nil end
redis.call('HDEL', KEYS[1], ARGV[1])
local bar = string.find(v, '|', 1, true)
local exp = tonumber(string.sub(v, 1, bar - 1))
if exp > 0 then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  if exp <= now then return nil end
end
return string.sub(v, bar + 1)
`)

func (p parked) Park(ctx context.Context, token string, record []byte, ttl time.Duration) error {
	ms := ttl.Milliseconds()
	if ttl > 0 && ms == 0 {
		ms = 1
	}
	err := parkScript.Run(ctx, p.s.st.rdb, []string{p.s.k.parked}, token, record, strconv.FormatInt(ms, 10), p.s.st.opts.TTL.Milliseconds()).Err()
	if err != nil {
		return fmt.Errorf("park turn: %w", err)
	}
	return nil
}

func (p parked) Claim(ctx context.Context, token string) ([]byte, bool, error) {
	v, err := claimScript.Run(ctx, p.s.st.rdb, []string{p.s.k.parked}, token).Text()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("claim parked turn: %w", err)
	}
	return []byte(v), true, nil
}
