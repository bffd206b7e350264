package tei

import (
	"context"

	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/models"
)

// Reranker is a models.Reranker backed by TEI's POST /rerank with a
// cross-encoder reranker model.
type Reranker struct {
	e endpoint
}

var _ models.Reranker = (*Reranker)(nil)

// NewReranker validates o and returns a Reranker for {BaseURL}/rerank.
func NewReranker(o Options) (*Reranker, error) {
	e, err := newEndpoint(o, "/rerank", "rerank")
	if err != nil {
		return nil, err
	}
	return &Reranker{e: e}, nil
}

// Model returns "tei:<model>".
func (r *Reranker) Model() string { return r.e.model }

// rerankRequest is TEI's RerankRequest.
type rerankRequest struct {
	Query     string   `json:"query"`
	Texts     []string `json:"texts"`
	Truncate  bool     `json:"truncate"`
	RawScores bool     `json:"raw_scores"`
}

// rank is one of TEI's Rank objects; pointers detect missing or null fields.
type rank struct {
	Index *int     `json:"index"`
	Score *float64 `json:"score"`
}

// Rerank returns one score per document, in order. Documents go in batches
// of BatchSize; a cross-encoder scores each (query, document) pair on its own,
// so scores of different batches are comparable. TEI answers every text of
// a batch, sorted by score; the answer is mapped back by index. No request is
// made for an empty slice.
func (r *Reranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	out := make([]float64, len(docs))
	err := chunks(len(docs), r.e.batch, func(lo, hi int) error {
		var ranks []rank
		req := rerankRequest{Query: query, Texts: docs[lo:hi], Truncate: true, RawScores: false}
		// return_text is left at TEI's default, false: the answer holds
		// indices and scores only, and is bounded so.
		bound := httpx.RanksBound(docs[lo:hi], false)
		if err := r.e.http.PostJSON(ctx, r.e.url, r.e.header, req, bound, &ranks, hi-lo); err != nil {
			return err
		}
		idx := make([]*int, len(ranks))
		scores := make([]*float64, len(ranks))
		for i, rk := range ranks {
			idx[i], scores[i] = rk.Index, rk.Score
		}
		got, err := models.ScoresByIndex(hi-lo, idx, scores)
		if err != nil {
			return r.e.bad("%v", err)
		}
		copy(out[lo:hi], got)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
