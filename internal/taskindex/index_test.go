package taskindex

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

func docs() []Doc {
	v := func(x, y float32) []float32 { return []float32{x, y} }
	return []Doc{
		{ID: 10, Domain: "a.org", Lexemes: []string{"ice", "melt", "arctic"}, Counts: []int32{1, 1, 1}, Vec: v(1, 0)},
		{ID: 11, Domain: "b.org", Lexemes: []string{"ice", "sea"}, Counts: []int32{3, 1}, Vec: v(0, 1)},
		{ID: 12, Domain: "b.org", Lexemes: []string{"bear", "polar", "declin"}, Counts: []int32{1, 1, 1}, Vec: v(1, 1)},
		{ID: 13, Domain: "c.org", Lexemes: []string{"ice"}, Counts: []int32{1}, Vec: v(-1, 0)},
		{ID: 14, Domain: "c.org", Lexemes: nil, Counts: nil, Vec: v(1, 0)},
	}
}

func ids(t *testing.T, ix *Index, q Query, limit int) []int64 {
	t.Helper()
	var out []int64
	for _, c := range ix.Candidates(q, limit) {
		out = append(out, c.FragmentID)
	}
	return out
}

func TestCandidates(t *testing.T) {
	t.Parallel()
	ix, err := Build(docs())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		q     Query
		limit int
		want  []int64
	}{
		// 13 is shortest (length 1) so its single "ice" scores highest; 11 has
		// ice three times; 10 is longest of the three.
		{"one term ranks by tf and length", Query{Lexemes: []string{"ice"}}, 10, []int64{11, 13, 10}},
		{"or of terms, rare term first", Query{Lexemes: []string{"ice", "arctic"}}, 10, []int64{10, 11, 13}},
		{"limit keeps the best", Query{Lexemes: []string{"ice", "arctic"}}, 1, []int64{10}},
		{"excluded domain", Query{Lexemes: []string{"ice", "arctic"}, ExcludeDomain: "a.org"}, 10, []int64{11, 13}},
		{"unknown domain excludes nothing", Query{Lexemes: []string{"polar"}, ExcludeDomain: "zzz"}, 10, []int64{12}},
		{"repeated term counts once", Query{Lexemes: []string{"polar", "polar", "polar", "ice"}}, 10, []int64{12, 11, 13, 10}},
		{"no match", Query{Lexemes: []string{"penguin"}}, 10, nil},
		{"no terms", Query{}, 10, nil},
		{"zero limit", Query{Lexemes: []string{"ice"}}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ids(t, ix, tt.q, tt.limit)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCandidatesCarryCosineAndDomain(t *testing.T) {
	t.Parallel()
	ix, err := Build(docs())
	if err != nil {
		t.Fatal(err)
	}
	got := ix.Candidates(Query{Lexemes: []string{"ice"}, Vec: []float32{1, 0}}, 10)
	want := map[int64]struct {
		sim    float64
		domain string
	}{10: {1, "a.org"}, 11: {0, "b.org"}, 13: {-1, "c.org"}}
	for _, c := range got {
		w := want[c.FragmentID]
		if c.Similarity != w.sim || c.Domain != w.domain {
			t.Errorf("fragment %d: similarity %v domain %q, want %v %q", c.FragmentID, c.Similarity, c.Domain, w.sim, w.domain)
		}
	}
}

func TestTiesBreakByFragmentID(t *testing.T) {
	t.Parallel()
	var ds []Doc
	for i := range 50 {
		ds = append(ds, Doc{ID: int64(100 - i), Domain: "x", Lexemes: []string{"same"}, Counts: []int32{1}, Vec: []float32{1}})
	}
	ix, err := Build(ds)
	if err != nil {
		t.Fatal(err)
	}
	got := ids(t, ix, Query{Lexemes: []string{"same"}}, 3)
	if fmt.Sprint(got) != "[51 52 53]" {
		t.Errorf("ties: got %v, want [51 52 53]", got)
	}
}

func TestBuildRejectsMixedDimensions(t *testing.T) {
	t.Parallel()
	ds := docs()
	ds[2].Vec = []float32{1, 2, 3}
	if _, err := Build(ds); err == nil {
		t.Fatal("mixed embedding dimensions accepted")
	}
	ds = docs()
	ds[1].Counts = []int32{1}
	if _, err := Build(ds); err == nil {
		t.Fatal("lexemes without counts accepted")
	}
}

func TestCandidatesConcurrent(t *testing.T) {
	t.Parallel()
	ix, err := Build(docs())
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint(ids(t, ix, Query{Lexemes: []string{"ice", "arctic"}}, 10))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if got := fmt.Sprint(ids(t, ix, Query{Lexemes: []string{"ice", "arctic"}}, 10)); got != want {
					t.Errorf("concurrent: got %s, want %s", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	one, err := Build(docs())
	if err != nil {
		t.Fatal(err)
	}
	size := one.Bytes()
	var fetches atomic.Int64
	var lastPrev atomic.Pointer[Index]
	fetch := func(_ context.Context, prev *Index) (*Index, error) {
		fetches.Add(1)
		lastPrev.Store(prev)
		return Build(docs())
	}
	key := func(task, version int64) Key {
		return Key{TaskID: task, WorkVersion: version, Fragments: 5, Model: "m"}
	}
	c := NewCache(2*size + size/2) // room for two indexes
	get := func(k Key) *Index {
		t.Helper()
		ix, err := c.Get(ctx, k, fetch)
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}

	first := get(key(1, 1))
	if fetches.Load() != 1 || lastPrev.Load() != nil {
		t.Fatalf("first get: %d fetches, previous index %v", fetches.Load(), lastPrev.Load())
	}
	if get(key(1, 1)); fetches.Load() != 1 {
		t.Error("same key loaded twice")
	}
	second := get(key(1, 2))
	if fetches.Load() != 2 {
		t.Error("a new work_version was served from the old index")
	}
	if lastPrev.Load() != first {
		t.Error("the index of the task's earlier state was not offered to extend")
	}
	if c.Bytes() != size {
		t.Errorf("after replacing task 1's index the cache holds %d bytes, want %d", c.Bytes(), size)
	}
	stale := key(1, 2)
	stale.NotEmbedded = 3
	if get(stale); fetches.Load() != 3 || lastPrev.Load() != second {
		t.Error("a changed embedding count was served from the old index")
	}
	other := key(1, 3)
	other.Model = "other"
	if get(other); lastPrev.Load() != nil {
		t.Error("an index of another embedding model was offered to extend")
	}
	get(key(2, 1))
	get(key(3, 1)) // evicts task 1, the least recently used
	if st := c.Stats(); st.Evictions != 1 {
		t.Errorf("evictions %d, want 1", st.Evictions)
	}
	before := fetches.Load()
	if get(key(3, 1)); fetches.Load() != before {
		t.Error("task 3 was evicted instead of task 1")
	}
	if c.Bytes() > c.Budget() {
		t.Errorf("cache holds %d bytes over its budget %d", c.Bytes(), c.Budget())
	}
	if fetches.Load() != 6 {
		t.Errorf("%d fetches, want 6", fetches.Load())
	}
	if !c.Fits(size) || c.Fits(c.Budget()+1) || (*Cache)(nil).Fits(0) {
		t.Error("Fits is wrong")
	}
}

func TestCacheSharesOneLoadAndKeepsErrorsOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := NewCache(1 << 20)
	release := make(chan struct{})
	var fetches atomic.Int64
	fetch := func(context.Context, *Index) (*Index, error) {
		fetches.Add(1)
		<-release
		return Build(docs())
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if ix, err := c.Get(ctx, Key{TaskID: 1}, fetch); err != nil || ix.Len() != 5 {
				t.Errorf("get: %v", err)
			}
		})
	}
	for c.loadingCount() == 0 {
	}
	close(release)
	wg.Wait()
	if fetches.Load() != 1 {
		t.Errorf("%d concurrent fetches of one key, want 1", fetches.Load())
	}

	boom := errors.New("boom")
	if _, err := c.Get(ctx, Key{TaskID: 2}, func(context.Context, *Index) (*Index, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("fetch error: got %v", err)
	}
	loaded := false
	if _, err := c.Get(ctx, Key{TaskID: 2}, func(context.Context, *Index) (*Index, error) { loaded = true; return Build(docs()) }); err != nil || !loaded {
		t.Errorf("after a failed load: loaded %v, err %v", loaded, err)
	}
}

func (c *Cache) loadingCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.loading)
}

// TestCandidatesDoNotDependOnTheOrderOfTheFragments: the same fragments
// added in another order recall the same candidates with the same scores
// (store.TaskSearchDocs streams them in no order).
func TestCandidatesDoNotDependOnTheOrderOfTheFragments(t *testing.T) {
	t.Parallel()
	docs, _ := benchDocs(2000, 32)
	forward, err := Build(docs)
	if err != nil {
		t.Fatal(err)
	}
	reversed := make([]Doc, len(docs))
	for i, d := range docs {
		reversed[len(docs)-1-i] = d
	}
	backward, err := Build(reversed)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		q := Query{Lexemes: docs[i*97].Lexemes[:6], Vec: docs[i*13].Vec, ExcludeDomain: docs[i].Domain}
		a, b := forward.Candidates(q, 50), backward.Candidates(q, 50)
		if len(a) == 0 || fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("query %d: %d candidates in id order, %d in reverse; first %v, %v", i, len(a), len(b), a[:min(3, len(a))], b[:min(3, len(b))])
		}
	}
}
