package eval

import (
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
)

// GoldPair is one Climate-FEVER (claim, evidence sentence) pair with the
// relation an NLI backend should give it.
type GoldPair struct {
	Record   int    // index of the claim's record
	URL      string // the replay page of the sentence's article (corpus.WikipediaURL)
	Sentence string
	Gold     string // models.Supports, models.Refutes or models.Neutral
}

// GoldPairs lists the evidence pairs of records in order. Evidence whose
// label is not SUPPORTS/REFUTES/NOT_ENOUGH_INFO, whose text is empty or
// whose article cannot be named is not a pair; skipped counts it. The
// article is e.Article, else the title part of the evidence id
// ("Title:N"), as the replay corpus names it.
func GoldPairs(records []corpus.Record) (pairs []GoldPair, skipped int) {
	for i, r := range records {
		for _, e := range r.Evidences {
			gold, ok := EvidenceGoldLabel(e.EvidenceLabel)
			title := e.Article
			if title == "" {
				title, _, _ = strings.Cut(e.EvidenceID, ":")
			}
			text := strings.TrimSpace(e.Evidence)
			if !ok || text == "" || strings.TrimSpace(title) == "" {
				skipped++
				continue
			}
			pairs = append(pairs, GoldPair{Record: i, URL: corpus.WikipediaURL(title), Sentence: text, Gold: gold})
		}
	}
	return pairs, skipped
}

// SentenceExamples are the gold pairs as NLI examples on their own: the
// evidence sentence is the premise and the claim the hypothesis, with no
// fleet between (no page, fragment or retrieval), so that the model's
// judgement of the gold sentences is read apart from what the fleet's
// fragments make of them.
func SentenceExamples(records []corpus.Record, pairs []GoldPair) []NLIExample {
	out := make([]NLIExample, len(pairs))
	for i, p := range pairs {
		out[i] = NLIExample{Gold: p.Gold, Premise: p.Sentence, Hypothesis: records[p.Record].Claim}
	}
	return out
}
