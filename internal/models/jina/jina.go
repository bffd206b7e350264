// Package jina implements models.Reranker against the Jina-style rerank API,
// POST /v1/rerank, served by Jina AI, vLLM, llama.cpp's server, Infinity and
// others:
//
//	{"model": m, "query": q, "documents": [...], "top_n": n, "return_documents": false}
//	→ {"model": m, "usage": {"total_tokens": N}, "results": [{"index": i, "relevance_score": s, "document": ...}]}
//
// "document" in a result may be a string, an object with "text", or absent;
// it is ignored. Reported usage tokens are counted as prompt tokens. An
// answer is read as a stream within httpx.RanksBound of its documents, their
// texts included (vLLM echoes them whatever return_documents says): past it,
// remoteerr.ErrBadResponse naming the bound.
package jina

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// DefaultBatchSize is the number of documents per request unless configured.
const DefaultBatchSize = 32

// Options configures a Reranker.
type Options struct {
	// BaseURL is the server's root or its /v1 prefix: both
	// http://vllm:8000 and http://vllm:8000/v1 post to http://vllm:8000/v1/rerank.
	BaseURL   string
	Model     string // sent as "model"; the stable model id is "jina:<Model>"
	APIKey    string // sent as "Authorization: Bearer <APIKey>" when set
	BatchSize int    // documents per request (default 32)
	// HTTP is the client to use; nil builds one with httpx defaults, backend
	// "jina", capability "rerank" and Observer. Usage tokens are reported to
	// the client's observer.
	HTTP     *httpx.Client
	Observer httpx.Observer // used only when HTTP is nil; nil records nothing
}

// Reranker is a models.Reranker speaking the Jina-style /v1/rerank API.
type Reranker struct {
	url, model, id string
	header         map[string][]string
	batch          int
	http           *httpx.Client
}

var _ models.Reranker = (*Reranker)(nil)

// New validates o and returns a Reranker.
func New(o Options) (*Reranker, error) {
	base, err := httpx.BaseURL(o.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("jina rerank: %w", err)
	}
	if o.Model == "" {
		return nil, fmt.Errorf("jina rerank: Model is required (the server selects the model by it)")
	}
	if o.BatchSize < 0 {
		return nil, fmt.Errorf("jina rerank: BatchSize %d is negative", o.BatchSize)
	}
	if !strings.HasSuffix(base, "/v1") {
		base += "/v1"
	}
	r := &Reranker{url: base + "/rerank", model: o.Model, id: "jina:" + o.Model, header: httpx.Bearer(o.APIKey), batch: o.BatchSize, http: o.HTTP}
	if r.batch == 0 {
		r.batch = DefaultBatchSize
	}
	if r.http == nil {
		r.http = httpx.New(httpx.Options{Backend: "jina", Capability: "rerank", Observer: o.Observer})
	}
	return r, nil
}

// Model returns "jina:<model>".
func (r *Reranker) Model() string { return r.id }

// request is the Jina-style rerank request.
type request struct {
	Model           string   `json:"model"`
	Query           string   `json:"query"`
	Documents       []string `json:"documents"`
	TopN            int      `json:"top_n"`
	ReturnDocuments bool     `json:"return_documents"`
}

// response is the Jina-style rerank response; pointers detect missing or
// null fields, and "document" is accepted in any shape and ignored.
type response struct {
	Results *[]struct {
		Index          *int            `json:"index"`
		RelevanceScore *float64        `json:"relevance_score"`
		Document       json.RawMessage `json:"document"`
	} `json:"results"`
	Usage *struct {
		PromptTokens *int `json:"prompt_tokens"`
		TotalTokens  *int `json:"total_tokens"`
	} `json:"usage"`
}

// Rerank returns one relevance score per document, in order. Documents go in
// batches of BatchSize with top_n equal to the batch size, so every document
// gets a score; a cross-encoder scores each (query, document) pair on its
// own, so scores of different batches are comparable. No request is made for
// an empty slice.
func (r *Reranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	out := make([]float64, len(docs))
	for lo := 0; lo < len(docs); lo += r.batch {
		hi := min(lo+r.batch, len(docs))
		req := request{Model: r.model, Query: query, Documents: docs[lo:hi], TopN: hi - lo, ReturnDocuments: false}
		var resp response
		// vLLM sends every document's text back whatever return_documents
		// says, so the bound allows for it.
		bound := httpx.RanksBound(docs[lo:hi], true)
		if err := r.http.PostJSON(ctx, r.url, r.header, req, bound, &resp, hi-lo); err != nil {
			return nil, err
		}
		if resp.Results == nil {
			return nil, r.bad("no \"results\" array")
		}
		idx := make([]*int, len(*resp.Results))
		scores := make([]*float64, len(*resp.Results))
		for i, res := range *resp.Results {
			idx[i], scores[i] = res.Index, res.RelevanceScore
		}
		got, err := models.ScoresByIndex(hi-lo, idx, scores)
		if err != nil {
			return nil, r.bad("%v", err)
		}
		copy(out[lo:hi], got)
		if u := resp.Usage; u != nil {
			tokens := u.TotalTokens
			if tokens == nil {
				tokens = u.PromptTokens
			}
			if tokens != nil {
				r.http.Observer().ModelTokens(r.http.Backend(), r.http.Capability(), "prompt", *tokens)
				cost.From(ctx).Tokens(*tokens, 0)
			}
		}
	}
	return out, nil
}

// bad counts a validation failure and returns a remoteerr.ErrBadResponse error
// naming the endpoint and the problem.
func (r *Reranker) bad(format string, args ...any) error {
	r.http.Observer().ModelError(r.http.Backend(), r.http.Capability(), "bad_response")
	return fmt.Errorf("%s %s %s: %w: %s", r.http.Backend(), r.http.Capability(), r.url, remoteerr.ErrBadResponse, fmt.Sprintf(format, args...))
}
