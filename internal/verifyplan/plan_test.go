package verifyplan_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/evidence"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/verifyplan"
)

func claim(id int64, text string) verifyplan.Claim {
	return verifyplan.Claim{ID: id, Text: text, Chars: len(text), OriginTrust: "UNVERIFIED"}
}

func TestWorkable(t *testing.T) {
	t.Parallel()
	long := verifyplan.Claim{ID: 2, Chars: 5000}
	kept, refused := verifyplan.Workable([]verifyplan.Claim{claim(1, "Ice melts."), long, claim(3, "Seas rise.")}, 4096)
	if len(kept) != 2 || kept[0].ID != 1 || kept[1].ID != 3 {
		t.Errorf("kept %+v, want claims 1 and 3", kept)
	}
	if len(refused) != 1 || refused[0].ID != 2 || !strings.Contains(refused[0].Reason, "5000 characters, more than the 4096") {
		t.Errorf("refused %+v, want claim 2 naming its length and the bound", refused)
	}
}

// TestPlan runs the whole plan — select, read (a map here), pairs — on
// hand-made reads and checks the pairs, their order and what they record.
func TestPlan(t *testing.T) {
	t.Parallel()
	claims := []verifyplan.Claim{claim(10, "Glaciers retreat."), claim(20, "Sea ice thins.")}
	cands := func() map[int64][]evidence.Candidate {
		return map[int64][]evidence.Candidate{
			10: {{FragmentID: 1, Domain: "a.org", Similarity: 0.9, Lexical: 3}, {FragmentID: 2, Domain: "b.org", Similarity: 0.5, Lexical: 1},
				{FragmentID: 3, Domain: "c.org", Similarity: 0.1}},
			20: {{FragmentID: 4, Domain: "d.org", Similarity: 0.8, Lexical: 2}, {FragmentID: 5, Domain: "blocked.org", Similarity: 0.7, Lexical: 2}},
		}
	}
	frags := map[int64]verifyplan.Fragment{
		1: {Text: "Glaciers are retreating.", TrustLevel: "TRUSTED", Category: "academic"},
		2: {Text: "Some glaciers grow.", TrustLevel: "UNVERIFIED"},
		4: {Text: "Arctic sea ice is thinning.", TrustLevel: "UNVERIFIED"},
		5: {Text: "Sea ice thins, says a blocked site.", TrustLevel: verifyplan.Blocked},
		// 3 is not read back: deleted since it was recalled
	}
	lim := evidence.SelectLimits{MinSimilarity: 0.2, TopK: 30, MaxDomains: 6, MaxPairs: 20}
	tests := []struct {
		name      string
		judged    map[verifyplan.PairKey]bool
		budget    int
		wantPairs [][2]int64 // claim, fragment
		blocked   int
		skipped   int
		successor verifyplan.Reason
	}{
		{name: "everything new", budget: 100, wantPairs: [][2]int64{{10, 1}, {10, 2}, {20, 4}}, blocked: 1},
		{name: "judged before are left out", judged: map[verifyplan.PairKey]bool{{ClaimID: 10, FragmentID: 1}: true}, budget: 100,
			wantPairs: [][2]int64{{10, 2}, {20, 4}}, blocked: 1, skipped: 1},
		{name: "the budget keeps whole claims", budget: 2, wantPairs: [][2]int64{{10, 1}, {10, 2}}, blocked: 1, successor: verifyplan.PairsLeft},
		{name: "a first claim over the budget is cut inside", budget: 1, wantPairs: [][2]int64{{10, 1}}, blocked: 1, successor: verifyplan.PairsLeft},
		{name: "no budget left", budget: 0, blocked: 1, successor: verifyplan.PairsLeft},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sel := verifyplan.Select(claims, cands(), tt.judged, lim)
			if sel.Candidates != 5 || sel.SkippedJudged != tt.skipped {
				t.Errorf("selection counted %d candidates, %d judged; want 5, %d", sel.Candidates, sel.SkippedJudged, tt.skipped)
			}
			plan := verifyplan.Pairs(claims, nil, sel, frags, tt.budget)
			var got [][2]int64
			for _, p := range plan.Pairs {
				got = append(got, [2]int64{p.ClaimID, p.FragmentID})
			}
			if !reflect.DeepEqual(got, tt.wantPairs) {
				t.Errorf("pairs %v, want %v", got, tt.wantPairs)
			}
			if plan.SkippedBlocked != tt.blocked || plan.Successor != tt.successor {
				t.Errorf("blocked %d, successor %q; want %d, %q", plan.SkippedBlocked, plan.Successor, tt.blocked, tt.successor)
			}
			if !reflect.DeepEqual(plan.ClaimIDs, []int64{10, 20}) {
				t.Errorf("claim ids %v, want every claim of the round", plan.ClaimIDs)
			}
			if len(plan.Pairs) > 0 && plan.Pairs[0].FragmentID == 1 {
				p := plan.Pairs[0]
				want := verifyplan.Pair{ClaimID: 10, FragmentID: 1, Premise: "Glaciers are retreating.", Hypothesis: "Glaciers retreat.",
					RetrievalScore: 0.9, SourceTrust: "TRUSTED", SourceCategory: "academic", TargetTrust: "UNVERIFIED"}
				if p != want {
					t.Errorf("first pair %+v, want %+v", p, want)
				}
				if mp := plan.ModelPairs(); mp[0] != (models.Pair{Premise: want.Premise, Hypothesis: want.Hypothesis}) {
					t.Errorf("model pair %+v", mp[0])
				}
			}
		})
	}
}

func TestBegin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		round       int
		notEmbedded int64
		waited      int64
		want        verifyplan.Step
	}{
		{round: 1, notEmbedded: 0, want: verifyplan.Judge},
		{round: 1, notEmbedded: 4, waited: 0, want: verifyplan.WaitForEmbeddings},
		{round: 1, notEmbedded: 4, waited: 2, want: verifyplan.WaitForEmbeddings},
		{round: 1, notEmbedded: 4, waited: 3, want: verifyplan.Judge}, // waited enough: judge what is embedded
		{round: 2, notEmbedded: 4, waited: 0, want: verifyplan.HandOver},
		{round: 2, notEmbedded: 0, want: verifyplan.Judge},
	}
	for _, tt := range tests {
		if got := verifyplan.Begin(tt.round, tt.notEmbedded, tt.waited, 3); got != tt.want {
			t.Errorf("Begin(round %d, %d not embedded, waited %d) = %d, want %d", tt.round, tt.notEmbedded, tt.waited, got, tt.want)
		}
	}
}

func TestEnd(t *testing.T) {
	t.Parallel()
	left := verifyplan.Plan{Successor: verifyplan.PairsLeft}
	tests := []struct {
		name      string
		round     int
		plan      verifyplan.Plan
		changed   bool
		done      bool
		successor verifyplan.Reason
	}{
		{name: "a quiet round", round: 1, done: true},
		{name: "the task changed: again", round: 1, changed: true},
		{name: "the task changed in the last round", round: verifyplan.MaxRounds, changed: true, done: true, successor: verifyplan.TaskChanged},
		{name: "pairs left", round: 1, plan: left, done: true, successor: verifyplan.PairsLeft},
		{name: "pairs left and the task changed", round: 2, plan: left, changed: true, done: true, successor: verifyplan.PairsLeft},
	}
	for _, tt := range tests {
		done, successor := verifyplan.End(tt.round, tt.plan, tt.changed)
		if done != tt.done || successor != tt.successor {
			t.Errorf("%s: done %v, successor %q; want %v, %q", tt.name, done, successor, tt.done, tt.successor)
		}
	}
}

func TestEdges(t *testing.T) {
	t.Parallel()
	plan := verifyplan.Plan{Pairs: []verifyplan.Pair{{ClaimID: 1, FragmentID: 1}, {ClaimID: 1, FragmentID: 2}, {ClaimID: 1, FragmentID: 3},
		{ClaimID: 1, FragmentID: 4}, {ClaimID: 1, FragmentID: 5}, {ClaimID: 1, FragmentID: 6}, {ClaimID: 1, FragmentID: 7}}}
	js := []models.Judgement{
		{Label: models.Supports, Confidence: 0.9},                  // kept
		{Label: models.Refutes, Confidence: 0.4},                   // below the floor: neutral
		{Label: models.Supports, Confidence: 0.95, HoldBack: true}, // held back: neutral
		{Label: models.Neutral, Confidence: 0.7},                   // neutral
		{Label: "maybe", Confidence: 0.9},                          // unknown label
		{Label: models.Supports, Confidence: math.NaN()},           // no confidence
		{Label: models.Refutes, Confidence: 1.5},                   // out of range
	}
	type edge struct {
		fragment int64
		rel, lbl string
	}
	tests := []struct {
		name  string
		rules verifyplan.EdgeRules
		want  []edge
		tally verifyplan.Tally
	}{
		{name: "neutral kept", rules: verifyplan.EdgeRules{MinConfidence: 0.6, SaveNeutral: true, HoldBack: true},
			want:  []edge{{1, models.Supports, models.Supports}, {2, models.Neutral, models.Refutes}, {3, models.Neutral, models.Supports}, {4, models.Neutral, models.Neutral}},
			tally: verifyplan.Tally{Judged: 7, Unjudgeable: 3, HeldBack: 1, Downgraded: 1}},
		{name: "neutral dropped, hold-back ignored", rules: verifyplan.EdgeRules{MinConfidence: 0.6},
			want:  []edge{{1, models.Supports, models.Supports}, {3, models.Supports, models.Supports}},
			tally: verifyplan.Tally{Judged: 7, Unjudgeable: 3, Downgraded: 1, DroppedNeutral: 2}},
	}
	for _, tt := range tests {
		edges, tally := verifyplan.Edges(plan, js, tt.rules)
		var got []edge
		for _, e := range edges {
			got = append(got, edge{e.FragmentID, e.Relation, e.Label})
		}
		if !reflect.DeepEqual(got, tt.want) || tally != tt.tally {
			t.Errorf("%s: edges %v, tally %+v; want %v, %+v", tt.name, got, tally, tt.want, tt.tally)
		}
	}
}
