package builtin

import (
	"strings"
	"sync"
)

// textCache keeps what a built-in NLI makes of a text (a premise's
// analysis) across Judge calls: verify_nli judges each fragment against
// many claims, in batches that rarely hold more than one of its pairs. It
// holds two generations of at most limit/2 estimated bytes each, keyed by
// a copy of the text. A hit in the older generation moves the entry to
// the newer one; when the newer one is full, the older is dropped and the
// newer takes its place. So texts still in use stay while memory stays
// bounded. A cache only saves work: a judgement is the same with or
// without it. Safe for concurrent use.
type textCache[T any] struct {
	limit int
	build func(string) T // what is kept of a text
	size  func(T) int    // its estimated bytes, the text's own aside

	mu       sync.Mutex
	cur, old map[string]T
	curBytes int
	made     int // values made (misses)
}

func newTextCache[T any](limit int, build func(string) T, size func(T) int) *textCache[T] {
	return &textCache[T]{limit: limit, build: build, size: size}
}

// get returns the value of text s, from the cache or made, and whether the
// cache keeps it.
func (c *textCache[T]) get(s string) (T, bool) {
	c.mu.Lock()
	v, ok := c.cur[s]
	if !ok {
		if v, ok = c.old[s]; ok {
			c.addLocked(strings.Clone(s), v)
		}
	}
	c.mu.Unlock()
	if ok {
		return v, true
	}
	v = c.build(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.made++
	if kept, dup := c.cur[s]; dup { // another call made it meanwhile
		return kept, true
	}
	return v, c.addLocked(strings.Clone(s), v)
}

// addLocked adds (s, v) to the newer generation, first turning that into
// the older one when it is full, and reports whether it did: values larger
// than a generation are not kept. s is a copy, so that the cache never
// holds on to a larger string the caller's may be part of.
func (c *textCache[T]) addLocked(s string, v T) bool {
	size := c.size(v) + len(s)
	if size > c.limit/2 {
		return false
	}
	if c.cur == nil || c.curBytes+size > c.limit/2 {
		c.old, c.cur, c.curBytes = c.cur, make(map[string]T), 0
	}
	c.cur[s] = v
	c.curBytes += size
	return true
}
