package taskindex

import (
	"container/list"
	"context"
	"sync"
)

// Key names one state of a task's fragment set. A task's work_version
// changes with every page or claim it gets; the counts change when embed jobs
// finish. An index built under one key is never served under another.
type Key struct {
	TaskID      int64
	WorkVersion int64
	Fragments   int64 // the task's fragments
	NotEmbedded int64 // of which still without an embedding for Model
	Model       string
}

// Cache keeps the indexes of recently verified tasks, least recently used
// first out, within a byte budget. Concurrent loads of one key share one load.
// It is safe for concurrent use.
type Cache struct {
	budget int64

	mu      sync.Mutex
	bytes   int64
	lru     *list.List // of *entry, most recent first
	byTask  map[int64]*list.Element
	loading map[Key]*load
	stats   Stats
}

// Stats counts what a Cache did.
type Stats struct {
	Hits, Loads, Evictions int64
}

type entry struct {
	key Key
	ix  *Index
}

type load struct {
	done chan struct{}
	ix   *Index
	err  error
}

// NewCache returns a cache that holds at most budget bytes of indexes.
func NewCache(budget int64) *Cache {
	return &Cache{budget: budget, lru: list.New(), byTask: map[int64]*list.Element{}, loading: map[Key]*load{}}
}

// Fits reports whether an index of about bytes can be kept.
func (c *Cache) Fits(bytes int64) bool { return c != nil && bytes <= c.budget }

// Budget returns the byte budget.
func (c *Cache) Budget() int64 { return c.budget }

// Get returns the index for key, made by index when it is not cached. index
// is given the cached index of another state of the same task and model
// (nil when there is none) to extend (Index.Extend) if it can; the index it
// returns replaces that one. Concurrent Gets of one key share one load.
func (c *Cache) Get(ctx context.Context, key Key, index func(ctx context.Context, prev *Index) (*Index, error)) (*Index, error) {
	c.mu.Lock()
	var prev *Index
	if el, ok := c.byTask[key.TaskID]; ok {
		e := el.Value.(*entry)
		if e.key == key {
			c.lru.MoveToFront(el)
			c.stats.Hits++
			c.mu.Unlock()
			return e.ix, nil
		}
		if e.key.Model == key.Model {
			prev = e.ix
		}
	}
	if l, ok := c.loading[key]; ok {
		c.mu.Unlock()
		select {
		case <-l.done:
			return l.ix, l.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	l := &load{done: make(chan struct{})}
	c.loading[key] = l
	c.stats.Loads++
	c.mu.Unlock()

	ix, err := index(ctx, prev)
	l.ix, l.err = ix, err

	c.mu.Lock()
	delete(c.loading, key)
	if err == nil {
		c.put(key, l.ix)
	}
	c.mu.Unlock()
	close(l.done)
	return ix, err
}

// put stores ix under key; c.mu is held.
func (c *Cache) put(key Key, ix *Index) {
	if el, ok := c.byTask[key.TaskID]; ok {
		old := el.Value.(*entry)
		if old.key.WorkVersion > key.WorkVersion {
			return // a newer state was stored meanwhile
		}
		c.remove(el)
	}
	if ix.Bytes() > c.budget {
		return
	}
	for c.bytes+ix.Bytes() > c.budget {
		c.remove(c.lru.Back())
		c.stats.Evictions++
	}
	c.byTask[key.TaskID] = c.lru.PushFront(&entry{key: key, ix: ix})
	c.bytes += ix.Bytes()
}

func (c *Cache) remove(el *list.Element) {
	e := el.Value.(*entry)
	c.lru.Remove(el)
	delete(c.byTask, e.key.TaskID)
	c.bytes -= e.ix.Bytes()
}

// Stats returns the counters so far.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Bytes returns the bytes held.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}
