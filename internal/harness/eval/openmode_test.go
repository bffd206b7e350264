package eval

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/jobs"
)

func TestGoldArticles(t *testing.T) {
	t.Parallel()
	records := []corpus.Record{
		{ClaimID: "1", Evidences: []corpus.Evidence{
			{EvidenceID: "Sea level rise:3", EvidenceLabel: "SUPPORTS", Article: "Sea level rise"},
			{EvidenceID: "El Niño:1", EvidenceLabel: "NOT_ENOUGH_INFO"},                           // named by its id
			{EvidenceID: "Sea level rise:7", EvidenceLabel: "REFUTES", Article: "Sea level rise"}, // once
		}},
		{ClaimID: "2", Evidences: []corpus.Evidence{{EvidenceID: ":4", Article: "  "}}}, // nameless
		{ClaimID: "3"},
	}
	want := [][]string{
		{"https://en.wikipedia.org/wiki/Sea_level_rise", "https://en.wikipedia.org/wiki/El_Ni%C3%B1o"},
		nil,
		nil,
	}
	if got := GoldArticles(records); !reflect.DeepEqual(got, want) {
		t.Errorf("GoldArticles = %q, want %q", got, want)
	}
}

func TestCountReached(t *testing.T) {
	t.Parallel()
	gold := [][]string{{"a", "b"}, {"c"}, nil, {"d", "e"}}
	tests := []struct {
		name             string
		reached          func(int, string) bool
		withArticle, hit int
	}{
		{"none", func(int, string) bool { return false }, 3, 0},
		{"all", func(int, string) bool { return true }, 3, 3},
		{"the second article counts", func(_ int, u string) bool { return u == "b" || u == "e" }, 3, 2},
		{"per record: c reached for record 0 only", func(i int, u string) bool { return i == 0 && u == "c" }, 3, 0},
		{"per record: d for record 3", func(i int, u string) bool { return i == 3 && u == "d" }, 3, 1},
	}
	for _, tt := range tests {
		w, h := CountReached(gold, tt.reached)
		if w != tt.withArticle || h != tt.hit {
			t.Errorf("%s: CountReached = %d, %d; want %d, %d", tt.name, w, h, tt.withArticle, tt.hit)
		}
	}
	if got := PerClaim(513, 386); got < 1.329 || got > 1.33 {
		t.Errorf("PerClaim(513, 386) = %v, want 1.329…", got)
	}
	if got := PerClaim(5, 0); got != 0 {
		t.Errorf("PerClaim(5, 0) = %v, want 0", got)
	}
}

func TestOpenModeTargets(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("glaciers ", 100)
	records := []corpus.Record{
		{ClaimID: "1", Claim: "  Sea   levels are\trising. "},
		{ClaimID: "2", Claim: long},
		{ClaimID: "3", Claim: "Sea levels are rising."},
	}
	per, err := openModeTargets(records)
	if err != nil {
		t.Fatal(err)
	}
	if len(per) != 3 || len(per[0]) != 1 || per[0][0] != (jobs.Target{Kind: jobs.TargetQuery, Value: "Sea levels are rising."}) {
		t.Fatalf("openModeTargets = %+v, want one normalised query per claim", per)
	}
	if n := utf8.RuneCountInString(per[1][0].Value); n > jobs.MaxQueryRunes {
		t.Errorf("a long claim's query has %d characters, more than %d", n, jobs.MaxQueryRunes)
	}
	if got := distinctTargets(per); len(got) != 2 {
		t.Errorf("distinctTargets = %v, want the two distinct queries", got)
	}
}

// TestRunOpenMode runs 10 claims in both modes, each in a scratch
// database: in open mode the fleet has only query targets, and what it
// searched, fetched and reached must add up.
func TestRunOpenMode(t *testing.T) {
	t.Parallel()
	const claims = 10
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	cfg.DatabaseURL = pgtest.URL(t)
	rep, err := Run(context.Background(), Options{Config: cfg, ClaimsFile: climateFeverFile, Limit: claims,
		FreshDB: true, OpenMode: true, Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	open := rep.ClimateFeverOpen
	if open == nil || open.Mode != ModeOpen || rep.ClimateFever == nil || rep.ClimateFever.Mode != ModeGiven {
		t.Fatalf("report modes: given %+v, open %+v", rep.ClimateFever, open)
	}
	r := open.Retrieval
	if r.Searches != claims {
		t.Errorf("%d searches, want one per claim (%d)", r.Searches, claims)
	}
	if r.Fetches != int64(open.Pages) || open.Pages == 0 || open.Pages > claims*cfg.SearchResults || len(open.FailedTargets) != 0 {
		t.Errorf("%d fetches, %d pages (failed %v), want one fetch per page, at most %d pages", r.Fetches, open.Pages, open.FailedTargets, claims*cfg.SearchResults)
	}
	if got := open.Jobs["target_queue"]["completed"]; got != claims+open.Pages {
		t.Errorf("%d target_queue jobs completed, want a query per claim and a fetch per page (%d)", got, claims+open.Pages)
	}
	// What a claim's own search found was fetched; what was judged was fetched.
	if r.ClaimsWithArticle != claims || r.InOwnSearch < 0 || r.InOwnSearch > r.InTask || r.Judged > r.InTask || r.InTask > claims {
		t.Errorf("open retrieval %+v: want own search ≤ in task ≤ %d claims, judged ≤ in task", r, claims)
	}
	if r.InOwnSearch == 0 {
		t.Error("no claim's search found one of its gold articles")
	}
	if open.ClaimScores.MatrixSum() != claims {
		t.Errorf("open-mode verdict matrix sums to %d, want %d", open.ClaimScores.MatrixSum(), claims)
	}
	self := rep.ClimateFeverSelfDirected
	if self == nil || self.Mode != ModeSelfDirected || len(self.TaskIDs) != claims || self.Retrieval.Searches == 0 || self.ClaimScores.MatrixSum() != claims {
		t.Errorf("self-directed run %+v: want a task per claim, some searches, every claim scored", self)
	} else if self.Retrieval.InOwnSearch < 0 || self.Retrieval.InOwnSearch > claims {
		t.Errorf("self-directed retrieval %+v", self.Retrieval)
	}
	var text bytes.Buffer
	if err := WriteText(&text, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"== Climate-FEVER end to end", "== Climate-FEVER: given pages vs open mode vs self-directed, 10 claims ==",
		"… in their own search's results", "searches per claim", "Open mode: claim verdicts", "Self-directed: claim verdicts"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
}
