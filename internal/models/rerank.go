package models

import (
	"fmt"
	"math"
)

// ScoresByIndex maps a rerank answer's (index, score) results back onto n
// documents: the wire formats of the HTTP rerankers (TEI's /rerank, the
// Jina-style /v1/rerank) answer in score order, each result naming the
// document it scores. It rejects a missing or null index or score, an index
// outside [0,n), a duplicate index, a non-finite score and any document left
// without a score.
func ScoresByIndex(n int, idx []*int, scores []*float64) ([]float64, error) {
	if len(idx) != n || len(scores) != n {
		return nil, fmt.Errorf("%d results for %d documents", len(idx), n)
	}
	out := make([]float64, n)
	seen := make([]bool, n)
	for i := range idx {
		if idx[i] == nil {
			return nil, fmt.Errorf("result %d has no index", i)
		}
		k := *idx[i]
		if k < 0 || k >= n {
			return nil, fmt.Errorf("result %d has index %d outside [0,%d)", i, k, n)
		}
		if seen[k] {
			return nil, fmt.Errorf("index %d appears twice", k)
		}
		if scores[i] == nil {
			return nil, fmt.Errorf("result %d (index %d) has no score", i, k)
		}
		if s := *scores[i]; math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("result %d (index %d) has score %v", i, k, s)
		}
		seen[k] = true
		out[k] = *scores[i]
	}
	return out, nil
}
