package workers_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
	"github.com/evidencefleet/evidencefleet/internal/taskindex"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// polarFragments are the paragraphs of the three polar pages (see
// polarPages), one fragment each, on three domains.
var polarFragments = map[string][]string{
	"https://en.wikipedia.org/wiki/Polar_bear": {
		"The polar bear is a large bear native to the Arctic and nearby areas. It is closely related to the brown bear, and the two species can interbreed.",
		"Because of expected habitat loss caused by climate change, the polar bear is classified as a vulnerable species. The loss of sea ice reduces the ability of polar bears to hunt seals.",
		"Polar bear populations are declining because the sea ice in the Arctic is melting earlier each year.",
	},
	"https://www.example-science.org/arctic/sea-ice": {
		"Arctic sea ice has declined in recent decades in area and volume due to climate change. The decline of sea ice is driving polar bear populations toward extinction.",
		"Scientists estimate that two thirds of polar bears could disappear by 2050 as the sea ice melts.",
	},
	"https://news.example-daily.com/polar-bears-thriving": {
		"Some commentators argue that polar bear populations are not declining and that the sea ice is not melting in the Arctic.",
		"Hunting quotas were introduced in the 1970s, and several subpopulations have grown since then.",
	},
}

// verifyPolar stores the polar task in a rolled-back transaction — two
// hypotheses, every paragraph an embedded fragment and an extracted claim of
// its page — and works one verify_nli job on it with the configuration
// adjusted.
func verifyPolar(t *testing.T, adjust func(*workers.VerifyConfig)) pgx.Tx {
	t.Helper()
	ctx := context.Background()
	tx := pgtest.Tx(t)
	embedder := builtin.NewHashEmbedder(256)
	task := fixture.Task(t, tx, polarHypothesis)
	fixture.Claim(t, tx, task, polarHypothesis)
	fixture.Claim(t, tx, task, "Arctic sea ice has declined in area and volume.")
	for _, url := range polarURLs {
		texts := polarFragments[url]
		p := fixture.PageOf(t, tx, task, url, texts...)
		vecs, err := embedder.Embed(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range texts {
			fixture.Embed(t, tx, p.Fragments[i], models.PassageModel(embedder), vecs[i])
			fixture.ExtractedClaim(t, tx, task, p, i, texts[i])
		}
	}
	verify := workers.VerifyConfigFrom(config.Defaults(), builtin.HashEmbedderMinSimilarity)
	if adjust != nil {
		adjust(&verify)
	}
	workVerify(t, tx, task, embedder, learnedNLI(t), verify)
	return tx
}

// learnedNLI is the built-in NLI.
func learnedNLI(t testing.TB) *builtin.LearnedNLI {
	t.Helper()
	nli, err := builtin.NewLearnedNLI()
	if err != nil {
		t.Fatal(err)
	}
	return nli
}

// workVerify works one verify_nli job on the whole task in tx with these
// models and settings, and fails the test unless it completes.
func workVerify(t *testing.T, tx pgx.Tx, task int64, embedder models.Embedder, nli models.NLI, verify workers.VerifyConfig) {
	t.Helper()
	st := store.NewStore(tx)
	w := workers.NewVerifyNLIWorker(st, embedder, nli, workers.NewRecaller(st, embedder, taskindex.NewCache(16<<20), verify.Recall(), nil), verify, nil, nil)
	res, err := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{Middleware: workers.Middleware(store.NewStore(tx), workers.ServerWaits{}, nil, nil)}, w).
		Work(context.Background(), t, tx, wholeTask(t, tx, task), nil)
	if err != nil || res.EventKind != river.EventKindJobCompleted {
		t.Fatalf("verify_nli: %v, %+v", err, res)
	}
}

func TestVerifyExcludesTheClaimsOriginDomain(t *testing.T) {
	t.Parallel()
	tx := verifyPolar(t, nil)
	sameDomain := queryInt(t, tx, `
		SELECT count(*) FROM edges e
		JOIN claims c ON c.id = e.target_id AND e.target_type = 'claim'
		JOIN fragments cf ON cf.id = c.origin_fragment_id JOIN pages cp ON cp.id = cf.page_id
		JOIN fragments f ON f.id = e.source_id JOIN pages p ON p.id = f.page_id
		WHERE e.relation IN `+nliRelations+` AND p.domain = cp.domain`)
	if sameDomain != 0 {
		t.Errorf("%d NLI edges come from the claim's own origin domain", sameDomain)
	}
	crossDomain := queryInt(t, tx, `
		SELECT count(*) FROM edges e JOIN claims c ON c.id = e.target_id AND e.target_type = 'claim'
		WHERE e.relation IN `+nliRelations+` AND c.kind = 'extracted'`)
	if crossDomain == 0 {
		t.Fatal("no NLI edge on any extracted claim: the exclusion test proves nothing")
	}
	// Hypotheses have no origin: every domain of the task may judge them.
	hypothesisDomains := queryInt(t, tx, `
		SELECT count(DISTINCT p.domain) FROM edges e JOIN claims c ON c.id = e.target_id AND e.target_type = 'claim'
		JOIN fragments f ON f.id = e.source_id JOIN pages p ON p.id = f.page_id
		WHERE e.relation IN `+nliRelations+` AND c.kind = 'hypothesis'`)
	if hypothesisDomains != 3 {
		t.Errorf("hypothesis claims judged against %d domains, want all 3", hypothesisDomains)
	}
}

func TestVerifyHonoursLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		adjust func(*workers.VerifyConfig)
		check  func(t *testing.T, tx pgx.Tx)
	}{
		{
			name:   "max_domains",
			adjust: func(c *workers.VerifyConfig) { c.MaxDomains = 1 },
			check: func(t *testing.T, tx pgx.Tx) {
				over := queryInt(t, tx, `SELECT count(*) FROM (
					SELECT e.target_id FROM edges e JOIN fragments f ON f.id = e.source_id JOIN pages p ON p.id = f.page_id
					WHERE e.relation IN `+nliRelations+` GROUP BY e.target_id HAVING count(DISTINCT p.domain) > 1) x`)
				if over != 0 {
					t.Errorf("%d claims judged against more than 1 domain", over)
				}
				if queryInt(t, tx, `SELECT count(*) FROM edges WHERE relation IN `+nliRelations) == 0 {
					t.Error("no NLI edges at all: the test proves nothing")
				}
			},
		},
		{
			name:   "max_pairs_per_claim",
			adjust: func(c *workers.VerifyConfig) { c.MaxPairsPerClaim = 2 },
			check: func(t *testing.T, tx pgx.Tx) {
				over := queryInt(t, tx, `SELECT count(*) FROM (
					SELECT target_id FROM edges WHERE relation IN `+nliRelations+` GROUP BY target_id HAVING count(*) > 2) x`)
				if over != 0 {
					t.Errorf("%d claims with more than 2 NLI edges", over)
				}
				atLimit := queryInt(t, tx, `SELECT count(*) FROM (
					SELECT target_id FROM edges WHERE relation IN `+nliRelations+` GROUP BY target_id HAVING count(*) = 2) x`)
				if atLimit == 0 {
					t.Error("no claim reached the limit: the test proves nothing")
				}
			},
		},
		{
			name:   "min_nli_confidence",
			adjust: func(c *workers.VerifyConfig) { c.MinNLIConfidence = 0.97 },
			check: func(t *testing.T, tx pgx.Tx) {
				low := queryInt(t, tx, `SELECT count(*) FROM edges WHERE relation IN ('supports','refutes') AND nli_edge_confidence < 0.97`)
				if low != 0 {
					t.Errorf("%d supports/refutes edges below min_nli_confidence", low)
				}
				downgraded := queryInt(t, tx, `SELECT count(*) FROM edges WHERE relation = 'neutral' AND nli_label IN ('supports','refutes')`)
				if downgraded == 0 {
					t.Error("no judgement was below the threshold: the test proves nothing")
				}
			},
		},
		{
			name:   "save_neutral false",
			adjust: func(c *workers.VerifyConfig) { c.SaveNeutral = false },
			check: func(t *testing.T, tx pgx.Tx) {
				if n := queryInt(t, tx, `SELECT count(*) FROM edges WHERE relation = 'neutral'`); n != 0 {
					t.Errorf("%d neutral edges stored with save_neutral=false", n)
				}
				if n := queryInt(t, tx, `SELECT count(*) FROM edges WHERE relation IN ('supports','refutes')`); n == 0 {
					t.Error("no supports/refutes edges at all")
				}
			},
		},
		{
			name:   "save_neutral true keeps neutral edges",
			adjust: nil,
			check: func(t *testing.T, tx pgx.Tx) {
				if n := queryInt(t, tx, `SELECT count(*) FROM edges WHERE relation = 'neutral'`); n == 0 {
					t.Error("no neutral edges stored with save_neutral=true")
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.check(t, verifyPolar(t, tt.adjust))
		})
	}
}

// TestSiblingSubdomainsAreOneSource: a claim extracted from a.evil.com is
// never judged against b.evil.com (one registrable domain, one source), on
// both recall paths (the in-memory task index and Postgres full-text search),
// while another site's fragment is.
func TestSiblingSubdomainsAreOneSource(t *testing.T) {
	t.Parallel()
	const claim = "Polar bear populations are declining because the Arctic sea ice is melting."
	for _, inMemory := range []bool{true, false} {
		t.Run(fmt.Sprintf("in memory %v", inMemory), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			tx := pgtest.Tx(t)
			embedder := builtin.NewHashEmbedder(256)
			task := fixture.Task(t, tx, "Sea ice and bears.")
			var origin fixture.Page
			for _, u := range []string{"https://a.evil.com/claim", "https://b.evil.com/echo", "https://science.example.org/ice"} {
				p := fixture.PageOf(t, tx, task, u, claim)
				vecs, err := embedder.Embed(ctx, []string{claim})
				if err != nil {
					t.Fatal(err)
				}
				fixture.Embed(t, tx, p.Fragments[0], models.PassageModel(embedder), vecs[0])
				if origin.ID == 0 {
					origin = p
				}
			}
			claimID := fixture.ExtractedClaim(t, tx, task, origin, 0, claim)
			verify := workers.VerifyConfigFrom(config.Defaults(), builtin.HashEmbedderMinSimilarity)
			st := store.NewStore(tx)
			var index *taskindex.Cache // nil: Postgres
			if inMemory {
				index = taskindex.NewCache(16 << 20)
			}
			recall := workers.NewRecaller(st, embedder, index, verify.Recall(), nil)
			w := workers.NewVerifyNLIWorker(st, embedder, learnedNLI(t), recall, verify, nil, nil)
			if res, err := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{Middleware: workers.Middleware(store.NewStore(tx), workers.ServerWaits{}, nil, nil)}, w).
				Work(ctx, t, tx, jobs.VerifyShard(task, claimID, claimID), nil); err != nil || res.EventKind != river.EventKindJobCompleted {
				t.Fatalf("verify_nli: %v, %+v", err, res)
			}
			judgedBy := func(domain string) int {
				return queryInt(t, tx, `SELECT count(*) FROM edges e JOIN fragments f ON f.id = e.source_id JOIN pages p ON p.id = f.page_id
					WHERE e.target_id = $1 AND e.relation IN `+nliRelations+` AND p.domain = $2`, claimID, domain)
			}
			if n := judgedBy("b.evil.com"); n != 0 {
				t.Errorf("the claim from a.evil.com was judged against b.evil.com (%d edges)", n)
			}
			if n := judgedBy("science.example.org"); n == 0 {
				t.Error("the claim was not judged against another site: the test proves nothing")
			}
		})
	}
}
