package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/verification"
	"github.com/evidencefleet/evidencefleet/store"
)

// verificationCase is a domain of origin with claims, some of them refuted
// by one fragment of another site.
type verificationCase struct {
	originLevel, originSource, originRule string
	claims, refuted                       int
	refuterLevel                          string
	refuterConfidence                     float64
}

// build wires the case into the bundle: page 1 is on blog.example.com, the
// claims' origin; page 2 on journal.example.edu, the refuter. It returns the
// claims, the refuted ones first.
func (b *posteriorBundle) build(t *testing.T, c verificationCase) []int64 {
	t.Helper()
	ctx := singleTenant
	for i, host := range []string{"blog.example.com", "journal.example.edu"} {
		if _, err := b.pool.Exec(ctx, `UPDATE pages SET domain = $2 WHERE id = (SELECT page_id FROM fragments WHERE id = $1)`, b.fragments[10*i], host); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.pool.Exec(ctx, `INSERT INTO domains (domain, site, trust_level, level_source, level_rule)
		VALUES ('blog.example.com', 'example.com', $1, $2, NULLIF($3, '')), ('journal.example.edu', 'example.edu', $4, 'policy', 'suffix ".edu"')`,
		c.originLevel, c.originSource, c.originRule, c.refuterLevel); err != nil {
		t.Fatal(err)
	}
	var claims []int64
	for i := range c.claims {
		var id int64
		if err := b.pool.QueryRow(ctx, `INSERT INTO claims (task_id, evidence_no, text, text_hash, kind, origin_fragment_id, page_version_id, quote_start, quote_end)
			SELECT c.task_id, $3 + 2, 'x', 'x', 'extracted', f.id, f.page_version_id, $3, $3 + 1 FROM claims c, fragments f WHERE c.id = $1 AND f.id = $2
			RETURNING id`, b.claimID, b.fragments[i%10], i).Scan(&id); err != nil {
			t.Fatal(err)
		}
		claims = append(claims, id)
		if i < c.refuted {
			if _, err := b.pool.Exec(ctx, `INSERT INTO edges (source_type, source_id, target_type, target_id, relation, nli_edge_confidence)
				VALUES ('fragment', $1, 'claim', $2, 'refutes', $3)`, b.fragments[10], id, c.refuterConfidence); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := b.q.RecomputePosteriors(ctx, claims); err != nil {
		t.Fatal(err)
	}
	return claims
}

// singleTenant is the context of a fleet of one organization (quorum 1):
// its view and the fleet's level move together, as these tests of the
// rules read them on the fleet's row (tenant_trust_test.go has the rest).
var singleTenant = verification.WithQuorum(context.Background(), 1)

// domainState is blog.example.com's row as the tests read it.
type domainState struct {
	level, blockReason string
	flagged            bool
	rejected, total    int
	blockClaims        []int64
	blockEdges         []int64
	audit              []string // action:new_level, in order
}

func (b *posteriorBundle) domain(t *testing.T) domainState {
	t.Helper()
	var d domainState
	err := b.pool.QueryRow(context.Background(), `SELECT trust_level, COALESCE(block_reason, ''), flagged_at IS NOT NULL, rejected_claims, total_claims,
		COALESCE(block_claim_ids, '{}'), COALESCE(block_edge_ids, '{}'),
		COALESCE((SELECT array_agg(action || ':' || new_level ORDER BY id) FROM domain_level_changes WHERE domain = d.domain AND scope = 'fleet'), '{}')
		FROM domains d WHERE domain = 'blog.example.com'`).
		Scan(&d.level, &d.blockReason, &d.flagged, &d.rejected, &d.total, &d.blockClaims, &d.blockEdges, &d.audit)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (b *posteriorBundle) statuses(t *testing.T, claims []int64) map[string]int {
	t.Helper()
	rows, err := b.pool.Query(context.Background(), `SELECT verification_status || '/' || adoption_status FROM claims WHERE id = ANY($1)`, claims)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out[s]++
	}
	return out
}

// TestSourceVerificationBlockRule runs the claim and block rules against
// Postgres: rejections by a higher level, the 30 % line and the 3-rejection
// minimum on both sides, the confidence threshold, flags for domains the
// policy vouched for, and TRUSTED never demoted.
func TestSourceVerificationBlockRule(t *testing.T) {
	t.Parallel()
	unvouched := verificationCase{originLevel: "UNVERIFIED", originSource: "policy", originRule: "default",
		refuterLevel: "ACADEMIC", refuterConfidence: 0.9}
	with := func(c verificationCase, edit func(*verificationCase)) verificationCase {
		edit(&c)
		return c
	}
	tests := []struct {
		name          string
		c             verificationCase
		rejected      int
		level         string
		flagged       bool
		conflictKinds string
	}{
		{"3 of 9 rejected: blocked", with(unvouched, func(c *verificationCase) { c.claims, c.refuted = 9, 3 }), 3, "BLOCKED", false, "refuted_by_higher"},
		{"3 of 10 rejected: 30% is not over", with(unvouched, func(c *verificationCase) { c.claims, c.refuted = 10, 3 }), 3, "UNVERIFIED", false, "refuted_by_higher"},
		{"2 of 3 rejected: under the minimum", with(unvouched, func(c *verificationCase) { c.claims, c.refuted = 3, 2 }), 2, "UNVERIFIED", false, "refuted_by_higher"},
		{"weak refutations reject nothing", with(unvouched, func(c *verificationCase) { c.claims, c.refuted, c.refuterConfidence = 9, 3, 0.69 }), 0, "UNVERIFIED", false, ""},
		{"a low refuter rejects nothing", with(unvouched, func(c *verificationCase) { c.claims, c.refuted, c.refuterLevel = 9, 3, "LOW" }), 0, "UNVERIFIED", false, "low_conflict"},
		{"policy-vouched LOW is flagged", with(unvouched, func(c *verificationCase) {
			c.claims, c.refuted, c.originLevel, c.originRule = 9, 3, "LOW", `site "example.com" (policy line 4)`
		}), 3, "LOW", true, "refuted_by_higher"},
		{"LOW by promotion is blocked", with(unvouched, func(c *verificationCase) {
			c.claims, c.refuted, c.originLevel, c.originSource, c.originRule = 9, 3, "LOW", "verification", "claim 1 verified"
		}), 3, "BLOCKED", false, "refuted_by_higher"},
		{"TRUSTED is never demoted", with(unvouched, func(c *verificationCase) {
			c.claims, c.refuted, c.originLevel, c.originSource = 9, 9, "TRUSTED", "reviewer"
		}), 9, "TRUSTED", true, "refuted_by_higher"},
		{"high against high is a controversy", with(unvouched, func(c *verificationCase) {
			c.claims, c.refuted, c.originLevel, c.originRule = 9, 9, "GOVERNMENT", `suffix ".gov"`
		}), 0, "GOVERNMENT", false, "scientific_controversy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			claims := b.build(t, tt.c)
			if got := b.statuses(t, claims)["rejected/not_adopted"]; got != tt.rejected {
				t.Errorf("%d claims rejected, want %d (%v)", got, tt.rejected, b.statuses(t, claims))
			}
			d := b.domain(t)
			if d.level != tt.level || d.flagged != tt.flagged {
				t.Errorf("blog.example.com %s flagged=%v, want %s flagged=%v (%+v)", d.level, d.flagged, tt.level, tt.flagged, d)
			}
			var kinds []string
			rows, err := b.pool.Query(context.Background(), `SELECT DISTINCT kind FROM claim_conflicts WHERE claim_id = ANY($1) ORDER BY kind`, claims)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var k string
				if err := rows.Scan(&k); err != nil {
					t.Fatal(err)
				}
				kinds = append(kinds, k)
			}
			if fmt.Sprint(kinds) != fmt.Sprint(slices.DeleteFunc([]string{tt.conflictKinds}, func(s string) bool { return s == "" })) {
				t.Errorf("conflicts %v, want %q", kinds, tt.conflictKinds)
			}
			if tt.rejected > 0 && (d.rejected != tt.rejected || d.total != tt.c.claims) {
				t.Errorf("standing %d of %d, want %d of %d", d.rejected, d.total, tt.rejected, tt.c.claims)
			}
			if tt.level == "BLOCKED" {
				if d.blockReason != "high_rejection_rate" || len(d.blockClaims) != tt.rejected || len(d.blockEdges) != tt.rejected ||
					!slices.Equal(d.audit, []string{"block:BLOCKED"}) {
					t.Errorf("block record %+v, want high_rejection_rate with its %d claims and edges and one audit row", d, tt.rejected)
				}
			}
		})
	}
}

// TestBlockUndoneByAPerson: a person restores a rejected claim (it is
// pending again and stays so however often the rules run) and unblocks the
// domain (it gets back its level); each step leaves an audit row, and
// repeating it changes nothing.
func TestBlockUndoneByAPerson(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := singleTenant
	claims := b.build(t, verificationCase{originLevel: "UNVERIFIED", originSource: "default", claims: 6, refuted: 3,
		refuterLevel: "ACADEMIC", refuterConfidence: 0.95})
	if d := b.domain(t); d.level != "BLOCKED" {
		t.Fatalf("blog.example.com %s, want BLOCKED", d.level)
	}
	st := store.NewStore(b.pool)
	for range 2 {
		res, err := st.ApplyClaimFeedback(ctx, store.ClaimVerdictFeedback{ClaimID: claims[0], Reason: "the journal misread it", By: "ana"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verification != "pending" {
			t.Errorf("restored claim %s, want pending", res.Verification)
		}
	}
	if _, err := b.q.RecomputePosteriors(ctx, claims); err != nil {
		t.Fatal(err)
	}
	if got := b.statuses(t, claims); got["rejected/not_adopted"] != 2 || got["pending/pending"] != 4 {
		t.Errorf("statuses %v after one restore, want 2 rejected and 4 pending", got)
	}
	for range 2 {
		if _, err := st.ChangeDomainLevel(ctx, store.DomainLevelEdit{Domain: "blog.example.com", Unblock: true, Reason: "reviewed", By: "ana"}); err != nil {
			t.Fatal(err)
		}
	}
	d := b.domain(t)
	if d.level != "UNVERIFIED" || d.blockReason != "" || len(d.blockClaims) != 0 || !slices.Equal(d.audit, []string{"block:BLOCKED", "unblock:UNVERIFIED"}) {
		t.Errorf("after unblock %+v, want UNVERIFIED without a block and two audit rows", d)
	}
	var feedback int
	if err := b.pool.QueryRow(ctx, `SELECT count(*) FROM claim_feedback WHERE claim_id = $1`, claims[0]).Scan(&feedback); err != nil {
		t.Fatal(err)
	}
	if feedback != 1 {
		t.Errorf("%d claim_feedback rows, want 1", feedback)
	}
}

// TestApplyPolicyReloadsPolicyLevels: a reloaded policy changes the levels
// it (or nobody) set, with an audit row each, blocks what it now denies,
// and leaves the levels of people and source verification; a second
// reload changes nothing.
func TestApplyPolicyReloadsPolicyLevels(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO domains (domain, trust_level, level_source, level_rule) VALUES
		('journal.example', 'LOW', 'policy', 'old rule'), ('mine.example', 'TRUSTED', 'reviewer', 'r'),
		('promoted.example', 'LOW', 'verification', 'claim 1'), ('spam.example', 'UNVERIFIED', 'policy', 'default'),
		('plain.example', 'UNVERIFIED', 'default', NULL)`); err != nil {
		t.Fatal(err)
	}
	policy := map[string]store.PolicyLevel{"journal.example": {Level: "ACADEMIC", Rule: "site journal.example"},
		"spam.example": {Level: "BLOCKED", Rule: "deny spam.example"}}
	decide := func(domain string) store.PolicyLevel {
		if l, ok := policy[domain]; ok {
			return l
		}
		return store.PolicyLevel{Level: "UNVERIFIED", Rule: "default"}
	}
	st := store.NewStore(pool)
	for i, want := range []int{2, 0} {
		n, err := st.ApplyPolicy(ctx, decide, 2) // pages of 2: the walk crosses pages
		if err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("reload %d changed %d domains, want %d", i+1, n, want)
		}
	}
	var got []string
	rows, err := pool.Query(ctx, `SELECT domain || ' ' || trust_level || ' ' || level_source || ' ' || COALESCE(block_reason, '-') FROM domains ORDER BY domain`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	want := []string{"journal.example ACADEMIC policy -", "mine.example TRUSTED reviewer -", "plain.example UNVERIFIED default -",
		"promoted.example LOW verification -", "spam.example BLOCKED policy denylist"}
	if !slices.Equal(got, want) {
		t.Errorf("domains after the reload:\n%q\nwant\n%q", got, want)
	}
	var audits int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM domain_level_changes WHERE action = 'policy' AND set_by = 'domain policy'`).Scan(&audits); err != nil {
		t.Fatal(err)
	}
	if audits != 2 {
		t.Errorf("%d audit rows, want 2", audits)
	}
}

// TestLevelChangeRecomputesItsClaims: a person's level for a domain
// re-decides, in the same transaction, the claims that depend on it: its
// claims rejected by a higher level are pending once it is high too (a
// scientific controversy), and rejected again when it is set low.
func TestLevelChangeRecomputesItsClaims(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	claims := b.build(t, verificationCase{originLevel: "UNVERIFIED", originSource: "policy", originRule: "default", claims: 10, refuted: 3,
		refuterLevel: "ACADEMIC", refuterConfidence: 0.9})
	st := store.NewStore(b.pool)
	for _, step := range []struct {
		level, conflict string
		rejected        int
	}{{"GOVERNMENT", "scientific_controversy", 0}, {"LOW", "refuted_by_higher", 3}} {
		if _, err := st.ChangeDomainLevel(ctx, store.DomainLevelEdit{Domain: "blog.example.com", Level: step.level, Reason: "review", By: "ivy"}); err != nil {
			t.Fatal(err)
		}
		var kinds []string
		if err := b.pool.QueryRow(ctx, `SELECT COALESCE(array_agg(DISTINCT kind), '{}') FROM claim_conflicts WHERE claim_id = ANY($1)`, claims).Scan(&kinds); err != nil {
			t.Fatal(err)
		}
		if got := b.statuses(t, claims)["rejected/not_adopted"]; got != step.rejected || !slices.Equal(kinds, []string{step.conflict}) {
			t.Errorf("at %s: %d rejected, conflicts %v; want %d, [%s]", step.level, got, kinds, step.rejected, step.conflict)
		}
	}
}
