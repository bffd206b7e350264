package store_test

import (
	"context"
	"math"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/evidence"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/verification"
	"github.com/evidencefleet/evidencefleet/store"
)

// posteriorBundle is one task with a hypothesis claim and a page of fragments
// that can be wired to the claim with arbitrary edges.
type posteriorBundle struct {
	pool      *pgxpool.Pool
	q         *store.Queries
	claimID   int64
	fragments []int64
}

func setup(t *testing.T) *posteriorBundle {
	t.Helper()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	q := store.New(pool)
	task, err := q.CreateTask(ctx, store.CreateTaskParams{OrganizationID: "org", Hypothesis: "h", BudgetClass: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	claims, err := q.InsertHypotheses(ctx, store.InsertHypothesesParams{TaskID: task.ID, EvidenceNos: []int32{1},
		Texts: []string{"h"}, TextHashes: []string{"h"}})
	if err != nil {
		t.Fatal(err)
	}
	b := &posteriorBundle{pool: pool, q: q, claimID: claims[0].ID}
	const content = "0123456789abcdefghijklmnopqrstuvwxyz"
	for p := range 3 {
		pageID, err := q.UpsertPage(ctx, store.UpsertPageParams{Url: "https://site" + string(rune('a'+p)) + ".example/", Domain: "site.example"})
		if err != nil {
			t.Fatal(err)
		}
		ver, err := q.UpsertPageVersion(ctx, store.UpsertPageVersionParams{PageID: pageID, Sha256: "x", Content: content})
		if err != nil {
			t.Fatal(err)
		}
		var starts, ends []int32
		var texts, heads []string
		for i := range 10 {
			starts = append(starts, int32(i*3))
			ends = append(ends, int32(i*3+3))
			texts = append(texts, content[i*3:i*3+3])
			heads = append(heads, "")
		}
		if err := q.InsertFragments(ctx, store.InsertFragmentsParams{PageID: pageID, PageVersionID: ver.ID, Starts: starts, Ends: ends, Texts: texts, Headings: heads}); err != nil {
			t.Fatal(err)
		}
		rows, err := q.VersionFragments(ctx, store.VersionFragmentsParams{PageVersionID: ver.ID, EmbedModel: "m"})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			b.fragments = append(b.fragments, r.ID)
		}
	}
	return b
}

type edgeSpec struct {
	relation string
	conf     float64 // NaN: NULL
	trust    string
}

func (b *posteriorBundle) addEdges(t *testing.T, specs []edgeSpec) {
	t.Helper()
	ctx := context.Background()
	for i, e := range specs {
		var conf any = e.conf
		if math.IsNaN(e.conf) {
			conf = nil
		}
		if _, err := b.pool.Exec(ctx, `INSERT INTO edges (source_type, source_id, target_type, target_id, relation, nli_edge_confidence, source_trust_level)
			VALUES ('fragment', $1, 'claim', $2, $3, $4, $5)`, b.fragments[i], b.claimID, e.relation, conf, e.trust); err != nil {
			t.Fatal(err)
		}
	}
}

// cachedClaim is a claim's cached posterior columns and its status.
type cachedClaim struct {
	evidence.Posterior
	Verification string
}

// cached reads the claim's cached posterior columns.
func (b *posteriorBundle) cached(t *testing.T) cachedClaim {
	t.Helper()
	var p cachedClaim
	err := b.pool.QueryRow(context.Background(), `SELECT alpha, beta, confidence, uncertainty, controversy, verdict,
		supporting_count, refuting_count, neutral_count, independent_sources, evidence_count, verification_status FROM claims WHERE id = $1`, b.claimID).
		Scan(&p.Alpha, &p.Beta, &p.Confidence, &p.Uncertainty, &p.Controversy, &p.Verdict, &p.Supporting, &p.Refuting, &p.Neutral, &p.Independent,
			&p.EvidenceSize, &p.Verification)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func repeat(rel string, conf float64, n int) []edgeSpec {
	out := make([]edgeSpec, n)
	for i := range out {
		out[i] = edgeSpec{relation: rel, conf: conf, trust: "UNVERIFIED"}
	}
	return out
}

func r3(x float64) float64 { return math.Round(x*1000) / 1000 }

func TestPosteriorFromEdgesMatchesReferenceRows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                 string
		edges                []edgeSpec
		conf, unc, contr     float64
		verdict              string
		supporting, refuting int
	}{
		{"no evidence", nil, 0.5, 0.289, 0, "unverified", 0, 0},
		{"one support", repeat("supports", 0.9, 1), 0.655, 0.241, 0, "supported", 1, 0},
		{"three supports", repeat("supports", 0.9, 3), 0.787, 0.171, 0, "well_supported", 3, 0},
		{"three and one", append(repeat("supports", 0.9, 3), repeat("refutes", 0.9, 1)...), 0.661, 0.184, 0.25, "supported", 3, 1},
		{"five and five", append(repeat("supports", 0.9, 5), repeat("refutes", 0.9, 5)...), 0.5, 0.144, 0.5, "contested", 5, 5},
		{"neutral, origin, NULL and zero ignored",
			append(repeat("supports", 0.9, 1), edgeSpec{"neutral", 0.99, ""}, edgeSpec{"origin", math.NaN(), ""},
				edgeSpec{"supports", math.NaN(), ""}, edgeSpec{"refutes", 0, ""}),
			0.655, 0.241, 0, "supported", 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.addEdges(t, tt.edges)
			if _, err := b.q.RecomputePosteriors(context.Background(), []int64{b.claimID}); err != nil {
				t.Fatal(err)
			}
			p := b.cached(t)
			if r3(p.Confidence) != tt.conf || r3(p.Uncertainty) != tt.unc || r3(p.Controversy) != tt.contr || p.Verdict != tt.verdict {
				t.Errorf("got %.3f / %.3f / %.3f %s, want %.3f / %.3f / %.3f %s", p.Confidence, p.Uncertainty, p.Controversy, p.Verdict,
					tt.conf, tt.unc, tt.contr, tt.verdict)
			}
			if p.Supporting != tt.supporting || p.Refuting != tt.refuting {
				t.Errorf("counts supports %d refutes %d, want %d %d", p.Supporting, p.Refuting, tt.supporting, tt.refuting)
			}
		})
	}
}

func TestTrustLevelsNeverChangeThePosterior(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.addEdges(t, append(repeat("supports", 0.8, 2), repeat("refutes", 0.7, 1)...))
	ctx := context.Background()
	if _, err := b.q.RecomputePosteriors(ctx, []int64{b.claimID}); err != nil {
		t.Fatal(err)
	}
	before := b.cached(t)
	for _, level := range []string{"PRIMARY", "BLOCKED", "LOW", ""} {
		if _, err := b.pool.Exec(ctx, `UPDATE edges SET source_trust_level = NULLIF($1, ''), target_trust_level = NULLIF($1, ''),
			source_domain_category = NULLIF($1, '')`, level); err != nil {
			t.Fatal(err)
		}
		if _, err := b.pool.Exec(ctx, `INSERT INTO domains (domain, trust_level) VALUES ('site.example', COALESCE(NULLIF($1, ''), 'UNVERIFIED'))
			ON CONFLICT (domain) DO UPDATE SET trust_level = EXCLUDED.trust_level`, level); err != nil {
			t.Fatal(err)
		}
		if _, err := b.q.RecomputePosteriors(ctx, []int64{b.claimID}); err != nil {
			t.Fatal(err)
		}
		if after := b.cached(t); after != before {
			t.Errorf("trust level %q changed the posterior: %+v → %+v", level, before, after)
		}
	}
}

func TestCachedPosteriorEqualsRecomputation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.addEdges(t, append(repeat("supports", 0.71, 4), repeat("refutes", 0.93, 2)...))
	if _, err := b.q.RecomputePosteriors(ctx, []int64{b.claimID}); err != nil {
		t.Fatal(err)
	}
	tallies, err := b.q.ClaimTallies(ctx, []int64{b.claimID})
	if err != nil {
		t.Fatal(err)
	}
	want := evidence.Compute(store.TallyFromRow(tallies[0]))
	if got := b.cached(t); got.Posterior != want {
		t.Errorf("cached %+v, recomputed %+v", got, want)
	}
	if want.Independent != 1 {
		t.Errorf("independent sources %d, want 1 (all fragments of page 1)", want.Independent)
	}
}

// TestIndependentSourcesCountSites: three supports from pages of
// a.evil.com, b.evil.com and c.evil.com are one source; a refutation from
// news.example.org is another. The posterior keeps its per-edge sums.
func TestIndependentSourcesCountSites(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	// a fourth page, so that the three evil hosts have one page each
	pageID, err := b.q.UpsertPage(ctx, store.UpsertPageParams{Url: "https://news.example.org/", Domain: "news.example.org"})
	if err != nil {
		t.Fatal(err)
	}
	ver, err := b.q.UpsertPageVersion(ctx, store.UpsertPageVersionParams{PageID: pageID, Sha256: "y", Content: "refutation"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.q.InsertFragments(ctx, store.InsertFragmentsParams{PageID: pageID, PageVersionID: ver.ID, Starts: []int32{0}, Ends: []int32{10},
		Texts: []string{"refutation"}, Headings: []string{""}}); err != nil {
		t.Fatal(err)
	}
	for i, host := range []string{"a.evil.com", "b.evil.com", "c.evil.com"} {
		if _, err := b.pool.Exec(ctx, `UPDATE pages SET domain = $2 WHERE id = (SELECT page_id FROM fragments WHERE id = $1)`, b.fragments[10*i], host); err != nil {
			t.Fatal(err)
		}
	}
	for _, host := range []string{"a.evil.com", "b.evil.com", "c.evil.com", "news.example.org"} {
		if err := b.q.EnsureDomain(ctx, store.DomainLevel{}.Params(host)); err != nil {
			t.Fatal(err)
		}
	}
	var refuting int64
	if err := b.pool.QueryRow(ctx, `SELECT id FROM fragments WHERE page_id = $1`, pageID).Scan(&refuting); err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		frag     int64
		relation string
	}{{b.fragments[0], "supports"}, {b.fragments[10], "supports"}, {b.fragments[20], "supports"}, {refuting, "refutes"}} {
		if _, err := b.pool.Exec(ctx, `INSERT INTO edges (source_type, source_id, target_type, target_id, relation, nli_edge_confidence)
			VALUES ('fragment', $1, 'claim', $2, $3, 0.9)`, e.frag, b.claimID, e.relation); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.q.RecomputePosteriors(ctx, []int64{b.claimID}); err != nil {
		t.Fatal(err)
	}
	p := b.cached(t)
	if p.Independent != 2 {
		t.Errorf("independent sources %d, want 2 sites (evil.com, example.org)", p.Independent)
	}
	if p.Supporting != 3 || p.Refuting != 1 || r3(p.Confidence) != r3((1+2.7)/(2+3.6)) {
		t.Errorf("posterior %+v, want the per-edge sums of 3 supports and 1 refutation at 0.9", p)
	}
	// three pages of one site support it: not verified
	if p.Verification != "pending" {
		t.Errorf("verification %q with one supporting site, want pending", p.Verification)
	}
}

// TestVerificationNeedsTwoSupportingSites: a claim is verified by supports
// from two sites at confidence 0.7 or more, not by weaker ones, not by
// refutations; a rejection stands.
func TestVerificationNeedsTwoSupportingSites(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		conf      [2]float64 // supports from page 1 and page 3
		relation  string
		rejected  bool
		want      string
		otherSite bool
	}{
		{"two sites", [2]float64{0.9, 0.7}, "supports", false, "verified", true},
		{"one weak", [2]float64{0.9, 0.69}, "supports", false, "pending", true},
		{"one site", [2]float64{0.9, 0.9}, "supports", false, "pending", false},
		{"refutations", [2]float64{0.9, 0.9}, "refutes", false, "pending", true},
		{"rejected stands", [2]float64{0.9, 0.9}, "supports", true, "rejected", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			if tc.otherSite {
				if _, err := b.pool.Exec(ctx, `UPDATE pages SET domain = 'other.example.org' WHERE id = (SELECT page_id FROM fragments WHERE id = $1)`, b.fragments[20]); err != nil {
					t.Fatal(err)
				}
			}
			if tc.rejected {
				if _, err := b.pool.Exec(ctx, `UPDATE claims SET verification_status = 'rejected', reviewer_status = 'rejected' WHERE id = $1`, b.claimID); err != nil {
					t.Fatal(err)
				}
			}
			for i, frag := range []int64{b.fragments[0], b.fragments[20]} {
				if _, err := b.pool.Exec(ctx, `INSERT INTO edges (source_type, source_id, target_type, target_id, relation, nli_edge_confidence)
					VALUES ('fragment', $1, 'claim', $2, $3, $4)`, frag, b.claimID, tc.relation, tc.conf[i]); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := b.q.RecomputePosteriors(ctx, []int64{b.claimID}); err != nil {
				t.Fatal(err)
			}
			if got := b.cached(t).Verification; got != tc.want {
				t.Errorf("verification %q, want %q", got, tc.want)
			}
			wantAdoption := map[string]string{"verified": "adopted", "pending": "pending", "rejected": "not_adopted"}[tc.want]
			var adoption string
			if err := b.pool.QueryRow(ctx, `SELECT adoption_status FROM claims WHERE id = $1`, b.claimID).Scan(&adoption); err != nil {
				t.Fatal(err)
			}
			if adoption != wantAdoption {
				t.Errorf("adoption %q, want %q", adoption, wantAdoption)
			}
		})
	}
}

// TestVerifiedClaimPromotesItsUnvouchedDomain: an extracted claim of a page
// on blog.example.com, supported from two other sites at 0.9, is verified
// and lifts its UNVERIFIED domain, vouched for by nobody, to LOW with an
// audit row; a domain the policy ruled UNVERIFIED stays so; a pending claim
// promotes nothing.
func TestVerifiedClaimPromotesItsUnvouchedDomain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, source, rule string
		supports           int
		want               string
	}{
		{"unvouched", "policy", "default", 2, "LOW"},
		{"never ruled", "default", "", 2, "LOW"},
		{"ruled by the policy", "policy", `site "blog.example.com" (default policy line 3)`, 2, "UNVERIFIED"},
		{"one site", "policy", "default", 1, "UNVERIFIED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			// one organization, quorum 1: the fleet's level moves with its view
			ctx := verification.WithQuorum(context.Background(), 1)
			// page 1 is the claim's origin, on blog.example.com; pages 2 and 3 are two other sites
			for i, host := range []string{"blog.example.com", "one.example.org", "two.example.net"} {
				if _, err := b.pool.Exec(ctx, `UPDATE pages SET domain = $2 WHERE id = (SELECT page_id FROM fragments WHERE id = $1)`, b.fragments[10*i], host); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := b.pool.Exec(ctx, `INSERT INTO domains (domain, site, level_source, level_rule) VALUES ('blog.example.com', 'example.com', $1, NULLIF($2, ''))`,
				tc.source, tc.rule); err != nil {
				t.Fatal(err)
			}
			var claim int64
			if err := b.pool.QueryRow(ctx, `INSERT INTO claims (task_id, evidence_no, text, text_hash, kind, origin_fragment_id, page_version_id, quote_start, quote_end)
				SELECT c.task_id, 2, 'x', 'x', 'extracted', f.id, f.page_version_id, 0, 3 FROM claims c, fragments f WHERE c.id = $1 AND f.id = $2
				RETURNING id`, b.claimID, b.fragments[0]).Scan(&claim); err != nil {
				t.Fatal(err)
			}
			for i := range tc.supports {
				if _, err := b.pool.Exec(ctx, `INSERT INTO edges (source_type, source_id, target_type, target_id, relation, nli_edge_confidence)
					VALUES ('fragment', $1, 'claim', $2, 'supports', 0.9)`, b.fragments[10*(i+1)], claim); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := b.q.RecomputePosteriors(ctx, []int64{claim}); err != nil {
				t.Fatal(err)
			}
			var level, source string
			var audits int
			if err := b.pool.QueryRow(ctx, `SELECT trust_level, level_source, (SELECT count(*) FROM domain_level_changes WHERE domain = d.domain AND scope = 'fleet')
				FROM domains d WHERE domain = 'blog.example.com'`).Scan(&level, &source, &audits); err != nil {
				t.Fatal(err)
			}
			wantAudits := 0
			if tc.want == "LOW" {
				wantAudits = 1
			}
			if level != tc.want || audits != wantAudits {
				t.Errorf("blog.example.com %s by %s with %d audit rows, want %s with %d", level, source, audits, tc.want, wantAudits)
			}
		})
	}
}
