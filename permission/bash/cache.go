package bash

import (
	"container/list"
	"sync"
)

// scriptCacheSize is how many parsed commands an Analyzer keeps: one
// permission check asks about the same command several times (read-only,
// the tool's check, each rule, the suggestions).
const scriptCacheSize = 256

// scriptCache is a small LRU of parsed commands. Scripts are never
// changed after Parse, so sharing them is safe.
type scriptCache struct {
	mu    sync.Mutex
	order *list.List // of *cached, front = newest
	index map[string]*list.Element
}

type cached struct {
	command string
	script  *Script
}

func newScriptCache() *scriptCache {
	return &scriptCache{order: list.New(), index: map[string]*list.Element{}}
}

func (c *scriptCache) get(command string) *Script {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.index[command]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*cached).script
	}
	return nil
}

func (c *scriptCache) put(command string, s *Script) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.index[command]; ok {
		return
	}
	c.index[command] = c.order.PushFront(&cached{command: command, script: s})
	for c.order.Len() > scriptCacheSize {
		old := c.order.Remove(c.order.Back()).(*cached)
		delete(c.index, old.command)
	}
}

// Parse is the package's Parse with a cache of recent commands.
func (a *Analyzer) Parse(command string) *Script {
	if s := a.cache.get(command); s != nil {
		return s
	}
	s := Parse(command)
	a.cache.put(command, s)
	return s
}
