package evidence

import (
	"math"
	"slices"
)

// Candidate is one evidence fragment considered for a claim.
type Candidate struct {
	FragmentID int64
	Domain     string
	Similarity float64 // cosine between claim and fragment embeddings
	// Lexical is the recall stage's score of the fragment for the claim
	// (BM25 in memory, ts_rank in Postgres); 0 when unknown.
	Lexical float64
	// Fused is the score fusion of Lexical and Similarity (see FuseScores);
	// 0 when not fused.
	Fused float64
}

// FuseScores sets each candidate's Fused score to the sum of its Lexical
// and Similarity scores, each standardised over cands (zero mean, unit
// variance): CombSUM of z-scores, the normalisation Montague and Aslam
// (CIKM 2001) found best for fusing retrieval scores. Unlike reciprocal rank
// fusion it keeps how far apart the scores are, so a clear lexical winner is
// not pulled down by a middling cosine rank, and its result does not depend
// on how many weak candidates recall returned. A signal that is constant
// over cands (or not finite) adds nothing. SelectPairs then ranks by Fused.
func FuseScores(cands []Candidate) {
	lex := standardiser(cands, func(c Candidate) float64 { return c.Lexical })
	cos := standardiser(cands, func(c Candidate) float64 { return c.Similarity })
	for i, c := range cands {
		cands[i].Fused = lex(c.Lexical) + cos(c.Similarity)
	}
}

// standardiser returns the z-score function of score over cands: (x − mean)
// / standard deviation, 0 for a non-finite x or when the deviation is 0.
func standardiser(cands []Candidate, score func(Candidate) float64) func(float64) float64 {
	var n, sum, sq float64
	for _, c := range cands {
		if x := score(c); !math.IsNaN(x) && !math.IsInf(x, 0) {
			n++
			sum += x
		}
	}
	if n == 0 {
		return func(float64) float64 { return 0 }
	}
	mean := sum / n
	for _, c := range cands {
		if x := score(c); !math.IsNaN(x) && !math.IsInf(x, 0) {
			sq += (x - mean) * (x - mean)
		}
	}
	sd := math.Sqrt(sq / n)
	return func(x float64) float64 {
		if !(sd > 0) || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0
		}
		return (x - mean) / sd
	}
}

// SelectLimits are the cut-offs of ARCHITECTURE.md §5.2.
type SelectLimits struct {
	// MinSimilarity is the embedder's cosine floor: a candidate without
	// lexical evidence (Lexical 0) is kept only with Similarity >=
	// MinSimilarity. A recalled candidate that shares terms with the claim
	// is not vetoed by one of the two signals its fused rank already
	// weighs: the floor is calibrated as the cosine below which a pair
	// shares no content word (builtin.HashEmbedderMinSimilarity), which
	// lexical recall has already ruled out.
	MinSimilarity float64
	TopK          int // then the TopK most similar
	MaxDomains    int // then only fragments from the first MaxDomains distinct domains in rank order
	MaxPairs      int // after dropping judged pairs, at most MaxPairs
}

// SelectPairs picks the fragments to judge for one claim, in the order of the
// Python original: rank first (similarity floor for candidates without
// lexical evidence, top_k, domain cap), then drop
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
	// Unfused candidates without lexical scores (every Fused and Lexical
	// 0) are in similarity order, and the floor applies to all of them.
	bySimilarity := !slices.ContainsFunc(cands, func(c Candidate) bool { return c.Fused != 0 || c.Lexical != 0 })
	n := len(cands)
	if lim.TopK > 0 {
		n = min(n, lim.TopK)
	}
	ranked := make([]Candidate, 0, n)
	domains := newDomainSet(lim.MaxDomains)
	for _, c := range cands {
		if c.Similarity < lim.MinSimilarity && c.Lexical == 0 {
			if bySimilarity {
				break // the rest are below the floor too
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
