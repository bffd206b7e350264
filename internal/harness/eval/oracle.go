package eval

import (
	"github.com/evidencefleet/evidencefleet/internal/evidence"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
)

// Oracle judges. To tell whether the model or the pipeline holds the
// verdicts back, the claims' verdicts are recomputed with a perfect judge:
// each gold pair that reaches the judge counts as an edge of its gold
// label with confidence 1, through the fleet's own posterior and verdict
// rule (internal/evidence), and nothing else counts. With the pairs the
// fleet judged, the result is the fleet's retrieval with a perfect model;
// with every gold pair, perfect retrieval too.

// OracleScores scores the verdicts of a perfect judge on the pairs for
// which reached(i) is true (i indexes pairs) against the records' gold
// claim labels.
func OracleScores(records []corpus.Record, pairs []GoldPair, reached func(i int) bool) (Scores, error) {
	tallies := make([]evidence.Tally, len(records))
	for i, p := range pairs {
		if reached(i) {
			tallies[p.Record].Add(evidence.Edge{Relation: p.Gold, Confidence: 1})
		}
	}
	var c Confusion
	for i, r := range records {
		gold, _ := ClaimGoldClass(r.ClaimLabel)
		pred, _ := VerdictClass(evidence.Compute(tallies[i]).Verdict)
		c.Add(gold, pred)
	}
	return Score(&c, ClaimClasses)
}

// claimsReached counts the records with at least one pair for which
// reached(i) is true.
func claimsReached(pairs []GoldPair, reached func(i int) bool) int {
	seen := map[int]bool{}
	for i, p := range pairs {
		if reached(i) {
			seen[p.Record] = true
		}
	}
	return len(seen)
}

// Reach is how many of some gold pairs reached the judge.
type Reach struct {
	Judged int `json:"judged"`
	Of     int `json:"of"`
}

// reachedByLabel counts, per gold label, the pairs and those for which
// reached(i) is true: whether the evidence that decides verdicts
// (supports, refutes) reaches the judge as often as the rest.
func reachedByLabel(pairs []GoldPair, reached func(i int) bool) map[string]Reach {
	out := map[string]Reach{}
	for i, p := range pairs {
		r := out[p.Gold]
		r.Of++
		if reached(i) {
			r.Judged++
		}
		out[p.Gold] = r
	}
	return out
}

// scoreRetrieval fills res's retrieval figures and perfect-judge verdicts
// from the gold pairs and which of them the fleet judged.
func scoreRetrieval(records []corpus.Record, pairs []GoldPair, judged []bool, res *FleetResult) error {
	all := func(int) bool { return true }
	reached := func(i int) bool { return judged[i] }
	res.ClaimsWithGold, res.ClaimsJudged = claimsReached(pairs, all), claimsReached(pairs, reached)
	res.JudgedByLabel = reachedByLabel(pairs, reached)
	var err error
	if res.OracleJudged, err = OracleScores(records, pairs, reached); err != nil {
		return err
	}
	res.OracleAll, err = OracleScores(records, pairs, all)
	return err
}
