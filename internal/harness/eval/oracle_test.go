package eval

import (
	"reflect"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/models"
)

func TestOracleScoresUsesOnlyThePairsThatReachTheJudge(t *testing.T) {
	t.Parallel()
	records := []corpus.Record{
		{ClaimID: "1", ClaimLabel: "SUPPORTS"},
		{ClaimID: "2", ClaimLabel: "REFUTES"},
		{ClaimID: "3", ClaimLabel: "NOT_ENOUGH_INFO"},
		{ClaimID: "4", ClaimLabel: "DISPUTED"},
	}
	pairs := []GoldPair{
		{Record: 0, Gold: models.Supports}, {Record: 0, Gold: models.Supports},
		{Record: 1, Gold: models.Refutes}, {Record: 1, Gold: models.Refutes}, {Record: 1, Gold: models.Refutes},
		{Record: 2, Gold: models.Neutral},
		{Record: 3, Gold: models.Supports}, {Record: 3, Gold: models.Refutes},
	}
	all, err := OracleScores(records, pairs, func(int) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	// 2 supports: Beta(3,1), 0.75 well_supported; 3 refutes: Beta(1,4), 0.2
	// likely_false; neutral only: unverified; 1 and 1: controversy 0.5,
	// contested.
	if all.Accuracy != 1 {
		t.Errorf("all pairs: accuracy %.3f, want 1 (%+v)", all.Accuracy, all)
	}
	// Only the neutral pair reaches the judge: every claim is unverified.
	some, err := OracleScores(records, pairs, func(i int) bool { return i == 5 })
	if err != nil {
		t.Fatal(err)
	}
	if some.Accuracy != 0.25 {
		t.Errorf("one neutral pair: accuracy %.3f, want 0.25", some.Accuracy)
	}
	if n := claimsReached(pairs, func(i int) bool { return i < 3 }); n != 2 {
		t.Errorf("claimsReached = %d, want 2", n)
	}
	by := reachedByLabel(pairs, func(i int) bool { return i < 3 })
	want := map[string]Reach{models.Supports: {Judged: 2, Of: 3}, models.Refutes: {Judged: 1, Of: 4}, models.Neutral: {Judged: 0, Of: 1}}
	if !reflect.DeepEqual(by, want) {
		t.Errorf("reachedByLabel = %v, want %v", by, want)
	}
}
