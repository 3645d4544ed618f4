package bash

import (
	"container/list"
	"sync"
)

// scriptCacheSize is how many parsed commands an Analyzer keeps: one
// permission check asks about the same command several times (read-only,
// the tool's check, each rule, the suggestions).
const scriptCacheSize = 256

// scriptCacheFirst is how many of the first commands an Analyzer parses
// are kept inline, without the LRU's list element and map entry: a tool
// made for a few checks never allocates for its cache.
const scriptCacheFirst = 4

// scriptCache keeps parsed commands: the first few inline, for as long
// as the Analyzer lives, then a small LRU. Scripts are never changed
// after Parse, so sharing them is safe.
type scriptCache struct {
	mu     sync.Mutex
	first  [scriptCacheFirst]cached
	nfirst int
	order  list.List // of *cached, front = newest; the zero List is empty
	index  map[string]*list.Element
}

type cached struct {
	command string
	script  *Script
}

func newScriptCache() *scriptCache { return &scriptCache{} }

// getLocked returns the script cached for command, or nil; c.mu is held.
func (c *scriptCache) getLocked(command string) *Script {
	for i := range c.first[:c.nfirst] {
		if c.first[i].command == command {
			return c.first[i].script
		}
	}
	if e, ok := c.index[command]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*cached).script
	}
	return nil
}

func (c *scriptCache) get(command string) *Script {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.getLocked(command)
}

func (c *scriptCache) put(command string, s *Script) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.getLocked(command) != nil {
		return
	}
	if c.nfirst < len(c.first) {
		c.first[c.nfirst] = cached{command: command, script: s}
		c.nfirst++
		return
	}
	if c.index == nil {
		c.index = map[string]*list.Element{}
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
