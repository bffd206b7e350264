package workers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/domainpolicy"
	"github.com/evidencefleet/evidencefleet/internal/extract"
	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestLiveFetchesTakeTheirDomainsTurn works target_queue jobs of one live
// site (an httptest server; its robots.txt asks a Crawl-delay of 7 s) in a
// transaction, where the database's clock stands still: the first fetch
// takes the domain's turn, the next snoozes without fetching (the spacing
// recorded is the Crawl-delay, longer than the policy's 5 s), a URL
// robots.txt disallows fails without taking a turn, and with a budget of
// one a day the second fetch snoozes for the next UTC day. Each wait is in
// the job's metadata and the metrics.
func TestLiveFetchesTakeTheirDomainsTurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var spacingHits atomic.Int32 // pages of the spacing subtest requested
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nCrawl-delay: 7\nDisallow: /private\n")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/spacing/") {
			spacingHits.Add(1)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, strings.ReplaceAll(policyPage, "%s", r.URL.Path))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	fetcher, err := crawl.New(crawl.Config{AllowPrivate: true, RespectRobots: true, DomainDelay: -1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fetcher.Close)

	type testBundle struct {
		tx      pgx.Tx
		task    int64
		metrics *metrics.Metrics
	}
	setup := func(t *testing.T, policy *domainpolicy.Policy) (*rivertest.Worker[jobs.TargetQueueArgs, pgx.Tx], *testBundle) {
		t.Helper()
		tx := pgtest.Tx(t)
		b := &testBundle{tx: tx, task: fixture.Task(t, tx, "Arctic sea ice is declining."), metrics: metrics.New()}
		w := workers.NewTargetQueueWorker(store.NewStore(tx), fetcher, builtin.NewHashEmbedder(256), nil, workers.TargetSources{},
			workers.PageSettings{Extract: workers.ExtractConfig{Fragments: extract.FragmentOptions{MaxRunes: 600}, MaxClaimsPerPage: 20}, Policy: policy},
			nil, b.metrics, nil)
		return rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{Middleware: workers.Middleware(store.NewStore(tx), workers.ServerWaits{}, nil, nil)}, w), b
	}
	// The subtests fetch the server under two names, two domains, so that
	// neither waits for the other's transaction on its domain's row.
	spacingSite, budgetSite := srv.URL, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	work := func(t *testing.T, w *rivertest.Worker[jobs.TargetQueueArgs, pgx.Tx], b *testBundle, url string) *rivertest.WorkResult {
		t.Helper()
		res, err := w.Work(ctx, t, b.tx, jobs.TargetQueueArgs{TaskID: b.task, Target: jobs.Target{Kind: jobs.TargetURL, Value: url}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	politeMeta := func(t *testing.T, res *rivertest.WorkResult) (waits int, reason string) {
		t.Helper()
		var m struct {
			Waits  int    `json:"polite_waits"`
			Reason string `json:"polite_reason"`
		}
		if err := json.Unmarshal(res.Job.Metadata, &m); err != nil {
			t.Fatal(err)
		}
		return m.Waits, m.Reason
	}
	waitsCounted := func(t *testing.T, m *metrics.Metrics, reason string) float64 {
		t.Helper()
		n, err := m.Sum("evidencefleet_politeness_waits_total", map[string]string{"reason": reason})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("SpacingFromTheCrawlDelay", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t, nil)
		if res := work(t, w, b, spacingSite+"/spacing/a"); res.EventKind != river.EventKindJobCompleted {
			t.Fatalf("first fetch: %s, want completed", res.EventKind)
		}
		res := work(t, w, b, spacingSite+"/spacing/b")
		if res.EventKind != river.EventKindJobSnoozed {
			t.Fatalf("second fetch of the domain: %s, want snoozed", res.EventKind)
		}
		if waits, reason := politeMeta(t, res); waits != 1 || reason != store.SlotSpacing {
			t.Errorf("snoozed job's metadata: %d politeness waits, reason %q; want 1, spacing", waits, reason)
		}
		if res := work(t, w, b, spacingSite+"/private/spacing/c"); res.EventKind != river.EventKindJobCancelled {
			t.Errorf("a URL robots.txt disallows: %s, want cancelled", res.EventKind)
		}
		if n := spacingHits.Load(); n != 1 {
			t.Errorf("%d pages requested, want the first only", n)
		}
		var spacing time.Duration
		var grants int
		if err := b.tx.QueryRow(ctx, `SELECT p.next_at - p.last_fetch_at, (SELECT count(*) FROM domain_fetches f WHERE f.domain = p.domain)
			FROM domain_politeness p WHERE p.domain = '127.0.0.1'`).Scan(&spacing, &grants); err != nil {
			t.Fatal(err)
		}
		if spacing != 7*time.Second || grants != 1 {
			t.Errorf("the domain's row: spacing %s after %d grants; want robots.txt's 7s after 1", spacing, grants)
		}
		if n := waitsCounted(t, b.metrics, store.SlotSpacing); n != 1 {
			t.Errorf("politeness_waits_total{reason=spacing} = %v, want 1", n)
		}
	})

	t.Run("BudgetUntilTheNextUTCDay", func(t *testing.T) {
		t.Parallel()
		policy, err := domainpolicy.Parse("budget.yaml", []byte("default: {requests_per_day: 1}\n"))
		if err != nil {
			t.Fatal(err)
		}
		w, b := setup(t, policy)
		if res := work(t, w, b, budgetSite+"/budget/a"); res.EventKind != river.EventKindJobCompleted {
			t.Fatalf("first fetch: %s, want completed", res.EventKind)
		}
		res := work(t, w, b, budgetSite+"/budget/b")
		if res.EventKind != river.EventKindJobSnoozed {
			t.Fatalf("second fetch on a budget of 1: %s, want snoozed", res.EventKind)
		}
		if waits, reason := politeMeta(t, res); waits != 1 || reason != store.SlotBudget {
			t.Errorf("snoozed job's metadata: %d politeness waits, reason %q; want 1, budget", waits, reason)
		}
		var tomorrow time.Time // the next UTC midnight by the database's clock, as the reservation saw it
		if err := b.tx.QueryRow(ctx, `SELECT ((now() AT TIME ZONE 'UTC')::date + 1)::timestamp AT TIME ZONE 'UTC'`).Scan(&tomorrow); err != nil {
			t.Fatal(err)
		}
		if res.Job.ScheduledAt.Before(tomorrow.Add(-time.Minute)) {
			t.Errorf("snoozed until %s, want the next UTC day (%s)", res.Job.ScheduledAt, tomorrow)
		}
		if n, _ := b.metrics.Sum("evidencefleet_politeness_budgets_exhausted_total", nil); n != 1 || waitsCounted(t, b.metrics, store.SlotBudget) != 1 {
			t.Errorf("budgets exhausted %v, budget waits %v; want 1 each", n, waitsCounted(t, b.metrics, store.SlotBudget))
		}
	})
}

// TestTheRobotsTxtOfAJobThatWaitsIsKept: a job that reads a site's
// robots.txt and then finds its domain's turn taken snoozes without its
// page, and the robots.txt it read is stored all the same: the fetcher now
// holds it for a day, and the pages fetched under it meanwhile are
// exported with it.
func TestTheRobotsTxtOfAJobThatWaitsIsKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := serveOn(t, "127.0.0.2", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, strings.ReplaceAll(policyPage, "%s", r.URL.Path))
	})
	fetcher, err := crawl.New(crawl.Config{AllowPrivate: true, RespectRobots: true, DomainDelay: -1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fetcher.Close)
	tx := pgtest.Tx(t)
	task := fixture.Task(t, tx, "Arctic sea ice is declining.")
	// Another process took the domain's turn a moment ago.
	if _, err := tx.Exec(ctx, `INSERT INTO domain_politeness (domain, next_at, queue_at, day, day_count, last_fetch_at, last_answer)
		VALUES ('127.0.0.2', now() + interval '1 hour', now() + interval '1 hour', (now() AT TIME ZONE 'UTC')::date, 1, now(), 'granted')`); err != nil {
		t.Fatal(err)
	}
	w := workers.NewTargetQueueWorker(store.NewStore(tx), fetcher, builtin.NewHashEmbedder(256), nil, workers.TargetSources{},
		workers.PageSettings{Extract: workers.ExtractConfig{Fragments: extract.FragmentOptions{MaxRunes: 600}, MaxClaimsPerPage: 20}}, nil, nil, nil)
	tw := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{Middleware: workers.Middleware(store.NewStore(tx), workers.ServerWaits{}, nil, nil)}, w)
	res, err := tw.Work(ctx, t, tx, jobs.TargetQueueArgs{TaskID: task, Target: jobs.Target{Kind: jobs.TargetURL, Value: srv.URL + "/a"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.EventKind != river.EventKindJobSnoozed {
		t.Fatalf("a fetch whose turn was taken: %s, want snoozed", res.EventKind)
	}
	var n, status int
	if err := tx.QueryRow(ctx, `SELECT count(*), COALESCE(max(status), 0) FROM robots_captures WHERE origin = $1`, store.CaptureOrigin(srv.URL)).Scan(&n, &status); err != nil {
		t.Fatal(err)
	}
	if n != 1 || status != http.StatusOK {
		t.Errorf("robots.txt captures of %s: %d (status %d), want the one the waiting job read", srv.URL, n, status)
	}
}

// serveOn is an httptest server on a loopback address of its own (Linux
// answers all of 127.0.0.0/8), so that its domain's rows (domains,
// domain_politeness) are its test's alone: tests of 127.0.0.1 that take
// the two in opposite orders in parallel transactions deadlock. Skipped
// where the address cannot be bound.
func serveOn(t *testing.T, ip string, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("no loopback address %s: %v", ip, err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}
