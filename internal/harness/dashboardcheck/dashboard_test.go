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
	"regexp"
	"runtime/debug"
	"slices"
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

// The labels the Prometheus Operator gives the series of release "evf" in
// namespace evf-test, scraped through the chart's metrics Service, which
// names the job; and the pods of the worker and the API process the test
// runs.
const (
	namespace = "evf-test"
	job       = "evf-evidencefleet-metrics"
	workerPod = "evf-evidencefleet-verify-6d5f8c7b9-x2k4q"
	apiPod    = "evf-evidencefleet-api-7c9d8f6b5-m8n2p"
	otherPod  = "another-app-0" // of no release: kube-state-metrics reports every pod
)

// perPod matches the process, Go runtime and kube-state-metrics series
// the "Processes, by pod" panels read.
var perPod = regexp.MustCompile(`\b(process|go|kube)_[a-z_]+`)

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
// fetch), has a real Prometheus scrape it, the API process and a stand-in
// for kube-state-metrics with the labels a Prometheus Operator gives them,
// and evaluates every query of the shipped dashboard through Prometheus's
// HTTP API: each must parse and return data. The release and pod variables
// must list the release's job and pods and filter the per-pod panels, and
// every panel reading kube-state-metrics must show something without it.
// promtool must accept the worker's exposition.
func TestDashboardAgainstRealPrometheus(t *testing.T) {
	t.Parallel()
	prom, promtool := tools(t)
	queries, err := dashboardcheck.Load(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	checkVariablesAndFallbacks(t, queries)
	// The chart runs each process with GOMEMLIMIT (7/8 of its memory
	// limit), which the memory panel shows; a limit far above what the
	// test uses.
	prevLimit := debug.SetMemoryLimit(8 << 30)
	t.Cleanup(func() { debug.SetMemoryLimit(prevLimit) })

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

	ksm := httptest.NewServer(http.HandlerFunc(kubeStateMetrics))
	t.Cleanup(ksm.Close)
	promURL := startPrometheus(t, prom,
		operatorTarget(metricsSrv.Listener.Addr().String(), workerPod, "worker"),
		operatorTarget(apiMetrics.Listener.Addr().String(), apiPod, "api"),
		ksm.Listener.Addr().String())

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
	checkReleaseAndPodFilters(t, promURL, queries)

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

// operatorTarget is a static_config of a scrape target with the labels the
// Prometheus Operator gives one pod's ops port behind the chart's metrics
// Service (as ServiceMonitor relabelling sets them).
func operatorTarget(addr, pod, container string) string {
	return fmt.Sprintf(`      - targets: [%s]
        labels: {namespace: %q, pod: %q, container: %q, service: %q, endpoint: ops}
`, strconv.Quote(addr), namespace, pod, container, job)
}

// kubeStateMetrics serves the kube-state-metrics series the dashboard
// reads, for the test's two pods and a pod of no release.
func kubeStateMetrics(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	fmt.Fprintln(w, "# TYPE kube_pod_container_resource_limits gauge")
	for _, p := range []struct{ pod, container, mem string }{{workerPod, "worker", "402653184"}, {apiPod, "api", "268435456"}, {otherPod, "app", "1073741824"}} {
		fmt.Fprintf(w, "kube_pod_container_resource_limits{namespace=%q,pod=%q,container=%q,node=\"n1\",resource=\"memory\",unit=\"byte\"} %s\n", namespace, p.pod, p.container, p.mem)
		fmt.Fprintf(w, "kube_pod_container_resource_limits{namespace=%q,pod=%q,container=%q,node=\"n1\",resource=\"cpu\",unit=\"core\"} 1\n", namespace, p.pod, p.container)
	}
	fmt.Fprintln(w, "# TYPE kube_pod_container_status_restarts_total counter")
	for _, p := range []struct{ pod, container string }{{workerPod, "worker"}, {apiPod, "api"}, {otherPod, "app"}} {
		fmt.Fprintf(w, "kube_pod_container_status_restarts_total{namespace=%q,pod=%q,container=%q,uid=\"u\"} 2\n", namespace, p.pod, p.container)
	}
}

// startPrometheus runs prometheus scraping every second the release's
// targets (static_configs from operatorTarget) in job evf-evidencefleet-metrics
// and a kube-state-metrics at ksmAddr, whose labels it keeps.
func startPrometheus(t *testing.T, bin string, worker, api, ksmAddr string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: %s
    static_configs:
%s%s  - job_name: kube-state-metrics
    honor_labels: true
    static_configs:
      - targets: [%s]
`, job, worker, api, strconv.Quote(ksmAddr))
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

// checkVariablesAndFallbacks: the dashboard has the release and pod
// variables, and every panel reading kube-state-metrics has a target that
// does not, so that it shows the processes' own series without it.
func checkVariablesAndFallbacks(t *testing.T, queries []dashboardcheck.Query) {
	t.Helper()
	vars := map[string]string{}
	kube, own := map[string]bool{}, map[string]bool{}
	for _, q := range queries {
		if q.Variable != "" {
			vars[q.Variable] = q.Expr
			continue
		}
		if strings.Contains(q.Expr, "kube_") {
			kube[q.Panel] = true
		} else {
			own[q.Panel] = true
		}
	}
	for _, v := range []string{"namespace", "release", "pod"} {
		if vars[v] == "" {
			t.Errorf("the dashboard has no %s variable", v)
		}
	}
	if len(kube) == 0 {
		t.Error("no panel reads kube-state-metrics (memory limits, restarts)")
	}
	for p := range kube {
		if !own[p] {
			t.Errorf("panel %q shows nothing without kube-state-metrics: every target reads it", p)
		}
	}
}

// series returns the label sets of a query's result.
func series(t *testing.T, promURL, expr string) []map[string]string {
	t.Helper()
	var out []map[string]string
	for _, r := range query(t, promURL, expr) {
		var s struct {
			Metric map[string]string `json:"metric"`
		}
		if err := json.Unmarshal(r, &s); err != nil {
			t.Fatalf("query %s: %v", expr, err)
		}
		out = append(out, s.Metric)
	}
	return out
}

// checkReleaseAndPodFilters evaluates the variables and the per-pod panels
// with the selections an operator makes: the release variable lists the
// release's job and the pod variable its two pods; the per-pod panels
// show this release's pods only (never the pod of no release
// kube-state-metrics also reports), one pod when one is selected, and
// nothing for another release.
func checkReleaseAndPodFilters(t *testing.T, promURL string, queries []dashboardcheck.Query) {
	t.Helper()
	values := func(q dashboardcheck.Query, vars map[string]string) []string {
		var out []string
		label := q.Variable
		if label == "release" {
			label = "job"
		}
		for _, m := range series(t, promURL, dashboardcheck.PromQLWith(q.Expr, "1m", vars)) {
			out = append(out, m[label])
		}
		slices.Sort(out)
		return out
	}
	var panels int
	for _, q := range queries {
		switch {
		case q.Variable == "release":
			if got := values(q, map[string]string{"namespace": namespace}); !slices.Equal(got, []string{job}) {
				t.Errorf("variable release lists %v, want [%s]", got, job)
			}
		case q.Variable == "pod":
			if got, want := values(q, map[string]string{"release": job}), []string{apiPod, workerPod}; !slices.Equal(got, want) {
				t.Errorf("variable pod lists %v, want %v", got, want)
			}
			if got := values(q, map[string]string{"release": "other-evidencefleet-metrics"}); len(got) != 0 {
				t.Errorf("variable pod lists %v for another release", got)
			}
		case q.Variable == "" && perPod.MatchString(q.Expr):
			panels++
			for _, c := range []struct {
				vars map[string]string
				want []string
			}{
				{map[string]string{"release": job}, []string{apiPod, workerPod}},
				{map[string]string{"release": job, "pod": workerPod}, []string{workerPod}},
				{map[string]string{"release": "other-evidencefleet-metrics"}, nil},
			} {
				expr := dashboardcheck.PromQLWith(q.Expr, "1m", c.vars)
				var got []string
				for _, m := range series(t, promURL, expr) {
					got = append(got, m["pod"])
				}
				slices.Sort(got)
				if !slices.Equal(got, c.want) {
					t.Errorf("%s with %v shows pods %v, want %v:\n  %s", q.Where, c.vars, got, c.want, expr)
				}
			}
		}
	}
	if panels == 0 {
		t.Error("no panel reads the processes' CPU, memory, GC, goroutines or restarts")
	}
	t.Logf("%d per-pod queries evaluated with the release and pod selected", panels)
}
