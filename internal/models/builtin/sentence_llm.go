package builtin

import (
	"context"

	"github.com/evidencefleet/evidencefleet/internal/modelcard"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/sentence"
)

// SentenceLLMModel is the model id of SentenceLLM.
const SentenceLLMModel = modelcard.BuiltinSentenceLLM

// SentenceLLM is the built-in, deterministic stand-in for an LLM — a
// BASELINE, not a language model. ExtractClaims proposes the page's most
// checkable declarative sentences (sentence.Claims) as claims, each
// quoting itself, with the sentence score as confidence. Relevance is the
// hashed n-gram cosine of query and text scaled to 0–10; CitationRelevance
// is the Relevance of the candidate to the hypothesis (a heuristic: the
// candidate's likeness to the source already counts in stage 1).
// A SentenceLLM is safe for concurrent use.
type SentenceLLM struct {
	embed *HashEmbedder
}

var _ models.LLM = (*SentenceLLM)(nil)

// NewSentenceLLM returns the built-in claim extractor.
func NewSentenceLLM() *SentenceLLM { return &SentenceLLM{embed: NewHashEmbedder(256)} }

// Model implements LLM.
func (*SentenceLLM) Model() string { return SentenceLLMModel }

// ExtractClaims implements LLM.
func (*SentenceLLM) ExtractClaims(ctx context.Context, req models.ClaimRequest) ([]models.LLMClaim, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	runes := []rune(req.Text)
	var out []models.LLMClaim
	for _, c := range sentence.Claims(req.Text, req.MaxClaims) {
		q := string(runes[c.QuoteStart:c.QuoteEnd])
		out = append(out, models.LLMClaim{Claim: c.Text, Quote: q, Confidence: c.Confidence})
	}
	return out, nil
}

// Relevance implements LLM: 10 × max(0, cosine of the hashed n-gram embeddings).
func (l *SentenceLLM) Relevance(ctx context.Context, query, text string) (float64, error) {
	vs, err := l.embed.Embed(ctx, []string{query, text})
	if err != nil {
		return 0, err
	}
	return 10 * max(0, models.Cosine(vs[0], vs[1])), nil
}

// CitationRelevance implements LLM: Relevance(q.Hypothesis, q.Candidate).
func (l *SentenceLLM) CitationRelevance(ctx context.Context, q models.CitationQuestion) (float64, error) {
	return l.Relevance(ctx, q.Hypothesis, q.Candidate)
}

// SplitModel implements LLM.
func (*SentenceLLM) SplitModel() string { return SentenceLLMModel }

// SplitHypothesis implements LLM: it proposes no sub-claims. Splitting a
// hypothesis into what it depends on takes a language model; the baseline
// does not guess (a fleet without an LLM backend proposes no claim links).
func (*SentenceLLM) SplitHypothesis(ctx context.Context, _ string) ([]string, error) {
	return nil, ctx.Err()
}
