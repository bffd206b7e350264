package openaibackend

import (
	"context"
	"fmt"

	"github.com/evidencefleet/evidencefleet/internal/models"
)

// nli implements models.NLI through the chat model.
type nli struct{ c *client }

var _ models.NLI = (*nli)(nil)

// NewNLI returns a models.NLI that asks the chat model about each pair (one
// request per pair, at most Concurrency at a time) with the nli.v1 prompt and
// maps entailment → models.Supports, contradiction → models.Refutes, neutral →
// models.Neutral. Model() is "openai-nli:<model>+nli.v1". Premise and
// hypothesis are cut to MaxChunkChars. A pair whose answer is unusable is
// judged models.Unjudgeable (and counted as a bad response); the others go
// on. A failed request fails the whole call. It is a fallback for servers without an NLI cross-encoder: slower and
// costlier per pair than TEI's /predict.
func NewNLI(o Options) (models.NLI, error) {
	c, err := newClient(o)
	if err != nil {
		return nil, err
	}
	return &nli{c: c}, nil
}

// Model implements models.NLI.
func (n *nli) Model() string { return "openai-nli:" + n.c.model + "+" + PromptNLI }

// nliLabels maps the model's labels to relations.
var nliLabels = map[string]string{"entailment": models.Supports, "contradiction": models.Refutes, "neutral": models.Neutral}

// Judge implements models.NLI.
func (n *nli) Judge(ctx context.Context, pairs []models.Pair) ([]models.Judgement, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]models.Judgement, len(pairs))
	err := forEach(ctx, len(pairs), n.c.concurrency, func(ctx context.Context, i int) error {
		msgs, err := render(nliTmpl, nliData{
			Premise:    firstChunk(pairs[i].Premise, n.c.chunkChars),
			Hypothesis: firstChunk(pairs[i].Hypothesis, n.c.chunkChars),
		})
		if err != nil {
			return err
		}
		content, err := n.c.chat(ctx, "nli", msgs, nliSchema, n.c.shortTokens())
		if err != nil {
			return fmt.Errorf("pair %d: %w", i, err)
		}
		j, err := parseJudgement(content)
		if err != nil {
			_ = n.c.bad("nli", err) // counted; this pair alone is unjudgeable
			j = models.Judgement{Label: models.Unjudgeable}
		}
		out[i] = j
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// parseJudgement decodes {"label": …, "confidence": …}.
func parseJudgement(content string) (models.Judgement, error) {
	var a struct {
		Label      *string  `json:"label"`
		Confidence *float64 `json:"confidence"`
	}
	if err := decodeContent(content, &a); err != nil {
		return models.Judgement{}, err
	}
	if a.Label == nil || a.Confidence == nil {
		return models.Judgement{}, contentErrorf(`the answer lacks "label" or "confidence" (content starts %q)`, snippet(content, 120))
	}
	rel, ok := nliLabels[*a.Label]
	if !ok {
		return models.Judgement{}, contentErrorf(`label %q is not "entailment", "contradiction" or "neutral"`, *a.Label)
	}
	if !(*a.Confidence >= 0 && *a.Confidence <= 1) {
		return models.Judgement{}, contentErrorf("confidence %v outside [0,1]", *a.Confidence)
	}
	return models.Judgement{Label: rel, Confidence: *a.Confidence}, nil
}
