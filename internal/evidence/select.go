package evidence

import "slices"

// Candidate is one evidence fragment considered for a claim.
type Candidate struct {
	FragmentID int64
	Domain     string
	Similarity float64 // cosine between claim and fragment embeddings
	// Fused is the reciprocal-rank fusion of the candidate's lexical and
	// cosine ranks (see FuseRanks); 0 when not fused.
	Fused float64
}

// rrfK is the constant of reciprocal rank fusion (Cormack, Clarke and
// Büttcher 2009): a rank r counts 1/(rrfK+r).
const rrfK = 60

// FuseRanks sets each candidate's Fused score from its position in cands
// (the lexical recall order, best first) and its rank by Similarity: the
// sum of 1/(60+rank) of the two. SelectPairs then ranks by Fused.
func FuseRanks(cands []Candidate) {
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case cands[a].Similarity > cands[b].Similarity:
			return -1
		case cands[a].Similarity < cands[b].Similarity:
			return 1
		}
		return 0
	})
	for cosRank, i := range order {
		cands[i].Fused = 1/float64(rrfK+i+1) + 1/float64(rrfK+cosRank+1)
	}
}

// SelectLimits are the cut-offs of ARCHITECTURE.md §5.2.
type SelectLimits struct {
	MinSimilarity float64 // keep candidates with Similarity >= MinSimilarity
	TopK          int     // then the TopK most similar
	MaxDomains    int     // then only fragments from the first MaxDomains distinct domains in rank order
	MaxPairs      int     // after dropping judged pairs, at most MaxPairs
}

// SelectPairs picks the fragments to judge for one claim, in the order of the
// Python original: rank first (similarity floor, top_k, domain cap), then drop
// the pairs already judged, then cut to MaxPairs. A claim's judged set thus
// stays bounded by the fragments that ever rank in its top_k, and a re-run
// with no new fragments judges nothing. It returns the selection (best first)
// and how many ranked candidates were skipped as already judged.
// cands is reordered in place.
func SelectPairs(cands []Candidate, judged func(fragmentID int64) bool, lim SelectLimits) (selected []Candidate, skippedJudged int) {
	// slices.SortStableFunc runs the same algorithm as sort.SliceStable (both
	// are generated from one template) without reflection, and only asks
	// whether cmp < 0, so even NaN similarities land where they always did.
	slices.SortStableFunc(cands, func(a, b Candidate) int {
		if a.Fused != b.Fused {
			if a.Fused > b.Fused {
				return -1
			}
			return 1
		}
		if a.Similarity != b.Similarity {
			if a.Similarity > b.Similarity {
				return -1
			}
			return 1
		}
		if a.FragmentID < b.FragmentID {
			return -1
		}
		return 1
	})
	n := len(cands)
	if lim.TopK > 0 {
		n = min(n, lim.TopK)
	}
	ranked := make([]Candidate, 0, n)
	domains := newDomainSet(lim.MaxDomains)
	for _, c := range cands {
		if c.Similarity < lim.MinSimilarity {
			if c.Fused == 0 {
				break // ranked by similarity: the rest are below the floor too
			}
			continue
		}
		if len(ranked) >= lim.TopK && lim.TopK > 0 {
			break
		}
		if lim.MaxDomains > 0 && !domains.has(c.Domain) {
			if domains.len() >= lim.MaxDomains {
				continue
			}
			domains.add(c.Domain)
		}
		ranked = append(ranked, c)
	}
	n = len(ranked)
	if lim.MaxPairs > 0 {
		n = min(n, lim.MaxPairs)
	}
	for _, c := range ranked {
		if judged != nil && judged(c.FragmentID) {
			skippedJudged++
			continue
		}
		if lim.MaxPairs > 0 && len(selected) >= lim.MaxPairs {
			break
		}
		if selected == nil { // nil while nothing is selected
			selected = make([]Candidate, 0, n)
		}
		selected = append(selected, c)
	}
	return selected, skippedJudged
}

// domainSet is a set of domains: a short list for the usual handful, a map
// beyond.
type domainSet struct {
	list []string
	m    map[string]bool
}

// newDomainSet returns an empty set for about n domains.
func newDomainSet(n int) domainSet {
	if n > 16 {
		return domainSet{m: make(map[string]bool, n)}
	}
	return domainSet{list: make([]string, 0, n)}
}

func (s *domainSet) has(d string) bool {
	if s.m != nil {
		return s.m[d]
	}
	return slices.Contains(s.list, d)
}

func (s *domainSet) add(d string) {
	if s.m != nil {
		s.m[d] = true
		return
	}
	s.list = append(s.list, d)
}

func (s *domainSet) len() int {
	if s.m != nil {
		return len(s.m)
	}
	return len(s.list)
}
