package bash

import (
	"strconv"
	"testing"
)

func TestScriptCache(t *testing.T) {
	c := newScriptCache()
	scripts := map[string]*Script{}
	n := scriptCacheFirst + scriptCacheSize + 10
	for i := range n {
		cmd := "echo " + strconv.Itoa(i)
		if c.get(cmd) != nil {
			t.Fatalf("%q cached before it was put", cmd)
		}
		s := &Script{}
		scripts[cmd] = s
		c.put(cmd, s)
		c.put(cmd, &Script{}) // a second put keeps the first script
		if c.get(cmd) != s {
			t.Fatalf("%q: not the script put", cmd)
		}
	}
	for i := range n {
		cmd := "echo " + strconv.Itoa(i)
		got := c.get(cmd)
		switch {
		case i < scriptCacheFirst || i >= n-scriptCacheSize:
			if got != scripts[cmd] {
				t.Errorf("%q: dropped or replaced", cmd)
			}
		case got != nil:
			t.Errorf("%q: kept past the LRU's size", cmd)
		}
	}
}
