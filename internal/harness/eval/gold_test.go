package eval

import (
	"reflect"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
)

func TestGoldPairs(t *testing.T) {
	t.Parallel()
	records := []corpus.Record{
		{ClaimID: "1", Claim: "c1", ClaimLabel: "SUPPORTS", Evidences: []corpus.Evidence{
			{EvidenceID: "Sea level rise:3", EvidenceLabel: "SUPPORTS", Article: "Sea level rise", Evidence: "  Seas rise. "},
			{EvidenceID: "El Niño:1", EvidenceLabel: "NOT_ENOUGH_INFO", Article: "", Evidence: "Warm water."},
			{EvidenceID: "Ice:2", EvidenceLabel: "REFUTES", Article: "Ice", Evidence: "   "},
		}},
		{ClaimID: "2", Claim: "c2", ClaimLabel: "REFUTES", Evidences: []corpus.Evidence{
			{EvidenceID: "Ice:4", EvidenceLabel: "REFUTES", Article: "Ice", Evidence: "Ice grows."},
			{EvidenceID: "Ice:5", EvidenceLabel: "DISPUTED", Article: "Ice", Evidence: "Ice shrinks."},
			{EvidenceID: ":7", EvidenceLabel: "SUPPORTS", Article: "", Evidence: "No title."},
		}},
	}
	got, skipped := GoldPairs(records)
	want := []GoldPair{
		{Record: 0, URL: "https://en.wikipedia.org/wiki/Sea_level_rise", Sentence: "Seas rise.", Gold: "supports"},
		{Record: 0, URL: "https://en.wikipedia.org/wiki/El_Ni%C3%B1o", Sentence: "Warm water.", Gold: "neutral"},
		{Record: 1, URL: "https://en.wikipedia.org/wiki/Ice", Sentence: "Ice grows.", Gold: "refutes"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("GoldPairs = %+v\nwant %+v", got, want)
	}
	if skipped != 3 {
		t.Errorf("skipped = %d, want 3 (blank text, DISPUTED evidence label, no article)", skipped)
	}
}

func TestSentenceExamples(t *testing.T) {
	t.Parallel()
	records := []corpus.Record{{Claim: "Ice melts.", Evidences: []corpus.Evidence{
		{EvidenceLabel: "SUPPORTS", Article: "Ice", Evidence: "Ice melts above 0 °C."},
		{EvidenceLabel: "REFUTES", Article: "Ice", Evidence: "Ice never melts."},
	}}}
	pairs, _ := GoldPairs(records)
	got := SentenceExamples(records, pairs)
	want := []NLIExample{{Gold: "supports", Premise: "Ice melts above 0 °C.", Hypothesis: "Ice melts."},
		{Gold: "refutes", Premise: "Ice never melts.", Hypothesis: "Ice melts."}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("SentenceExamples = %+v, want %+v", got, want)
	}
}
