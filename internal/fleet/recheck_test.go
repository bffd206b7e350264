package fleet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/apiserver"
	"github.com/evidencefleet/evidencefleet/internal/apitoken"
	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/harness/warccheck"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// TestRecheckCitedSources is issue 48's recheck must-show. A live site
// (an httptest server, the SSRF guard off) serves four pages a task cites;
// then, on the recheck, one page unchanged, one whose cited sentence was
// edited, one that moved (301) and one that is gone (410). The periodic
// sweep starts the task's round (the task is older than the weekly
// interval); the fleet's recheck budget of 3 fetches a day lets three
// pages be fetched and holds the fourth until the next UTC day (simulated
// by moving the day's count back). Each cited span is classified as its
// page went, the cited versions and the claims' spans are untouched (the
// edited page's new text is a new version), the export — through the
// service and the HTTP API — carries each quote's state and, for the
// edited one, the new text around it, the status sums it up, the task's
// events record each change, and the site was asked for each page once
// per pass with every fetch a granted turn of the domain (counted).
func TestRecheckCitedSources(t *testing.T) {
	t.Parallel()
	const (
		stable   = "The Rhône Glacier lost 350 metres of its length between 2000 and 2020 in Valais."
		cited    = "The Aletsch Glacier lost 3.4 cubic kilometres of ice during the summer of 2022."
		edited   = "The Aletsch Glacier lost 2.1 cubic kilometres of ice during the summer of 2022."
		movedTxt = "The Gorner Glacier thinned by 40 metres at its tongue between 2000 and 2020."
		goneTxt  = "The Morteratsch Glacier retreated more than 3 kilometres since 1860 according to records."
	)
	var pass atomic.Int32 // 1: as cited, 2: the recheck
	pass.Store(1)
	var mu sync.Mutex
	asked := map[string]int{} // "pass path" → requests
	serve := func(w http.ResponseWriter, title string, paras ...string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(testfleet.HTML(title, paras...))
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		p := pass.Load()
		mu.Lock()
		asked[fmt.Sprint(p, " ", r.URL.Path)]++
		mu.Unlock()
		switch {
		case r.URL.Path == "/unchanged":
			serve(w, "Rhône Glacier", stable)
		case r.URL.Path == "/edited" && p == 1:
			serve(w, "Aletsch Glacier", cited, "Melt was measured by stakes drilled into the ice at 12 sites.")
		case r.URL.Path == "/edited":
			serve(w, "Aletsch Glacier", edited, "Melt was measured by stakes drilled into the ice at 12 sites.")
		case r.URL.Path == "/moved" && p == 1, r.URL.Path == "/glaciers/gorner":
			serve(w, "Gorner Glacier", movedTxt)
		case r.URL.Path == "/moved":
			http.Redirect(w, r, "/glaciers/gorner", http.StatusMovedPermanently)
		case r.URL.Path == "/gone" && p == 1:
			serve(w, "Morteratsch Glacier", goneTxt)
		case r.URL.Path == "/gone":
			http.Error(w, "gone", http.StatusGone)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(policy, []byte("default: {requests_per_second: 50, requests_per_day: 100}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const budget = 3
	f := testfleet.Start(t, testfleet.Options{Adjust: func(cfg *config.Config) {
		cfg.ReplayDir, cfg.AllowPrivateIPs, cfg.FetchDelay, cfg.DomainPolicy = "", true, 0, policy
		cfg.RecheckDaily, cfg.RecheckSweep = budget, 0
	}})
	ctx := context.Background()
	task := f.CreateTask(t, "Alpine glaciers are losing ice.")
	urls := map[string]string{}
	for _, p := range []string{"unchanged", "edited", "moved", "gone"} {
		urls[p] = site.URL + "/" + p
		f.AddTargets(t, task, urls[p])
	}
	testfleet.WaitIdle(t, f.Pool, 2*time.Minute)

	// What the task cites, before the recheck.
	snapshot := func() string {
		t.Helper()
		var s string
		if err := f.Pool.QueryRow(ctx, `SELECT string_agg(format('%s %s %s %s', v.id, v.sha256, md5(v.content), v.fetched_at), E'\n' ORDER BY v.id)
			|| E'\n' || (SELECT string_agg(format('%s %s %s %s', c.id, c.page_version_id, c.quote_start, c.quote_end), E'\n' ORDER BY c.id)
			             FROM claims c WHERE c.task_id = $1)
			FROM page_versions v WHERE v.id IN (SELECT page_version_id FROM task_citations WHERE task_id = $1)`, task).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := snapshot()
	for _, q := range []string{cited, movedTxt, goneTxt, stable} {
		if n := queryInt(t, f.Pool, `SELECT count(*) FROM claims WHERE task_id = $1 AND text = $2`, task, q); n != 1 {
			var texts string
			_ = f.Pool.QueryRow(ctx, `SELECT string_agg(text, E'\n') FROM claims WHERE task_id = $1`, task).Scan(&texts)
			t.Fatalf("the task has %d claims %q, want it cited once; its claims:\n%s", n, q, texts)
		}
	}
	grantsBefore := queryInt(t, f.Pool, `SELECT count(*) FROM domain_fetches WHERE domain = '127.0.0.1'`)

	// The recheck: the task is a week old, so the sweep starts its round.
	pass.Store(2)
	if _, err := f.Pool.Exec(ctx, `UPDATE tasks SET created_at = now() - interval '8 days' WHERE id = $1`, task); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Client.Insert(ctx, jobs.RecheckArgs{}, nil); err != nil {
		t.Fatal(err)
	}
	held := pollUntil(time.Minute, 50*time.Millisecond, func() bool {
		return queryInt(t, f.Pool, `SELECT count(*) FROM source_checks WHERE task_id = $1`, task) == budget &&
			queryInt(t, f.Pool, `SELECT count(*) FROM river_job WHERE kind = 'recheck' AND state = 'scheduled' AND metadata->>'polite_reason' = 'recheck_budget'`) == 1
	})
	if !held {
		t.Fatalf("want %d pages checked and the fourth waiting for the recheck budget\n%s", budget, testfleet.JobDump(t, f.Pool))
	}
	if days := queryInt(t, f.Pool, `SELECT count(*) FROM recheck_days`); days != 1 {
		t.Skip("the run crossed UTC midnight, where the recheck budget starts over")
	}
	if n := queryInt(t, f.Pool, `SELECT fetches FROM recheck_days`); n != budget {
		t.Errorf("the day's recheck fetches are %d, want the budget of %d", n, budget)
	}
	mu.Lock()
	fetched := 0
	for k, n := range asked {
		if strings.HasPrefix(k, "2 ") && k != "2 /glaciers/gorner" {
			fetched += n
		}
	}
	mu.Unlock()
	if fetched != budget {
		t.Errorf("the site was asked for %d cited pages within the budget of %d", fetched, budget)
	}
	// The next UTC day: the day's count is yesterday's, and the held job's time has come.
	if _, err := f.Pool.Exec(ctx, `UPDATE recheck_days SET day = day - 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Pool.Exec(ctx, `UPDATE river_job SET scheduled_at = now() WHERE kind = 'recheck' AND state = 'scheduled'`); err != nil {
		t.Fatal(err)
	}
	testfleet.WaitIdle(t, f.Pool, time.Minute)

	// Each page's check, and each cited span's state.
	outcomes := map[string]string{}
	rows, err := f.Pool.Query(ctx, `SELECT p.url, sc.outcome, COALESCE(sc.http_status, 0) FROM source_checks sc JOIN pages p ON p.id = sc.page_id WHERE sc.task_id = $1`, task)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var url, outcome string
		var status int
		if err := rows.Scan(&url, &outcome, &status); err != nil {
			t.Fatal(err)
		}
		outcomes[url] = fmt.Sprint(outcome, " ", status)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"unchanged": "unchanged 200", "edited": "unchanged 200", "moved": "moved 200", "gone": "gone 410"} {
		if got := outcomes[urls[p]]; got != want {
			t.Errorf("the check of /%s: %q, want %q (all: %v)", p, got, want, outcomes)
		}
	}
	if after := snapshot(); after != before {
		t.Errorf("the cited versions or the claims' spans changed:\nbefore\n%s\nafter\n%s", before, after)
	}
	if n := queryInt(t, f.Pool, `SELECT count(*) FROM page_versions v JOIN pages p ON p.id = v.page_id
		JOIN page_captures c ON c.page_version_id = v.id WHERE p.url = $1`, urls["edited"]); n != 2 {
		t.Errorf("the edited page has %d captured versions, want the cited one and the new one", n)
	}

	// The export (service and HTTP API) and the status.
	svc := service.New(f.Store, f.Client)
	export, err := svc.Export(ctx, "test-org", task, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantState := map[string]string{stable: "unchanged", cited: "edited", movedTxt: "moved", goneTxt: "gone",
		"Melt was measured by stakes drilled into the ice at 12 sites.": "unchanged"}
	for _, it := range export.Items {
		want, ok := wantState[it.Claim]
		if !ok {
			continue
		}
		switch {
		case it.Recheck == nil:
			t.Errorf("%s %q has no recheck, want %s", it.ID, it.Claim, want)
		case it.Recheck.State != want:
			t.Errorf("%s %q: recheck %s, want %s", it.ID, it.Claim, it.Recheck.State, want)
		case want == "edited" && (it.Recheck.TextAround == nil || !strings.Contains(*it.Recheck.TextAround, "2.1 cubic kilometres")):
			t.Errorf("%s: the text around the edited span is %v, want the new sentence", it.ID, it.Recheck.TextAround)
		case want == "moved" && (it.Recheck.FinalURL == nil || !strings.HasSuffix(*it.Recheck.FinalURL, "/glaciers/gorner")):
			t.Errorf("%s: moved to %v, want …/glaciers/gorner", it.ID, it.Recheck.FinalURL)
		}
	}
	st, err := svc.Status(ctx, "test-org", task)
	if err != nil {
		t.Fatal(err)
	}
	r := st.Rechecks
	if r.Checked != r.Citations || r.Edited < 1 || r.Moved < 1 || r.Gone < 1 || r.Unreachable != 0 || r.LastCheckedAt == nil {
		t.Errorf("status rechecks %+v: want every citation checked, some edited, moved and gone, none unreachable", r)
	}
	if n := queryInt(t, f.Pool, `SELECT count(*) FROM event_log WHERE task_id = $1 AND event_type = 'source_changed'`, task); n != 3 {
		t.Errorf("%d source_changed events, want 3 (edited, moved, gone)", n)
	}
	// The web archive of the task: the four cited versions and the edited
	// page's new one, each with its request, and the site's robots.txt
	// (a 404) as it was read before them.
	warcPath := filepath.Join(t.TempDir(), "task.warc.gz")
	var archive, cdxj bytes.Buffer
	res, err := svc.ExportWARC(ctx, "test-org", task, &archive, &cdxj, filepath.Base(warcPath))
	if err != nil {
		t.Fatal(err)
	}
	if res.Records != 5 || res.Robots != 1 || res.Uncaptured != 0 {
		t.Errorf("the WARC export holds %+v, want 5 page versions, all captured, and one robots.txt", res)
	}
	if err := os.WriteFile(warcPath, archive.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(warcPath+".cdxj", cdxj.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func() { // last: it skips the test where warcio.js is not installed
		report := warccheck.Validate(t, warcPath, warcPath+".cdxj")
		robots := 0
		for _, r := range report.Responses {
			if strings.HasSuffix(r.URI, "/robots.txt") && r.Status == http.StatusNotFound {
				robots++
			}
		}
		if len(report.Errors) > 0 || report.ByType["response"] != 6 || report.ByType["request"] != 6 || robots != 1 {
			t.Errorf("warcio read the export as %v (robots.txt responses %d) with errors %v, want 6 responses, each with its request, one the 404 of robots.txt, no error",
				report.ByType, robots, report.Errors)
		}
	}()
	srv, err := apiserver.New(f.Pool, apiserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	api := httptest.NewServer(srv.Handler())
	t.Cleanup(api.Close)
	secret, _, err := apitoken.Issue(ctx, f.Store, apitoken.Organization, "test-org", "recheck")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/v1/tasks/%d/export", api.URL, task), nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var page struct {
		Items []struct {
			Claim   string `json:"claim"`
			Recheck *struct {
				State string `json:"state"`
			} `json:"recheck"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &page); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET export: %d %v\n%s", resp.StatusCode, err, body)
	}
	apiStates := 0
	for _, it := range page.Items {
		if want, ok := wantState[it.Claim]; ok && it.Recheck != nil && it.Recheck.State == want {
			apiStates++
		}
	}
	if apiStates != len(wantState) {
		t.Errorf("the API's export gives %d of the %d quotes their state:\n%s", apiStates, len(wantState), body)
	}
	// The task's schedule set through the API: daily, no round now; a
	// schedule too tight is refused naming the field.
	for _, tc := range []struct {
		body string
		code int
		want string
	}{
		{`{"every": "24h"}`, http.StatusOK, `"schedule":"every 24h0m0s"`},
		{`{"every": "5m"}`, http.StatusBadRequest, `every \"5m\": want a duration of at least 1h`},
	} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, fmt.Sprintf("%s/v1/tasks/%d/recheck", api.URL, task), strings.NewReader(tc.body))
		req.Header.Set("Authorization", "Bearer "+secret)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code || !strings.Contains(string(b), tc.want) {
			t.Errorf("POST recheck %s: %d %s, want %d and %s", tc.body, resp.StatusCode, b, tc.code, tc.want)
		}
	}
	if n := queryInt(t, f.Pool, `SELECT count(*) FROM tasks WHERE id = $1 AND recheck_every = interval '24 hours'`, task); n != 1 {
		t.Errorf("the task's recheck interval was not set to a day")
	}

	// Politeness and the budget, counted: each cited page asked for once in
	// the recheck, each fetch a granted turn of the domain, four recheck
	// fetches over the two days.
	mu.Lock()
	for _, p := range []string{"/unchanged", "/edited", "/moved", "/gone"} {
		if n := asked["2 "+p]; n != 1 {
			t.Errorf("the recheck asked for %s %d times, want once", p, n)
		}
	}
	mu.Unlock()
	if n := queryInt(t, f.Pool, `SELECT count(*) FROM domain_fetches WHERE domain = '127.0.0.1'`) - grantsBefore; n != 4 {
		t.Errorf("%d turns of the domain granted to the recheck, want 4 (one per page)", n)
	}
	if n := queryInt(t, f.Pool, `SELECT sum(fetches) FROM recheck_days`); n != 4 {
		t.Errorf("%d recheck fetches counted, want 4", n)
	}
}
