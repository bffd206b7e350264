package builtin

import (
	"context"
	"fmt"

	"github.com/evidencefleet/evidencefleet/internal/modelcard"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/nlimodel"
)

// LearnedNLIModel is the model id of LearnedNLI.
const LearnedNLIModel = modelcard.BuiltinLearnedNLI

// LearnedNLI is the built-in NLI (internal/nlimodel): a logistic regression
// over lexical features trained on 148k labelled SNLI, MultiNLI and FEVER
// pairs (`make train-nli`). Its label is the most probable class, its
// confidence that class's probability, temperature-calibrated on held-out
// training pairs. It is deterministic and safe for concurrent use. The
// analyses of recently judged premises are kept across calls (textCache).
type LearnedNLI struct {
	m        *nlimodel.Model
	premises *textCache[*nlimodel.Text] // premises analysed in earlier calls
}

// learnedPremiseBytes bounds the estimated memory of a LearnedNLI's
// premise cache: about 1,000 premises of 300 bytes (an analysis is about
// 4 KiB). At 16 MiB the cache held up to 32 MiB of the worker's peak RSS
// (the collector lets the heap reach twice what is live) and saved no
// worker CPU measured: on the bench's 50,000-fragment task (few premises
// recur) worker peak RSS 154–158 → 131–140 MB at the same 31–34 CPU s per
// 1,000 jobs, and on the Climate-FEVER pipeline, whose premises all fit,
// 14.0–17.0 against 14.5–15.4 CPU s (three runs of each in turns,
// 2026-12-02).
const learnedPremiseBytes = 4 << 20

var _ models.NLI = (*LearnedNLI)(nil)

// NewLearnedNLI returns the learned NLI with the committed weights.
func NewLearnedNLI() (*LearnedNLI, error) {
	m, err := nlimodel.Default()
	if err != nil {
		return nil, fmt.Errorf("learned nli: %w", err)
	}
	return &LearnedNLI{m: m, premises: newTextCache(learnedPremiseBytes, nlimodel.Analyse, (*nlimodel.Text).Size)}, nil
}

// Model returns LearnedNLIModel.
func (*LearnedNLI) Model() string { return LearnedNLIModel }

// relations maps nlimodel.Labels onto the NLI relations.
var relations = [3]string{models.Supports, models.Neutral, models.Refutes}

// Judge returns one Judgement per pair. It fails only when ctx is done.
// Each distinct text of the call is analysed once, a premise only when no
// earlier call has.
func (n *LearnedNLI) Judge(ctx context.Context, pairs []models.Pair) ([]models.Judgement, error) {
	out := make([]models.Judgement, len(pairs))
	hyps, prems := map[string]*nlimodel.Text{}, map[string]*nlimodel.Text{}
	hypothesis := func(s string) *nlimodel.Text {
		t, ok := hyps[s]
		if !ok {
			t = nlimodel.Analyse(s)
			hyps[s] = t
		}
		return t
	}
	premise := func(s string) *nlimodel.Text {
		t, ok := prems[s]
		if !ok {
			t, _ = n.premises.get(s)
			prems[s] = t
		}
		return t
	}
	var buf []uint32
	for i, p := range pairs {
		if i&31 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("learned nli: pair %d: %w", i, err)
			}
		}
		pt, ht := premise(p.Premise), hypothesis(p.Hypothesis)
		probs := n.m.ScoresOf(pt, ht, &buf)
		best, conf := nlimodel.Top(probs)
		label := relations[best]
		out[i] = models.Judgement{Label: label, Confidence: conf,
			Distribution: models.Distribution{Supports: probs[0], Neutral: probs[1], Refutes: probs[2]},
			HoldBack:     label != models.Neutral && nlimodel.Attributed(pt, ht)}
	}
	return out, nil
}
