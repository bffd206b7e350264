package belief

import (
	"cmp"
	"fmt"
	"slices"
)

// Claim link relations (claim_links.relation).
const (
	DependsOn   = "depends_on"
	Contradicts = "contradicts"
)

// Link is one accepted claim link: From depends on To (or contradicts it),
// so To's propagated belief flows into From, times Weight, with sign −1 for
// Contradicts.
type Link struct {
	From, To int64
	Relation string
	Weight   float64
}

// ErrCycle is the error of links that hold a cycle.
type ErrCycle struct{ Path []int64 }

func (e *ErrCycle) Error() string { return fmt.Sprintf("claim links form a cycle %v", e.Path) }

// CycleFrom returns a cycle through start, following From → To
// ("depends on"), as the claims it passes, start first and last; nil when
// there is none. Adding a link a → b makes a cycle exactly when
// CycleFrom(links+{a→b}, a) is not nil.
func CycleFrom(links []Link, start int64) []int64 {
	out := outgoing(links)
	seen := map[int64]bool{}
	var path []int64
	var walk func(n int64) bool
	walk = func(n int64) bool {
		path = append(path, n)
		for _, m := range out[n] {
			if m == start {
				path = append(path, m)
				return true
			}
			if !seen[m] {
				seen[m] = true
				if walk(m) {
					return true
				}
			}
		}
		path = path[:len(path)-1]
		return false
	}
	if walk(start) {
		return path
	}
	return nil
}

// Descendants are the claims whose propagated belief depends on one of ids:
// those that depend on them, directly or not (ids themselves left out
// unless reached), in id order.
func Descendants(links []Link, ids []int64) []int64 {
	in := map[int64][]int64{}
	for _, l := range links {
		in[l.To] = append(in[l.To], l.From)
	}
	seen := map[int64]bool{}
	queue := slices.Clone(ids)
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range in[n] {
			if !seen[m] {
				seen[m] = true
				queue = append(queue, m)
			}
		}
	}
	var outIDs []int64
	for n := range seen {
		outIDs = append(outIDs, n)
	}
	slices.Sort(outIDs)
	return outIDs
}

// Propagate is one pass over the claims in topological order (every claim
// after those it depends on): propagated(n) = local(n) + Σ over n's links
// of propagated(To) · Weight · sign. A parent's propagated log-odds flows
// on, not its local one, so a chain passes belief along its whole length.
// A claim missing from local counts 0. Links holding a cycle are an
// *ErrCycle.
func Propagate(local map[int64]float64, links []Link) (map[int64]float64, error) {
	links = slices.Clone(links)
	slices.SortFunc(links, func(a, b Link) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To)) })
	byFrom := map[int64][]Link{}
	nodes := map[int64]bool{}
	for n := range local {
		nodes[n] = true
	}
	for _, l := range links {
		byFrom[l.From] = append(byFrom[l.From], l)
		nodes[l.From], nodes[l.To] = true, true
	}
	ids := make([]int64, 0, len(nodes))
	for n := range nodes {
		ids = append(ids, n)
	}
	slices.Sort(ids)
	out := make(map[int64]float64, len(ids))
	const visiting, done = 1, 2
	state := map[int64]int{}
	var path []int64
	var visit func(n int64) error
	visit = func(n int64) error {
		switch state[n] {
		case done:
			return nil
		case visiting:
			i := slices.Index(path, n)
			return &ErrCycle{Path: append(slices.Clone(path[i:]), n)}
		}
		state[n] = visiting
		path = append(path, n)
		v := local[n]
		for _, l := range byFrom[n] {
			if err := visit(l.To); err != nil {
				return err
			}
			sign := 1.0
			if l.Relation == Contradicts {
				sign = -1
			}
			v += out[l.To] * l.Weight * sign
		}
		path = path[:len(path)-1]
		state[n], out[n] = done, v
		return nil
	}
	for _, n := range ids {
		if err := visit(n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func outgoing(links []Link) map[int64][]int64 {
	out := map[int64][]int64{}
	for _, l := range links {
		out[l.From] = append(out[l.From], l.To)
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}
