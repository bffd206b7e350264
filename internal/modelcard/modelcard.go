// Package modelcard says what is known of a model id: whether it is one of
// the built-in deterministic baselines, and how well it was measured to do.
// Reports, exports and the worker's start-up log use it to say plainly when
// a judgement comes from a baseline rather than a trained model.
//
// It holds names and figures only, never a model: it imports the standard
// library only, so the enqueue CLI that prints its banner links no model,
// parser or crawler (the ids of the built-ins are declared here and
// internal/models/builtin takes them from here).
package modelcard

import (
	"fmt"
	"slices"
	"strings"
)

// builtinPrefix starts the id of every built-in model.
const builtinPrefix = "builtin-"

// The model ids of the built-in deterministic baselines of
// internal/models/builtin.
const (
	BuiltinHashEmbedder = builtinPrefix + "hash-ngram-v1"      // builtin.HashEmbedder
	BuiltinEmbedder     = builtinPrefix + "hash-glove-v1"      // builtin.HybridEmbedder
	BuiltinLearnedNLI   = builtinPrefix + "learned-nli-v2"     // builtin.LearnedNLI
	BuiltinBM25Reranker = builtinPrefix + "bm25-v1"            // builtin.BM25Reranker
	BuiltinSentenceLLM  = builtinPrefix + "sentence-claims-v1" // builtin.SentenceLLM
)

// IsBaseline reports whether model is a built-in deterministic baseline.
func IsBaseline(model string) bool { return strings.HasPrefix(model, builtinPrefix) }

// Measured is one accuracy figure of a model on a named data set.
type Measured struct {
	Data     string  // data set, as docs/quality.md's NLI table names it
	File     string  // its file under testdata/nli/report
	Accuracy float64 // share of pairs labelled as the gold label
}

// NLIReportAccuracy is the accuracy of each built-in NLI on the report
// parts of the bundled NLI samples (testdata/nli/ATTRIBUTION.md: rows no
// rule, lexicon entry or training pair came from), as `make eval` prints
// it. TestNLIFiguresAreMeasured recomputes them, so they cannot drift from
// the models.
var NLIReportAccuracy = map[string][]Measured{
	BuiltinLearnedNLI: {
		{Data: "SNLI", File: "snli.tsv", Accuracy: 0.727},
		{Data: "MNLI-m", File: "mnli_matched.tsv", Accuracy: 0.633},
		{Data: "MNLI-mm", File: "mnli_mismatched.tsv", Accuracy: 0.554},
	},
}

// quality is what is measured of each built-in, in a few words.
func quality(model string) string {
	ms, ok := NLIReportAccuracy[model]
	if !ok {
		return ""
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = fmt.Sprintf("%s %.2f", m.Data, m.Accuracy)
	}
	return "NLI accuracy " + strings.Join(parts, ", ") + " on held-out pairs; trained cross-encoders reach about 0.90"
}

// Baselines returns the built-in models among models, sorted and without
// repeats.
func Baselines(models []string) []string {
	var out []string
	for _, m := range models {
		if IsBaseline(m) && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return out
}

// Banner is the one line that heads any output showing judgements of a
// built-in model: which built-ins, that they are deterministic baselines,
// and what they were measured to do. It is "" when models holds no built-in.
func Banner(models []string) string {
	base := Baselines(models)
	if len(base) == 0 {
		return ""
	}
	names := make([]string, len(base))
	for i, m := range base {
		names[i] = m
		if q := quality(m); q != "" {
			names[i] += " (" + q + ")"
		}
	}
	return "BASELINE MODELS — deterministic built-ins, small CPU-only models far below trained neural ones; read verdicts as a demonstration, not as fact-checks: " +
		strings.Join(names, "; ")
}
