package ml_test

import (
	"context"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/ml"
)

// minNLIConfidence is the fleet's default min_nli_confidence (DESIGN §5.2).
const minNLIConfidence = 0.6

// TestLexicalNLIAccuracy evaluates LexicalNLI on the shared NLI samples,
// logs accuracy and per-class F1, and requires an accuracy above the
// majority-class rate of each file.
func TestLexicalNLIAccuracy(t *testing.T) {
	nli := ml.NewLexicalNLI()
	for _, name := range nliFiles {
		t.Run(name, func(t *testing.T) {
			rows := loadNLI(t, name)
			pairs := make([]ml.Pair, len(rows))
			for i, r := range rows {
				pairs[i] = ml.Pair{Premise: r.Premise, Hypothesis: r.Hypothesis}
			}
			out, err := nli.Judge(context.Background(), pairs)
			if err != nil {
				t.Fatal(err)
			}
			var c ml.Confusion
			kept, keptOK := 0, 0 // supports/refutes at or above min_nli_confidence
			for i, j := range out {
				c.Add(rows[i].Gold, j.Label)
				if j.Label != ml.Neutral && j.Confidence >= minNLIConfidence {
					kept++
					if j.Label == rows[i].Gold {
						keptOK++
					}
				}
			}
			if kept > 0 {
				t.Logf("%s: %d supports/refutes judgements with confidence >= %.1f, precision %.3f",
					name, kept, minNLIConfidence, float64(keptOK)/float64(kept))
			}
			t.Logf("%s: accuracy=%.3f macroF1=%.3f F1 supports=%.3f refutes=%.3f neutral=%.3f (majority %.3f)\n%s",
				name, c.Accuracy(), c.MacroF1(), c.F1(ml.Supports), c.F1(ml.Refutes), c.F1(ml.Neutral), c.MajorityRate(), c.String())
			if c.Accuracy() <= c.MajorityRate() {
				t.Errorf("%s: accuracy %.3f not above majority-class rate %.3f", name, c.Accuracy(), c.MajorityRate())
			}
		})
	}
}
