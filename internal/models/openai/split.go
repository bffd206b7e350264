package openaibackend

import (
	"context"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// SplitModel implements models.LLM: "openai:<model>+split_hypothesis.v1".
func (l *llm) SplitModel() string { return "openai:" + l.c.model + "+" + PromptSplitHypothesis }

// SplitHypothesis implements models.LLM with the split_hypothesis.v1
// prompt. A blank hypothesis has no sub-claims (no request). The answer
// must be {"sub_claims": [string]} with at most models.MaxSubClaims
// non-empty sub-claims of at most jobs.MaxTextRunes characters each;
// anything else — not JSON, more sub-claims than asked for, an empty or
// over-long one — fails the call with remoteerr.ErrBadResponse naming the
// fault (nothing is proposed from a junk answer). Repeats (same text up to
// case and white space) and a restatement of the hypothesis are dropped.
// Transport and server failures are returned as they are.
func (l *llm) SplitHypothesis(ctx context.Context, hypothesis string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	hypothesis = strings.TrimSpace(hypothesis)
	if hypothesis == "" {
		return nil, nil
	}
	msgs, err := render(splitTmpl, splitData{Hypothesis: hypothesis, MaxSubClaims: models.MaxSubClaims})
	if err != nil {
		return nil, err
	}
	content, err := l.c.chat(ctx, "llm", msgs, splitSchema, l.c.maxTokens)
	if err != nil {
		return nil, err
	}
	subs, err := parseSubClaims(content, hypothesis)
	if err != nil {
		return nil, l.c.bad("llm", err)
	}
	return subs, nil
}

// parseSubClaims decodes and checks a split answer.
func parseSubClaims(content, hypothesis string) ([]string, error) {
	var a struct {
		SubClaims *[]*string `json:"sub_claims"`
	}
	if err := decodeContent(content, &a); err != nil {
		return nil, err
	}
	if a.SubClaims == nil {
		return nil, contentErrorf(`the answer has no "sub_claims" array (content starts %q)`, snippet(content, 120))
	}
	if n := len(*a.SubClaims); n > models.MaxSubClaims {
		return nil, contentErrorf("the answer has %d sub-claims, more than the %d asked for", n, models.MaxSubClaims)
	}
	seen := map[string]bool{fold(hypothesis): true}
	var out []string
	for i, s := range *a.SubClaims {
		if s == nil || strings.TrimSpace(*s) == "" {
			return nil, contentErrorf("sub_claims[%d] is empty", i)
		}
		text := strings.TrimSpace(*s)
		if err := jobs.CheckText(text, jobs.MaxTextRunes); err != nil {
			return nil, contentErrorf("sub_claims[%d] %v", i, err)
		}
		if key := fold(text); !seen[key] {
			seen[key] = true
			out = append(out, text)
		}
	}
	return out, nil
}

// fold is a text's identity up to case and white space.
func fold(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
