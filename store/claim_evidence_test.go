package store_test

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/verification"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestClaimEvidenceSumsAsTheSQLTallies holds the posterior's one read,
// summed in Go (ClaimEvidenceSums), against the same sums written in SQL
// (ClaimTallies, ClaimSiteEdges) on a graph with every case they tell
// apart: supports, refutes and neutral edges; confidences of NULL, 0, below
// and above verification's floor, and equal ones from one domain; two hosts
// of one site; a domain BLOCKED fleet-wide and one blocked in the task's
// organization's view; an edge whose fragment is gone; a corrected edge and
// one without a retrieval score; an extracted claim (with an origin), a
// hypothesis, a claim without edges and one with conflicts recorded.
func TestClaimEvidenceSumsAsTheSQLTallies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := pgtest.Tx(t)
	task := fixture.Task(t, tx, "Evidence sums agree.")
	if _, err := tx.Exec(ctx, `UPDATE tasks SET organization_id = 'org-a' WHERE id = $1`, task); err != nil {
		t.Fatal(err)
	}
	pages := map[string]fixture.Page{}
	for _, url := range []string{"https://a.news.example/1", "https://b.news.example/2", "https://blocked.example/3",
		"https://orgblocked.example/4", "https://high.example/5", "https://origin.example/6"} {
		pages[url] = fixture.PageOf(t, tx, task, url, "One fragment of "+url+".", "Another fragment of "+url+".")
	}
	for _, q := range []string{
		`UPDATE domains SET site = 'news.example' WHERE domain IN ('a.news.example', 'b.news.example')`,
		`UPDATE domains SET trust_level = 'BLOCKED' WHERE domain = 'blocked.example'`,
		`UPDATE domains SET trust_level = 'ACADEMIC' WHERE domain = 'high.example'`,
		`INSERT INTO org_domain_levels (organization_id, domain, trust_level) VALUES ('org-a', 'orgblocked.example', 'BLOCKED'),
		     ('org-b', 'high.example', 'BLOCKED')`,
	} {
		if _, err := tx.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	extracted := fixture.ExtractedClaim(t, tx, task, pages["https://origin.example/6"], 0, "An extracted claim.")
	hypothesis := fixture.Claim(t, tx, task, "A hypothesis.")
	lonely := fixture.Claim(t, tx, task, "A claim nothing bears on.")
	frag := func(url string, i int) int64 { return pages[url].Fragments[i] }
	type edge struct {
		claim, fragment int64
		relation        string
		conf, score     *float64
		corrected       bool
	}
	f := func(v float64) *float64 { return &v }
	edges := []edge{
		{extracted, frag("https://a.news.example/1", 0), "supports", f(0.9), f(0.5), false},
		{extracted, frag("https://a.news.example/1", 1), "supports", f(0.9), nil, false}, // equal to the one before: the lower id stays
		{extracted, frag("https://b.news.example/2", 0), "supports", f(0.75), f(0.4), true},
		{extracted, frag("https://b.news.example/2", 1), "supports", f(0.5), f(0.3), false}, // below the floor
		{extracted, frag("https://blocked.example/3", 0), "refutes", f(0.95), f(0.8), false},
		{extracted, frag("https://orgblocked.example/4", 0), "supports", f(0.8), f(0.7), false},
		{extracted, frag("https://high.example/5", 0), "refutes", f(0.85), f(0.6), false},
		{extracted, frag("https://high.example/5", 1), "neutral", f(0.99), f(0.6), false},
		{extracted, 1 << 40, "supports", f(0.9), f(0.9), false}, // its fragment is gone
		{hypothesis, frag("https://high.example/5", 0), "refutes", f(0.7), f(0.2), false},
		{hypothesis, frag("https://a.news.example/1", 0), "supports", nil, nil, false},
		{hypothesis, frag("https://a.news.example/1", 1), "refutes", f(0), f(0.1), false},
		{hypothesis, frag("https://orgblocked.example/4", 1), "neutral", nil, nil, false},
	}
	for _, e := range edges {
		if _, err := tx.Exec(ctx, `INSERT INTO edges (source_type, source_id, target_type, target_id, relation, nli_edge_confidence,
			retrieval_score, corrected_at) VALUES ('fragment', $1, 'claim', $2, $3, $4, $5, CASE WHEN $6 THEN now() END)`,
			e.fragment, e.claim, e.relation, e.conf, e.score, e.corrected); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO claim_conflicts (edge_id, claim_id, kind, refuter_domain, refuter_level, origin_domain, origin_level, confidence)
		SELECT e.id, e.target_id, 'low_conflict', 'x', 'UNVERIFIED', 'y', 'UNVERIFIED', 0.9 FROM edges e
		WHERE e.target_id = $1 AND e.relation = 'refutes' LIMIT 1`, extracted); err != nil {
		t.Fatal(err)
	}
	q := store.New(tx)
	ids := []int64{extracted, hypothesis, lonely}
	tallies, sites, err := q.ClaimEvidenceSums(ctx, ids, verification.MinConfidence)
	if err != nil {
		t.Fatal(err)
	}
	wantTallies, err := q.ClaimTallies(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	wantSites, err := q.ClaimSiteEdges(ctx, store.ClaimSiteEdgesParams{ClaimIds: ids, MinConfidence: verification.MinConfidence})
	if err != nil {
		t.Fatal(err)
	}
	if len(tallies) != len(wantTallies) {
		t.Fatalf("%d tallies, SQL %d", len(tallies), len(wantTallies))
	}
	for i, got := range tallies {
		want := wantTallies[i]
		// SQL sums in its own order: the sums agree up to rounding
		if math.Abs(got.SupportSum-want.SupportSum) > 1e-12 || math.Abs(got.RefuteSum-want.RefuteSum) > 1e-12 {
			t.Errorf("claim %d: sums %v/%v, SQL %v/%v", got.ClaimID, got.SupportSum, got.RefuteSum, want.SupportSum, want.RefuteSum)
		}
		got.SupportSum, got.RefuteSum = want.SupportSum, want.RefuteSum
		if !reflect.DeepEqual(got, want) {
			t.Errorf("claim %d:\n got %+v\nSQL %+v", got.ClaimID, got, want)
		}
	}
	if !reflect.DeepEqual(sites, wantSites) {
		t.Errorf("edges by site:\n got %+v\nSQL %+v", sites, wantSites)
	}
	// the graph holds what the comparison is for
	if wantTallies[0].Supporting < 4 || wantTallies[0].IndependentSources < 3 || !wantTallies[0].HasConflicts ||
		len(wantTallies[0].BeliefRelations) >= int(wantTallies[0].Supporting+wantTallies[0].Refuting) || len(wantSites) < 4 {
		t.Errorf("the fixture lost a case: %+v, %d site edges", wantTallies[0], len(wantSites))
	}
}
