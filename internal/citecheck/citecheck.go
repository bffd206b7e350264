// Package citecheck examines a citation graph (cites edges between pages)
// for the patterns a reader should know about: cycles (papers citing each
// other round a loop, which citation order makes suspicious), round trips
// (two papers citing each other), self-citations (citing and cited papers
// sharing an author) and same-domain citations (a web page citing a page of
// its own site). It reports them; it applies no penalty — trust and these
// checks never enter a claim's posterior (ARCHITECTURE.md §5.1), and the Python
// original's penalty values are not part of this design.
package citecheck

import (
	"slices"
	"strings"
)

// Edge is one cites edge: Citing cites Cited.
type Edge struct {
	Citing, Cited int64
}

// Page is what the checks read of a page.
type Page struct {
	Domain  string
	Authors []string
}

// Pair is one flagged citation.
type Pair struct {
	Citing  int64    `json:"citing_page_id"`
	Cited   int64    `json:"cited_page_id"`
	Authors []string `json:"shared_authors,omitempty"`
	Domain  string   `json:"domain,omitempty"`
}

// Report is the result of Check; every list is sorted and never nil.
type Report struct {
	Cycles        [][]int64  `json:"cycles"`      // strongly connected groups of 2+ pages, each sorted
	RoundTrips    [][2]int64 `json:"round_trips"` // A cites B and B cites A, A < B
	SelfCitations []Pair     `json:"self_citations"`
	SameDomain    []Pair     `json:"same_domain"`
}

// ResolverDomains are domains that only resolve identifiers (every paper
// page of a DOI lives there): citations between them are not same-site.
var ResolverDomains = []string{"doi.org"}

// Check examines edges between pages.
func Check(edges []Edge, pages map[int64]Page) Report {
	r := Report{Cycles: [][]int64{}, RoundTrips: [][2]int64{}, SelfCitations: []Pair{}, SameDomain: []Pair{}}
	has := map[Edge]bool{}
	adj := map[int64][]int64{}
	var nodes []int64
	seen := map[int64]bool{}
	for _, e := range edges {
		if e.Citing == e.Cited || has[e] {
			continue
		}
		has[e] = true
		adj[e.Citing] = append(adj[e.Citing], e.Cited)
		for _, n := range []int64{e.Citing, e.Cited} {
			if !seen[n] {
				seen[n] = true
				nodes = append(nodes, n)
			}
		}
	}
	slices.Sort(nodes)
	for _, n := range nodes {
		slices.Sort(adj[n])
	}
	for e := range has {
		if e.Citing < e.Cited && has[Edge{e.Cited, e.Citing}] {
			r.RoundTrips = append(r.RoundTrips, [2]int64{e.Citing, e.Cited})
		}
		a, b := pages[e.Citing], pages[e.Cited]
		if shared := sharedAuthors(a.Authors, b.Authors); len(shared) > 0 {
			r.SelfCitations = append(r.SelfCitations, Pair{Citing: e.Citing, Cited: e.Cited, Authors: shared})
		}
		if a.Domain != "" && a.Domain == b.Domain && !slices.Contains(ResolverDomains, a.Domain) {
			r.SameDomain = append(r.SameDomain, Pair{Citing: e.Citing, Cited: e.Cited, Domain: a.Domain})
		}
	}
	if c := stronglyConnected(nodes, adj); c != nil {
		r.Cycles = c
	}
	slices.SortFunc(r.RoundTrips, func(x, y [2]int64) int { return cmpPair(x[0], x[1], y[0], y[1]) })
	byEdge := func(x, y Pair) int { return cmpPair(x.Citing, x.Cited, y.Citing, y.Cited) }
	slices.SortFunc(r.SelfCitations, byEdge)
	slices.SortFunc(r.SameDomain, byEdge)
	return r
}

func cmpPair(a1, a2, b1, b2 int64) int {
	switch {
	case a1 != b1:
		return cmp(a1, b1)
	default:
		return cmp(a2, b2)
	}
}

func cmp(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sharedAuthors returns the author names both lists hold (case and spacing
// folded), in the first list's order.
func sharedAuthors(a, b []string) []string {
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	in := map[string]bool{}
	for _, x := range b {
		if n := norm(x); n != "" {
			in[n] = true
		}
	}
	var out []string
	for _, x := range a {
		if n := norm(x); in[n] && !slices.Contains(out, strings.TrimSpace(x)) {
			out = append(out, strings.TrimSpace(x))
		}
	}
	return out
}

// stronglyConnected returns the strongly connected components of two or
// more nodes (Tarjan's algorithm), each sorted, sorted by first node.
func stronglyConnected(nodes []int64, adj map[int64][]int64) [][]int64 {
	index := map[int64]int{}
	low := map[int64]int{}
	onStack := map[int64]bool{}
	var stack []int64
	var out [][]int64
	next := 0
	var visit func(v int64)
	visit = func(v int64) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range adj[v] {
			if _, ok := index[w]; !ok {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var comp []int64
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			if len(comp) > 1 {
				slices.Sort(comp)
				out = append(out, comp)
			}
		}
	}
	for _, v := range nodes {
		if _, ok := index[v]; !ok {
			visit(v)
		}
	}
	slices.SortFunc(out, func(a, b []int64) int { return cmp(a[0], b[0]) })
	return out
}
