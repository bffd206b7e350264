package workers_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// TestRecheckUnreachable: a page's recheck that can get no text records
// every span the task cites in it unreachable, with the reason, and counts
// them — whether the server keeps failing until the job's last attempt
// (the middleware records it as the job is discarded), robots.txt refuses
// the page (no fetch made: the day's recheck fetch is given back), or the
// answer has no text; an academic API's abstract is not fetched at all.
func TestRecheckUnreachable(t *testing.T) {
	t.Parallel()
	const sentence = "Glaciers lost 3 percent of their ice in 2022."
	for _, tc := range []struct {
		name       string
		handler    http.HandlerFunc
		abstract   bool
		wantJob    string // the job's final state
		wantReason string // in the check's reason ("" for no check)
		wantFetch  int    // recheck fetches counted for the day
	}{
		{name: "server errors outlive the attempts", wantJob: "discarded", wantReason: "transient after 1 attempts", wantFetch: 1,
			handler: func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					http.NotFound(w, r)
					return
				}
				http.Error(w, "down", http.StatusInternalServerError)
			}},
		{name: "robots.txt unavailable until the last attempt", wantJob: "discarded", wantReason: "robots_unavailable", wantFetch: 0,
			handler: func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/robots.txt" {
					t.Errorf("%s was fetched though robots.txt could not be read", r.URL.Path)
				}
				http.Error(w, "down", http.StatusInternalServerError)
			}},
		{name: "robots.txt refuses the page", wantJob: "completed", wantReason: "robots_disallowed", wantFetch: 0,
			handler: func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					_, _ = w.Write([]byte("User-agent: *\nDisallow: /\n"))
					return
				}
				t.Errorf("%s was fetched though robots.txt refuses it", r.URL.Path)
			}},
		{name: "the answer has no text", wantJob: "completed", wantReason: "", wantFetch: 1,
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write([]byte("<html><body><script>1</script></body></html>"))
			}},
		{name: "an academic abstract is not fetched", abstract: true, wantJob: "completed", wantFetch: 0,
			handler: func(w http.ResponseWriter, r *http.Request) { t.Errorf("%s was fetched", r.URL.Path) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Its own address: a recheck stores the page (the domain's row)
			// before it takes the domain's turn, target_queue the other way
			// round (TestLiveFetchesTakeTheirDomainsTurn, on 127.0.0.1).
			site := serveOn(t, "127.0.0.3", tc.handler)
			policy := filepath.Join(t.TempDir(), "policy.yaml")
			if err := os.WriteFile(policy, []byte("default: {requests_per_second: 50, requests_per_day: 100}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			f := testfleet.InTx(t, testfleet.Options{Adjust: func(cfg *config.Config) {
				cfg.ReplayDir, cfg.AllowPrivateIPs, cfg.FetchDelay, cfg.DomainPolicy = "", true, 0, policy
			}})
			ctx := context.Background()
			task := fixture.Task(t, f.Tx, "Glaciers are losing ice.")
			p := fixture.PageOf(t, f.Tx, task, site.URL+"/report", sentence)
			fixture.ExtractedClaim(t, f.Tx, task, p, 0, sentence)
			if tc.abstract {
				if _, err := f.Tx.Exec(ctx, `UPDATE pages SET abstract_only = true WHERE id = $1`, p.ID); err != nil {
					t.Fatal(err)
				}
			}
			job, err := f.Client.InsertTx(ctx, f.Tx, jobs.RecheckArgs{TaskID: task, PageID: p.ID}, &river.InsertOpts{MaxAttempts: 1})
			if err != nil {
				t.Fatal(err)
			}
			f.WorkNext(t, jobs.KindRecheck)
			state, lastErr, _ := testfleet.JobRow(t, f.Tx, job.Job.ID)
			if state != tc.wantJob {
				t.Errorf("the job is %s (%s), want %s", state, lastErr, tc.wantJob)
			}
			var checks, unreachable, fetches int
			var reason string
			if err := f.Tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM source_checks WHERE task_id = $1),
				(SELECT count(*) FROM citation_checks cc JOIN source_checks sc ON sc.id = cc.check_id WHERE sc.task_id = $1 AND cc.state = 'unreachable'),
				COALESCE((SELECT string_agg(reason, ' ') FROM source_checks WHERE task_id = $1 AND outcome = 'unreachable'), ''),
				COALESCE((SELECT sum(fetches) FROM recheck_days), 0)`, task).Scan(&checks, &unreachable, &reason, &fetches); err != nil {
				t.Fatal(err)
			}
			wantChecks := 1
			if tc.abstract {
				wantChecks = 0
			}
			if checks != wantChecks || unreachable != wantChecks {
				t.Errorf("%d checks with %d spans unreachable, want %d and %d", checks, unreachable, wantChecks, wantChecks)
			}
			if !strings.Contains(reason, tc.wantReason) {
				t.Errorf("the check's reason is %q, want it to say %q", reason, tc.wantReason)
			}
			if fetches != tc.wantFetch {
				t.Errorf("%d recheck fetches counted for the day, want %d", fetches, tc.wantFetch)
			}
			if got := counterValue(t, f, "evidencefleet_recheck_citations_total", "state", "unreachable"); got != float64(wantChecks) {
				t.Errorf("recheck_citations_total{state=unreachable} = %v, want %d", got, wantChecks)
			}
		})
	}
}

// counterValue is the value of the counter name with the label, in the
// fleet's metrics.
func counterValue(t *testing.T, f *testfleet.TxFleet, name, label, value string) float64 {
	t.Helper()
	families, err := f.Metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, fam := range families {
		if fam.GetName() != name {
			continue
		}
		for _, m := range fam.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
