package taskindex

import (
	"maps"
	"slices"
)

// PageCount is how many of a page version's fragments are embedded for the
// index's model in the database now.
type PageCount struct {
	PageVersion int64
	Embedded    int32
}

// Changes compares the index with the task's page versions now: the page
// versions with fragments the index lacks (new to the task, or with more
// embedded fragments than when indexed), how many fragments it lacks, and
// whether the index holds nothing the task no longer has. When it does not
// (a page version left the task, or has fewer embedded fragments than the
// index holds: an embedding replaced under another model), the index cannot
// be extended and must be built again. An embedding once stored for a model is not taken away, so
// equal counts are the same fragments.
func (ix *Index) Changes(now []PageCount) (changed []int64, more int, extendable bool) {
	seen := 0
	for _, p := range now {
		have, ok := ix.pages[p.PageVersion]
		if ok {
			seen++
		}
		switch {
		case p.Embedded < have:
			return nil, 0, false
		case p.Embedded > have:
			changed = append(changed, p.PageVersion)
			more += int(p.Embedded - have)
		}
	}
	return changed, more, seen == len(ix.pages)
}

// Extend returns a builder that holds the index's fragments, ready to add
// about more fragments of the changed page versions (Changes); those of
// them the index already holds are skipped. The index itself is not changed and
// stays in use. Finish makes the index a Build of all the fragments would:
// the same candidates with the same scores (BM25's statistics are made
// again over all of them, and the index does not depend on the order its
// fragments came in).
func (ix *Index) Extend(changed []int64, more int) *Builder {
	more = max(more, 0)
	grown := func(n int) int { return n + n*more/max(len(ix.ids), 1) } // room for the new fragments' share
	b := &Builder{
		sites: map[string]string{},
		ix: &Index{
			ids:         append(make([]int64, 0, len(ix.ids)+more), ix.ids...),
			domains:     append(make([]int32, 0, len(ix.ids)+more), ix.domains...),
			vecs:        append(make([]int8, 0, len(ix.vecs)+more*ix.dim), ix.vecs...),
			vecNorms:    append(make([]float32, 0, len(ix.ids)+more), ix.vecNorms...),
			dim:         ix.dim,
			terms:       maps.Clone(ix.terms),
			domainNames: slices.Clone(ix.domainNames),
			domainIDs:   maps.Clone(ix.domainIDs),
			lengths:     append(make([]int32, 0, len(ix.ids)+more), ix.lengths...),
			docPages:    append(make([]int64, 0, len(ix.ids)+more), ix.docPages...),
			pages:       maps.Clone(ix.pages),
		},
		terms:   int32(len(ix.terms)),
		pending: make([]termPosting, 0, grown(len(ix.postings))+more),
	}
	for t := range int32(len(ix.starts) - 1) {
		for _, p := range ix.postings[ix.starts[t]:ix.starts[t+1]] {
			b.pending = append(b.pending, termPosting{term: t, posting: p})
		}
	}
	for _, l := range ix.lengths {
		b.total += float64(l)
	}
	if len(changed) > 0 {
		pages := make(map[int64]bool, len(changed))
		for _, pv := range changed {
			pages[pv] = true
		}
		b.known = map[int64]bool{}
		for d, pv := range ix.docPages {
			if pages[pv] {
				b.known[ix.ids[d]] = true
			}
		}
	}
	return b
}
