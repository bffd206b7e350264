package evidence

import "sort"

// Candidate is one evidence fragment considered for a claim.
type Candidate struct {
	FragmentID int64
	Domain     string
	Similarity float64 // cosine between claim and fragment embeddings
}

// SelectLimits are the cut-offs of DESIGN §5.2.
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
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].Similarity != cands[j].Similarity {
			return cands[i].Similarity > cands[j].Similarity
		}
		return cands[i].FragmentID < cands[j].FragmentID
	})
	ranked := cands[:0:0]
	domains := make(map[string]bool, lim.MaxDomains)
	for _, c := range cands {
		if c.Similarity < lim.MinSimilarity || len(ranked) >= lim.TopK && lim.TopK > 0 {
			break
		}
		if lim.MaxDomains > 0 && !domains[c.Domain] {
			if len(domains) >= lim.MaxDomains {
				continue
			}
			domains[c.Domain] = true
		}
		ranked = append(ranked, c)
	}
	for _, c := range ranked {
		if judged != nil && judged(c.FragmentID) {
			skippedJudged++
			continue
		}
		if lim.MaxPairs > 0 && len(selected) >= lim.MaxPairs {
			break
		}
		selected = append(selected, c)
	}
	return selected, skippedJudged
}
