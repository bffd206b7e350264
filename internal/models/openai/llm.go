package openaibackend

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/evidencefleet/evidencefleet/internal/models"
)

// NeutralRelevance is what Relevance returns when the model's answer arrived
// intact but its content is unusable (ARCHITECTURE.md §5.4: an unusable
// relevance counts 0.5 on the 0–1 scale, so 5 on the 0–10 scale).
const NeutralRelevance = 5.0

// llm implements models.LLM.
type llm struct{ c *client }

var _ models.LLM = (*llm)(nil)

// NewLLM returns a models.LLM that chats with {BaseURL}/chat/completions at
// temperature 0 with JSON-schema output. Model() is
// "openai:<model>+extract_claims.v1", so stored claims name the prompt
// version that produced them.
//
// ExtractClaims cuts the page text into pieces of at most MaxChunkChars (see
// Options), asks for at most MaxClaims claims per piece (up to Concurrency
// pieces at a time), and merges the answers in page order, dropping repeated
// claims (same text up to case and white space). When more than MaxClaims
// remain it keeps the MaxClaims most confident ones, in page order (ties:
// earlier first). A piece whose answer is unusable fails the whole call with
// remoteerr.ErrBadResponse; a piece answering more than MaxClaims claims is cut
// to its first MaxClaims. MaxClaims ≤ 0 or a blank text returns no claims
// without a request. Quotes are returned as the model wrote them (trimmed);
// callers check them against the page.
//
// Relevance answers a 0–10 score. Failures of the transport or the server
// (connection, timeout, 429, 5xx, 4xx, open breaker) and an answer that is not
// a chat.completion object at all (remoteerr.ErrUnavailable,
// remoteerr.ErrRejected, remoteerr.ErrBadResponse) are returned as errors, so
// that the job waits and retries. Only a well-formed chat.completion whose
// content is unusable — not JSON, not {"score": number}, cut off by max_tokens,
// refused, empty — falls back to NeutralRelevance with a nil error (counted as
// a "bad_response" model error). A numeric score outside [0,10] is clamped,
// like the seed's parser does. A blank text scores 0 without a request.
// CitationRelevance follows the same rules (a blank candidate scores 0);
// the source and the candidate are each cut to their first piece.
// SplitHypothesis (split.go) refuses a junk answer with an error instead.
func NewLLM(o Options) (models.LLM, error) {
	c, err := newClient(o)
	if err != nil {
		return nil, err
	}
	return &llm{c: c}, nil
}

// Model implements models.LLM.
func (l *llm) Model() string { return "openai:" + l.c.model + "+" + PromptExtractClaims }

// claimsAnswer is the schema of an extraction answer; pointers detect
// missing fields.
type claimsAnswer struct {
	Claims *[]struct {
		Claim      *string  `json:"claim"`
		Quote      *string  `json:"quote"`
		Confidence *float64 `json:"confidence"`
	} `json:"claims"`
}

// ExtractClaims implements models.LLM.
func (l *llm) ExtractClaims(ctx context.Context, req models.ClaimRequest) ([]models.LLMClaim, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.MaxClaims <= 0 {
		return nil, nil
	}
	chunks := splitChunks(req.Text, l.c.chunkChars)
	perChunk := make([][]models.LLMClaim, len(chunks))
	err := forEach(ctx, len(chunks), l.c.concurrency, func(ctx context.Context, i int) error {
		msgs, err := render(extractTmpl, extractData{
			URL: req.URL, Title: req.Title, Text: chunks[i], MaxClaims: req.MaxClaims, Part: i + 1, Parts: len(chunks),
		})
		if err != nil {
			return err
		}
		content, err := l.c.chat(ctx, "llm", msgs, claimsSchema, l.c.maxTokens)
		if err != nil {
			return err
		}
		claims, err := parseClaims(content, req.MaxClaims)
		if err != nil {
			return l.c.bad("llm", err)
		}
		perChunk[i] = claims
		return nil
	})
	if err != nil {
		if len(chunks) > 1 {
			return nil, fmt.Errorf("extracting claims from %d pieces of %s: %w", len(chunks), req.URL, err)
		}
		return nil, err
	}
	return mergeClaims(perChunk, req.MaxClaims), nil
}

// parseClaims decodes and checks an extraction answer, keeping at most max claims.
func parseClaims(content string, max int) ([]models.LLMClaim, error) {
	var a claimsAnswer
	if err := decodeContent(content, &a); err != nil {
		return nil, err
	}
	if a.Claims == nil {
		return nil, contentErrorf(`the answer has no "claims" array (content starts %q)`, snippet(content, 120))
	}
	out := make([]models.LLMClaim, 0, min(len(*a.Claims), max))
	for i, c := range *a.Claims {
		switch {
		case c.Claim == nil || c.Quote == nil || c.Confidence == nil:
			return nil, contentErrorf(`claims[%d] lacks "claim", "quote" or "confidence"`, i)
		case strings.TrimSpace(*c.Claim) == "":
			return nil, contentErrorf("claims[%d] has an empty claim", i)
		case strings.TrimSpace(*c.Quote) == "":
			return nil, contentErrorf("claims[%d] has an empty quote", i)
		case !(*c.Confidence >= 0 && *c.Confidence <= 1): // also NaN
			return nil, contentErrorf("claims[%d] has confidence %v outside [0,1]", i, *c.Confidence)
		}
		if len(out) < max {
			out = append(out, models.LLMClaim{
				Claim: strings.TrimSpace(*c.Claim), Quote: strings.TrimSpace(*c.Quote), Confidence: *c.Confidence,
			})
		}
	}
	return out, nil
}

// mergeClaims concatenates the pieces' claims in page order, drops repeated
// claim texts and, above max, keeps the max most confident (ties: earlier),
// still in page order.
func mergeClaims(perChunk [][]models.LLMClaim, max int) []models.LLMClaim {
	var all []models.LLMClaim
	seen := map[string]bool{}
	for _, cs := range perChunk {
		for _, c := range cs {
			key := strings.ToLower(strings.Join(strings.Fields(c.Claim), " "))
			if seen[key] {
				continue
			}
			seen[key] = true
			all = append(all, c)
		}
	}
	if len(all) <= max {
		return all
	}
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case all[a].Confidence > all[b].Confidence:
			return -1
		case all[a].Confidence < all[b].Confidence:
			return 1
		}
		return 0
	})
	idx = idx[:max]
	slices.Sort(idx)
	out := make([]models.LLMClaim, len(idx))
	for i, j := range idx {
		out[i] = all[j]
	}
	return out
}

// Relevance implements models.LLM; see NewLLM for the fallback rule.
func (l *llm) Relevance(ctx context.Context, query, text string) (float64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	text = firstChunk(text, l.c.chunkChars)
	if text == "" {
		return 0, nil
	}
	msgs, err := render(relevanceTmpl, relevanceData{Query: query, Text: text})
	if err != nil {
		return 0, err
	}
	return l.score(ctx, msgs, relevanceSchema)
}

// CitationRelevance implements models.LLM; see NewLLM for the fallback rule.
func (l *llm) CitationRelevance(ctx context.Context, q models.CitationQuestion) (float64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	data := citationData{Hypothesis: q.Hypothesis, Source: firstChunk(q.Source, l.c.chunkChars),
		Candidate: firstChunk(q.Candidate, l.c.chunkChars)}
	if data.Candidate == "" {
		return 0, nil
	}
	msgs, err := render(citationTmpl, data)
	if err != nil {
		return 0, err
	}
	return l.score(ctx, msgs, citationSchema)
}

// score asks for a {"score": number} answer; see NewLLM for the fallback rule.
func (l *llm) score(ctx context.Context, msgs []openai.ChatCompletionMessage, s schema) (float64, error) {
	content, err := l.c.chat(ctx, "llm", msgs, s, l.c.shortTokens())
	if err == nil {
		var score float64
		score, err = parseScore(content)
		if err == nil {
			return score, nil
		}
		l.c.bad("llm", err)
	}
	if isContentError(err) {
		return NeutralRelevance, nil
	}
	return 0, err
}

// parseScore decodes {"score": number} and clamps it to [0,10].
func parseScore(content string) (float64, error) {
	var a struct {
		Score *float64 `json:"score"`
	}
	if err := decodeContent(content, &a); err != nil {
		return 0, err
	}
	switch {
	case a.Score == nil:
		return 0, contentErrorf(`the answer has no "score" (content starts %q)`, snippet(content, 120))
	case math.IsNaN(*a.Score) || math.IsInf(*a.Score, 0):
		return 0, contentErrorf("score %v is not finite", *a.Score)
	}
	return math.Min(10, math.Max(0, *a.Score)), nil
}
