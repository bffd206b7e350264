package dashboardcheck_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/apiserver"
	"github.com/evidencefleet/evidencefleet/internal/apitoken"
	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/dashboardcheck"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/jobs"
)

const dashboardPath = "../../../deploy/helm/evidencefleet/dashboards/evidencefleet.json"

// tools finds prometheus and promtool. Without them the check is skipped,
// unless EVF_REQUIRE_PROMETHEUS is set (make dashcheck, CI), which fails.
func tools(t *testing.T) (prom, promtool string) {
	t.Helper()
	prom, err1 := exec.LookPath("prometheus")
	promtool, err2 := exec.LookPath("promtool")
	if err1 != nil || err2 != nil {
		if os.Getenv("EVF_REQUIRE_PROMETHEUS") != "" {
			t.Fatalf("prometheus and promtool are required (apt-get install prometheus): %v %v", err1, err2)
		}
		t.Skip("prometheus/promtool not installed: the dashboard check needs them (make dashcheck)")
	}
	return prom, promtool
}

// TestDashboardAgainstRealPrometheus runs a worker on real jobs (pages
// fetched, embedded, verified, ranked, with HTTP model backends and a failing
// fetch), has a real Prometheus scrape it, and evaluates every query of the
// shipped dashboard through Prometheus's HTTP API: each must parse and return
// data. promtool must accept the worker's exposition.
func TestDashboardAgainstRealPrometheus(t *testing.T) {
	t.Parallel()
	prom, promtool := tools(t)
	queries, err := dashboardcheck.Load(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}

	servers := testfleet.StartModelServers(t)
	pages := []corpus.Page{
		testfleet.Page("https://a.example.org/ice", "Sea ice", "Arctic sea ice extent declined sharply over the last four decades.", "Satellite records show the summer minimum falling fast."),
		testfleet.Page("https://b.example.net/bears", "Polar bears", "Polar bear populations depend on sea ice for hunting seals.", "Arctic sea ice has not declined according to one blog."),
		testfleet.Page("https://c.example.com/glaciers", "Glaciers", "Mountain glaciers have lost mass in most regions since 1980.", "Arctic sea ice extent declined in every recent decade."),
	}
	f := testfleet.Start(t, testfleet.Options{Pages: pages, Adjust: func(c *config.Config) {
		c.Embed = config.Model{Backend: "tei", URL: servers.TEI.URL, ModelName: "hash", Concurrency: 4, Retries: 1, BreakerFailures: 5, BreakerCooldown: time.Second}
		c.NLI = config.Model{Backend: "tei", URL: servers.TEI.URL, ModelName: "lexical", Concurrency: 4, Retries: 1, BreakerFailures: 5, BreakerCooldown: time.Second}
		c.Rerank = config.Model{Backend: "jina", URL: servers.Jina.URL, ModelName: "bm25", Concurrency: 4, Retries: 1, BreakerFailures: 5, BreakerCooldown: time.Second}
		c.MinSimilarity = 0.05
	}})
	metricsSrv := httptest.NewServer(f.Worker.Handler())
	t.Cleanup(metricsSrv.Close)
	apiMetrics := startAPI(t, f)

	promURL := startPrometheus(t, prom, metricsSrv.Listener.Addr().String(), apiMetrics.Listener.Addr().String())

	task := f.CreateTask(t, "Arctic sea ice is declining.")
	f.AddTargets(t, task, "https://a.example.org/ice", "https://b.example.net/bears", "https://c.example.com/glaciers",
		"https://missing.example.org/not-in-the-archive")
	testfleet.InsertRawJob(t, f.Pool, jobs.KindVerifyNLI, jobs.QueueNLI, `{"task_id": 987654}`) // cancelled
	testfleet.WaitIdle(t, f.Pool, 60*time.Second)
	testfleet.InsertRawJob(t, f.Pool, jobs.KindRerank, jobs.QueueRerank, fmt.Sprintf(`{"task_id": %d}`, task))
	testfleet.WaitIdle(t, f.Pool, 60*time.Second)

	// Enough scrapes after the work for every rate window to hold samples.
	waitFor(t, 30*time.Second, func() bool {
		return len(query(t, promURL, `evidencefleet_jobs_total{kind="rerank", outcome="completed"} > 0`)) > 0
	})
	time.Sleep(3 * time.Second)

	// The checker itself must catch a query that names no real metric.
	if got := query(t, promURL, dashboardcheck.PromQL(`sum by (kind) (rate(evidencefleet_no_such_metric_total{namespace=~"$namespace"}[$__rate_interval]))`, "1m")); len(got) != 0 {
		t.Fatalf("a query of a metric that does not exist returned %d series: the check proves nothing", len(got))
	}
	for _, q := range queries {
		expr := dashboardcheck.PromQL(q.Expr, "1m")
		if res := query(t, promURL, expr); len(res) == 0 {
			t.Errorf("%s returns no data:\n  %s", q.Where, expr)
		}
	}
	t.Logf("%d dashboard queries evaluated", len(queries))

	// promtool lints the expositions.
	for _, srv := range []*httptest.Server{metricsSrv, apiMetrics} {
		resp, err := http.Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(promtool, "check", "metrics")
		cmd.Stdin = bytes.NewReader(body)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool check metrics %s: %v\n%s", srv.URL, err, out)
		}
	}
}

// startAPI serves the API process on the fleet's database and sends it
// requests the dashboard's API row shows (a success, a refused token, a
// request past the token's rate, an event stream, left open): it returns
// the server of the API process's /metrics.
func startAPI(t *testing.T, f *testfleet.Fleet) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	srv, err := apiserver.New(f.Pool, apiserver.Options{Rate: 0.001, Burst: 3})
	if err != nil {
		t.Fatal(err)
	}
	apiSrv := httptest.NewServer(srv.Handler())
	t.Cleanup(apiSrv.Close)
	secret, _, err := apitoken.Issue(ctx, f.Store, apitoken.Organization, "acme", "dashboard")
	if err != nil {
		t.Fatal(err)
	}
	task := f.CreateTask(t, "Glaciers are retreating.")
	sctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	for _, r := range []struct {
		ctx    context.Context
		secret string
		path   string
	}{{sctx, secret, fmt.Sprintf("/v1/tasks/%d/events", task)}, {ctx, secret, "/v1/tasks"}, {ctx, "wrong", "/v1/tasks"},
		{ctx, secret, "/v1/tasks"}, {ctx, secret, "/v1/tasks"}} {
		req, _ := http.NewRequestWithContext(r.ctx, http.MethodGet, apiSrv.URL+r.path, nil)
		req.Header.Set("Authorization", "Bearer "+r.secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if r.ctx == ctx {
			resp.Body.Close()
		}
	}
	metrics := httptest.NewServer(srv.MetricsHandler())
	t.Cleanup(metrics.Close)
	return metrics
}

// quoted is targets as a YAML flow sequence's items.
func quoted(targets []string) string {
	q := make([]string, len(targets))
	for i, t := range targets {
		q[i] = strconv.Quote(t)
	}
	return strings.Join(q, ", ")
}

// startPrometheus runs prometheus scraping the targets every second, with the
// namespace label a Kubernetes service discovery would add.
func startPrometheus(t *testing.T, bin string, targets ...string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: evidencefleet
    static_configs:
      - targets: [%s]
        labels:
          namespace: evf-test
`, quoted(targets))
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	var logs bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config.file="+cfgPath, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus log:\n%s", logs.String())
		}
	})
	u := "http://" + addr
	waitFor(t, 30*time.Second, func() bool {
		resp, err := http.Get(u + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return u
}

// query evaluates expr at the current time and returns its series; a
// query that does not parse fails the test.
func query(t *testing.T, promURL, expr string) []json.RawMessage {
	t.Helper()
	resp, err := http.PostForm(promURL+"/api/v1/query", url.Values{"query": {expr}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string            `json:"resultType"`
			Result     []json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("query %s: %v", expr, err)
	}
	if out.Status != "success" {
		t.Fatalf("query %s: %s", expr, out.Error)
	}
	return out.Data.Result
}

func waitFor(t *testing.T, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s", timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
