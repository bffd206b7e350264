// Package taskindex is stage 1 and 2 of cross-source verification
// (ARCHITECTURE.md §5.2) in memory: an inverted index of one task's embedded fragments,
// searched with BM25 over Postgres's own lexemes (the OR of a claim's
// terms), and the recalled fragments ranked by cosine similarity.
//
// Its cost depends on the task only, not on the size of the whole graph: a
// graph-wide GIN index has to visit every task's matches before it can keep
// the ones of the task. A Cache keeps indexes per process, bounded in bytes
// and keyed by what changes a task's fragment set.
package taskindex

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/evidencefleet/evidencefleet/internal/evidence"
	"github.com/evidencefleet/evidencefleet/internal/ident"
	"github.com/evidencefleet/evidencefleet/internal/models"
)

// BM25 parameters (the usual defaults).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Doc is one embedded fragment of the task.
type Doc struct {
	ID          int64
	PageVersion int64 // the page version the fragment was cut from
	Domain      string
	// Lexemes and Counts are the fragment's tsvector: each lexeme once, with
	// its number of positions (1 when the tsvector keeps none).
	Lexemes []string
	Counts  []int32
	Vec     []float32
}

type posting struct {
	doc int32
	tf  float32
}

// termPosting is a posting while the index is built, with its term.
type termPosting struct {
	term int32
	posting
}

// Index is an immutable search structure over a task's fragments. It is safe
// for concurrent use.
type Index struct {
	ids      []int64
	domains  []int32 // index into domainNames
	norm     []float32
	vecs     []int8    // dim components per doc, concatenated (models.Quantize)
	vecNorms []float32 // each doc's quantized norm
	dim      int
	terms    map[string]int32
	// postings holds every term's postings, term after term, each in doc
	// order: term t's are postings[starts[t]:starts[t+1]]. Two allocations
	// for the whole task, where a slice a term grew to several times its
	// size while the index was built.
	postings []posting
	starts   []int32
	idf      []float64

	domainNames []string
	domainIDs   map[string]int32
	bytes       int64
	scratch     sync.Pool

	// What Extend needs to index more fragments without reading these
	// again: each fragment's length (its positions) and page version, and
	// the fragments indexed per page version.
	lengths  []int32
	docPages []int64
	pages    map[int64]int32
}

// Build indexes docs. Every vector must have the same length.
func Build(docs []Doc) (*Index, error) {
	b := NewBuilder(len(docs))
	for _, d := range docs {
		if len(d.Counts) != len(d.Lexemes) {
			return nil, fmt.Errorf("taskindex: fragment %d has %d lexemes but %d counts", d.ID, len(d.Lexemes), len(d.Counts))
		}
		if err := b.add(d.PageVersion, d.ID, []byte(d.Domain), d.Vec, func(fn func([]byte, int32)) error {
			for j, lex := range d.Lexemes {
				fn([]byte(lex), d.Counts[j])
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return b.Finish(), nil
}

// Builder indexes fragments one at a time, straight from the rows Postgres
// sends: no lexeme string is allocated twice and no input is kept.
type Builder struct {
	ix      *Index
	terms   int32         // distinct terms so far
	pending []termPosting // the postings as added, in doc order
	total   float64
	scratch []byte
	sites   map[string]string // domain → its site
	known   map[int64]bool    // fragments already indexed that Add skips (Extend)
}

// NewBuilder returns a builder for about n fragments.
func NewBuilder(n int) *Builder {
	return &Builder{
		sites: map[string]string{},
		ix: &Index{
			ids:       make([]int64, 0, n),
			domains:   make([]int32, 0, n),
			terms:     map[string]int32{},
			domainIDs: map[string]int32{},
			lengths:   make([]int32, 0, n),
			docPages:  make([]int64, 0, n),
			pages:     map[int64]int32{},
		},
		pending: make([]termPosting, 0, n*postingsPerFragment),
	}
}

// postingsPerFragment is about how many distinct lexemes a fragment has
// (the pending postings are reserved for it; more only grow the slice).
const postingsPerFragment = 24

// Add indexes one fragment: its page version, its domain, its tsvector in
// Postgres's text output (ParseTSVector) and its embedding. The arguments
// are not retained, so they may point into a driver's buffer. A fragment
// the extended index already holds (Extend) is skipped.
func (b *Builder) Add(pageVersion, id int64, domain, tsvector []byte, vec []float32) error {
	if b.known[id] {
		return nil
	}
	return b.add(pageVersion, id, domain, vec, func(fn func([]byte, int32)) error {
		var err error
		b.scratch, err = scanTSVector(tsvector, b.scratch, fn)
		if err != nil {
			return fmt.Errorf("taskindex: fragment %d: %w", id, err)
		}
		return nil
	})
}

func (b *Builder) add(pageVersion, id int64, domain []byte, vec []float32, lexemes func(func([]byte, int32)) error) error {
	ix := b.ix
	if len(ix.ids) == 0 {
		ix.dim = len(vec)
		ix.vecs = make([]int8, 0, ix.dim*cap(ix.ids))
		ix.vecNorms = make([]float32, 0, cap(ix.ids))
	}
	if len(vec) != ix.dim {
		return fmt.Errorf("taskindex: fragment %d has an embedding of dimension %d, want %d", id, len(vec), ix.dim)
	}
	doc := int32(len(ix.ids))
	var length int32
	err := lexemes(func(lex []byte, count int32) {
		t, ok := ix.terms[string(lex)]
		if !ok {
			t = b.terms
			ix.terms[string(lex)] = t
			b.terms++
		}
		tf := max(count, 1)
		b.pending = append(b.pending, termPosting{term: t, posting: posting{doc: doc, tf: float32(tf)}})
		length += tf
	})
	if err != nil {
		return err
	}
	// Fragments are told apart by site (ident.Site): the hosts of one
	// registrable domain are one source.
	site, ok := b.sites[string(domain)]
	if !ok {
		site = ident.Site(string(domain))
		b.sites[string(domain)] = site
	}
	dom, ok := ix.domainIDs[site]
	if !ok {
		dom = int32(len(ix.domainNames))
		ix.domainIDs[site] = dom
		ix.domainNames = append(ix.domainNames, site)
	}
	ix.ids = append(ix.ids, id)
	ix.domains = append(ix.domains, dom)
	var norm float32
	ix.vecs, norm = models.Quantize(ix.vecs, vec)
	ix.vecNorms = append(ix.vecNorms, norm)
	ix.lengths = append(ix.lengths, length)
	ix.docPages = append(ix.docPages, pageVersion)
	ix.pages[pageVersion]++
	b.total += float64(length)
	return nil
}

// Finish computes the BM25 statistics and returns the index; the builder must
// not be used afterwards.
func (b *Builder) Finish() *Index {
	ix := b.ix
	n := len(ix.ids)
	avg := 1.0
	if n > 0 && b.total > 0 {
		avg = b.total / float64(n)
	}
	ix.norm = make([]float32, n)
	for i, l := range ix.lengths {
		ix.norm[i] = float32(bm25K1 * (1 - bm25B + bm25B*float64(l)/avg))
	}
	// counting sort of the pending postings by term; each term's stay in
	// doc order
	ix.starts = make([]int32, b.terms+1)
	for _, p := range b.pending {
		ix.starts[p.term+1]++
	}
	for t := range b.terms {
		ix.starts[t+1] += ix.starts[t]
	}
	ix.postings = make([]posting, len(b.pending))
	next := slices.Clone(ix.starts[:b.terms])
	for _, p := range b.pending {
		ix.postings[next[p.term]] = p.posting
		next[p.term]++
	}
	b.pending = nil
	ix.idf = make([]float64, b.terms)
	for t := range b.terms {
		df := float64(ix.starts[t+1] - ix.starts[t])
		ix.idf[t] = math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
	}
	postingBytes := int64(cap(ix.postings))*8 + int64(cap(ix.starts))*4
	var termBytes int64
	for lex := range ix.terms {
		termBytes += int64(len(lex)) + 48 // string header, map slot and entry
	}
	ix.bytes = int64(cap(ix.ids))*(8+4+4+4+4+4+8) + int64(cap(ix.vecs)) + postingBytes + termBytes + int64(len(ix.pages))*24
	b.ix = nil
	return ix
}

// Len returns the number of fragments indexed.
func (ix *Index) Len() int { return len(ix.ids) }

// Bytes estimates the index's memory.
func (ix *Index) Bytes() int64 { return ix.bytes }

// Query is one claim to find candidates for.
type Query struct {
	Lexemes       []string  // the claim's lexemes (to_tsvector of its text)
	Vec           []float32 // the claim's embedding, same model as the index
	ExcludeDomain string    // the claim's origin domain; "" for none. Its whole site (ident.Site) is left out.
}

// Candidates recalls at most limit fragments matching any of the query's
// lexemes, best BM25 score first (ties by fragment id), leaving out the
// excluded domain, and returns them with their cosine similarity to the
// query vector, in recall order.
func (ix *Index) Candidates(q Query, limit int) []evidence.Candidate {
	if limit <= 0 || len(ix.ids) == 0 {
		return nil
	}
	s := ix.getScratch()
	defer ix.scratch.Put(s)
	excluded := int32(-1)
	if id, ok := ix.domainIDs[ident.Site(q.ExcludeDomain)]; ok && q.ExcludeDomain != "" {
		excluded = id
	}
	seenTerm := s.seenTerms[:0]
	for _, lex := range q.Lexemes {
		t, ok := ix.terms[lex]
		if !ok || containsInt32(seenTerm, t) {
			continue
		}
		seenTerm = append(seenTerm, t)
		idf := ix.idf[t]
		for _, p := range ix.postings[ix.starts[t]:ix.starts[t+1]] {
			if ix.domains[p.doc] == excluded {
				continue
			}
			if s.scores[p.doc] == 0 {
				s.touched = append(s.touched, p.doc)
			}
			s.scores[p.doc] += idf * float64(p.tf) * (bm25K1 + 1) / float64(p.tf+ix.norm[p.doc])
		}
	}
	s.seenTerms = seenTerm
	top := s.top[:0]
	for _, d := range s.touched {
		sc := s.scores[d]
		s.scores[d] = 0
		if sc <= 0 {
			continue
		}
		h := scored{doc: d, score: sc, id: ix.ids[d]}
		if len(top) < limit {
			top = append(top, h)
			if len(top) == limit {
				heapify(top)
			}
			continue
		}
		if better(h, top[0]) {
			top[0] = h
			siftDown(top, 0)
		}
	}
	s.touched = s.touched[:0]
	slices.SortFunc(top, func(a, b scored) int { // best first
		switch {
		case better(a, b):
			return -1
		case better(b, a):
			return 1
		}
		return 0
	})
	cq := models.NewCosineQuery(q.Vec)
	out := make([]evidence.Candidate, len(top))
	for i, h := range top {
		out[i] = evidence.Candidate{FragmentID: h.id, Domain: ix.domainNames[ix.domains[h.doc]], Lexical: h.score,
			Similarity: cq.Quantized(ix.vecs[int(h.doc)*ix.dim:(int(h.doc)+1)*ix.dim], ix.vecNorms[h.doc])}
	}
	s.top = top[:0]
	return out
}

func containsInt32(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

type scratch struct {
	scores    []float64
	touched   []int32
	top       []scored
	seenTerms []int32
}

func (ix *Index) getScratch() *scratch {
	if s, ok := ix.scratch.Get().(*scratch); ok {
		return s
	}
	return &scratch{scores: make([]float64, len(ix.ids))}
}

type scored struct {
	doc   int32
	score float64
	id    int64
}

// better orders by score, then by the lower fragment id.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.id < b.id
}

// heapify orders top as a heap with the worst kept candidate first.
func heapify(top []scored) {
	for i := len(top)/2 - 1; i >= 0; i-- {
		siftDown(top, i)
	}
}

// siftDown moves top[i] down until no child of it is worse.
func siftDown(top []scored, i int) {
	for {
		w := 2*i + 1
		if w >= len(top) {
			return
		}
		if r := w + 1; r < len(top) && better(top[w], top[r]) {
			w = r // the worse child
		}
		if !better(top[i], top[w]) {
			return
		}
		top[i], top[w] = top[w], top[i]
		i = w
	}
}
