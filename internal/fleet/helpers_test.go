package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/evidencefleet/evidencefleet/internal/evidence"
	"github.com/evidencefleet/evidencefleet/internal/harness/chaos"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/graphsnap"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// climateFeverPath is the bundled Climate-FEVER dev sample, relative to
// this package (testdata/climate-fever/ATTRIBUTION.md).
const climateFeverPath = "../../testdata/climate-fever/climate-fever-dev.jsonl"

// workload is the input of a run: a replay archive of rendered Wikipedia
// articles, the hypothesis claims of one task and the URLs to take in.
type workload struct {
	archive    string   // replay archive directory
	hypothesis string   // the task's hypothesis (E1)
	claims     []string // further hypothesis claims
	urls       []string // one target_queue job each
}

// climateWorkload renders the first n Climate-FEVER records into a replay
// archive: every article is a target, every record's claim a hypothesis claim.
func climateWorkload(t *testing.T, n int) workload {
	t.Helper()
	records, err := corpus.ReadClimateFever(climateFeverPath)
	if err != nil {
		t.Fatalf("read Climate-FEVER: %v", err)
	}
	if len(records) < n {
		t.Fatalf("Climate-FEVER has %d records, want at least %d", len(records), n)
	}
	records = records[:n]
	dir := t.TempDir()
	pages, err := corpus.BuildClimateFever(records, corpus.Options{OutDir: dir})
	if err != nil {
		t.Fatalf("build replay archive: %v", err)
	}
	if len(pages) < 3 {
		t.Fatalf("%d records render only %d pages", n, len(pages))
	}
	w := workload{archive: dir, hypothesis: records[0].Claim}
	for _, r := range records[1:] {
		w.claims = append(w.claims, r.Claim)
	}
	for _, p := range pages {
		w.urls = append(w.urls, p.URL)
	}
	return w
}

// openPool connects to a test database; the pool is closed when the test ends.
func openPool(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// insertOnlyClient is a River client that only inserts (no queues).
func insertOnlyClient(t *testing.T, pool *pgxpool.Pool) *river.Client[pgx.Tx] {
	t.Helper()
	c, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		t.Fatalf("river insert-only client: %v", err)
	}
	return c
}

// seedTask creates the workload's task with its hypothesis claims and
// enqueues one target_queue job per URL, in one transaction. With
// targets=false only the task and claims are created. It returns the task id.
func seedTask(t *testing.T, pool *pgxpool.Pool, w workload, claims []string, targets bool) int64 {
	t.Helper()
	ctx := context.Background()
	client := insertOnlyClient(t, pool)
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatalf("begin: %v", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // no-op after commit
	task, err := intake.CreateTask(ctx, client, tx, "test-org", intake.TaskSpec{Hypothesis: w.hypothesis})
	if err != nil {
		t.Fatalf("create task: %v", err)
	}
	if len(claims) > 0 {
		if _, err := intake.AddHypotheses(ctx, client, tx, task.ID, claims); err != nil {
			t.Fatalf("add hypotheses: %v", err)
		}
	}
	if targets {
		params := make([]river.InsertManyParams, len(w.urls))
		for i, u := range w.urls {
			params[i] = river.InsertManyParams{Args: jobs.TargetQueueArgs{TaskID: task.ID,
				Target: jobs.Target{Kind: jobs.TargetURL, Value: u}}}
		}
		if _, err := client.InsertManyTx(ctx, tx, params); err != nil {
			t.Fatalf("insert targets: %v", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("commit seed: %v", err)
	}
	return task.ID
}

// deterministicEnv is chaos.DeterministicEnv, a copy the test may change.
func deterministicEnv() map[string]string { return maps.Clone(chaos.DeterministicEnv) }

// workerEnv is the environment of a worker subprocess: this process's
// environment without any DATABASE_URL or EVF_* variable, then the database,
// the replay archive, quiet defaults and extra (which wins).
func workerEnv(dbURL, archive string, extra map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "DATABASE_URL" || strings.HasPrefix(k, "EVF_") {
			continue
		}
		env = append(env, kv)
	}
	vars := map[string]string{
		workerProcessEnv:       "1",
		"DATABASE_URL":         dbURL,
		"EVF_REPLAY_DIR":       archive,
		"EVF_METRICS_ADDR":     "127.0.0.1:0",
		"EVF_LOG_FORMAT":       "text",
		"EVF_LOG_LEVEL":        "info",
		"EVF_SHUTDOWN_TIMEOUT": "5s",
	}
	for k, v := range extra {
		vars[k] = v
	}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		env = append(env, k+"="+vars[k])
	}
	return env
}

// workerProc is a worker subprocess: this test binary re-executed with
// EVF_TEST_WORKER_PROCESS=1. Its output goes to a log file.
type workerProc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	exited  chan struct{}
	waitErr error // set before exited is closed
}

// startWorker starts a worker subprocess. When the test ends it is killed if
// still running, and its log is checked for data races.
func startWorker(t *testing.T, name string, env []string) *workerProc {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatalf("worker %s: log file: %v", name, err)
	}
	defer logFile.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = env
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("worker %s: start: %v", name, err)
	}
	p := &workerProc{name: name, cmd: cmd, logPath: logPath, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		if p.running() {
			_ = p.cmd.Process.Kill()
		}
		<-p.exited
		if log := p.log(); strings.Contains(log, "WARNING: DATA RACE") {
			t.Errorf("worker %s reported a data race:\n%s", p.name, log)
		}
	})
	return p
}

func (p *workerProc) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// log returns the subprocess's output so far.
func (p *workerProc) log() string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(log of %s unreadable: %v)", p.name, err)
	}
	return string(b)
}

// logTail returns the last n lines of the subprocess's output.
func (p *workerProc) logTail(n int) string {
	lines := strings.Split(strings.TrimRight(p.log(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return fmt.Sprintf("--- last %d log lines of worker %s ---\n%s", len(lines), p.name, strings.Join(lines, "\n"))
}

// signal sends sig to the subprocess.
func (p *workerProc) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("worker %s: send %v: %v", p.name, sig, err)
	}
}

// wait waits up to timeout for the subprocess to exit and returns its exit
// code (-1 when a signal ended it) and whether it exited in time.
func (p *workerProc) wait(timeout time.Duration) (code int, ok bool) {
	select {
	case <-p.exited:
	case <-time.After(timeout):
		return 0, false
	}
	var ee *exec.ExitError
	switch {
	case p.waitErr == nil:
		return 0, true
	case errors.As(p.waitErr, &ee):
		return ee.ExitCode(), true
	default:
		return -1, true
	}
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *workerProc) kill(t *testing.T) {
	t.Helper()
	p.signal(t, syscall.SIGKILL)
	if _, ok := p.wait(10 * time.Second); !ok {
		t.Fatalf("worker %s: still running 10s after SIGKILL", p.name)
	}
}

// stop sends SIGTERM and requires a clean exit (code 0) within timeout.
func (p *workerProc) stop(t *testing.T, timeout time.Duration) {
	t.Helper()
	p.signal(t, syscall.SIGTERM)
	code, ok := p.wait(timeout)
	if !ok {
		t.Fatalf("worker %s: still running %s after SIGTERM\n%s", p.name, timeout, p.logTail(40))
	}
	if code != 0 {
		t.Fatalf("worker %s: exit code %d after SIGTERM, want 0\n%s", p.name, code, p.logTail(40))
	}
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatalf("free port: %v", err)
	}
	return addr
}

// waitIdle waits for the queue to drain; it fails, with the job dump and
// the workers' logs, when the jobs have made no progress (no job finished,
// none attempted anew, none added) for timeout, or after five times
// timeout in all: a run that moves slowly on a machine busy with the
// package's other process tests still ends, a stuck one fails.
func waitIdle(t *testing.T, pool *pgxpool.Pool, timeout time.Duration, procs ...*workerProc) {
	t.Helper()
	start := time.Now()
	deadline := start.Add(timeout)
	for _, p := range procs {
		if !p.running() {
			t.Fatalf("worker %s exited while work was pending\n%s\n%s", p.name, testfleet.JobDump(t, pool), p.logTail(40))
		}
	}
	quiet := 0
	var last [3]int
	for quiet < 3 {
		var n, finalized, attempts int
		if err := pool.QueryRow(context.Background(), `SELECT
			count(*) FILTER (WHERE state IN ('available','running','retryable','scheduled','pending')),
			count(*) FILTER (WHERE state IN ('completed','cancelled','discarded')), COALESCE(sum(attempt), 0)
			FROM river_job`).Scan(&n, &finalized, &attempts); err != nil {
			t.Fatalf("waitIdle: %v", err)
		}
		if n == 0 {
			quiet++
		} else {
			quiet = 0
		}
		if now := [3]int{n, finalized, attempts}; now != last {
			last = now
			deadline = time.Now().Add(timeout)
		}
		if now := time.Now(); now.After(deadline) || now.Sub(start) > 5*timeout {
			var logs []string
			for _, p := range procs {
				logs = append(logs, p.logTail(30))
			}
			t.Fatalf("%d jobs still unfinished after %s (no progress for %s, or %s in all):\n%s\n%s", n, now.Sub(start).Round(time.Second),
				timeout, 5*timeout, testfleet.JobDump(t, pool), strings.Join(logs, "\n"))
		}
		for _, p := range procs {
			if !p.running() {
				t.Fatalf("worker %s exited while waiting for idle\n%s\n%s", p.name, testfleet.JobDump(t, pool), p.logTail(40))
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// queryInt runs a query returning one integer.
func queryInt(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// queryStrings runs a query returning one text column.
func queryStrings(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// nliRelations, graph and the natural-key queries live in internal/graphsnap.
const nliRelations = graphsnap.NLIRelations

type graph = graphsnap.Graph

func readGraph(t *testing.T, pool *pgxpool.Pool) graph {
	t.Helper()
	g, err := graphsnap.Read(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func diffGraphs(want, got graph, max int) string { return graphsnap.Diff(want, got, max) }

// checkSameGraph fails t when the reference graph want is trivial (the
// comparison would prove nothing), or reports where got differs from it;
// run says what got is ("the graph after kill and restart").
func checkSameGraph(t *testing.T, want, got graph, run, reference string) {
	t.Helper()
	if len(want["claims"]) < 2 || countNLI(want) == 0 {
		t.Fatalf("the reference graph is trivial (%s): the comparison would prove nothing", want.Summary())
	}
	if d := diffGraphs(want, got, 10); d != "" {
		t.Errorf("%s differs from %s:\n%s", run, reference, d)
	}
}

func countNLI(g graph) int { return g.NLIEdges() }

// checkNoDuplicates fails for every table with more rows than natural keys.
func checkNoDuplicates(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	for _, c := range graphsnap.DuplicateChecks {
		if n := queryInt(t, pool, c.SQL); n != 0 {
			t.Errorf("%s: %d duplicate rows (count(*) - count(DISTINCT natural key))", c.Name, n)
		}
	}
}

// checkEvidenceNumbers requires every task's E-numbers to be exactly
// 1..n and next_evidence_no to be n+1.
func checkEvidenceNumbers(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	bad := queryStrings(t, pool, `
		SELECT format('task %s: %s claims, E-numbers %s..%s, next_evidence_no %s', t.id, count(c.id),
		              min(c.evidence_no), max(c.evidence_no), t.next_evidence_no)
		FROM tasks t LEFT JOIN claims c ON c.task_id = t.id
		GROUP BY t.id
		HAVING count(c.id) <> count(DISTINCT c.evidence_no) OR COALESCE(min(c.evidence_no), 1) <> 1
		    OR COALESCE(max(c.evidence_no), 0) <> count(c.id) OR t.next_evidence_no <> count(c.id) + 1`)
	for _, b := range bad {
		t.Errorf("E-numbers not gapless: %s", b)
	}
}

// checkPosteriorsCached recomputes every claim's posterior from its edges
// (store ClaimTallies + evidence.Compute) and compares the cached columns.
func checkPosteriorsCached(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	type cached struct {
		alpha, beta, conf, unc, contro float64
		verdict                        string
		sup, ref, neu, ind, n          int
	}
	rows, err := pool.Query(ctx, `SELECT id, alpha, beta, confidence, uncertainty, controversy, verdict,
		supporting_count, refuting_count, neutral_count, independent_sources, evidence_count FROM claims ORDER BY id`)
	if err != nil {
		t.Fatalf("read claims: %v", err)
	}
	byID := map[int64]cached{}
	var ids []int64
	for rows.Next() {
		var id int64
		var c cached
		if err := rows.Scan(&id, &c.alpha, &c.beta, &c.conf, &c.unc, &c.contro, &c.verdict, &c.sup, &c.ref, &c.neu, &c.ind, &c.n); err != nil {
			t.Fatalf("read claims: %v", err)
		}
		byID[id] = c
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read claims: %v", err)
	}
	if len(ids) == 0 {
		t.Fatal("no claims to check posteriors of")
	}
	tallies, err := store.New(pool).ClaimTallies(ctx, ids)
	if err != nil {
		t.Fatalf("claim tallies: %v", err)
	}
	if len(tallies) != len(ids) {
		t.Fatalf("claim tallies: %d rows for %d claims", len(tallies), len(ids))
	}
	const eps = 1e-9
	near := func(a, b float64) bool { return math.Abs(a-b) <= eps }
	stale := 0
	for _, tl := range tallies {
		want := evidence.Compute(store.TallyFromRow(tl))
		got := byID[tl.ClaimID]
		if !near(got.alpha, want.Alpha) || !near(got.beta, want.Beta) || !near(got.conf, want.Confidence) ||
			!near(got.unc, want.Uncertainty) || !near(got.contro, want.Controversy) || got.verdict != want.Verdict ||
			got.sup != want.Supporting || got.ref != want.Refuting || got.neu != want.Neutral ||
			got.ind != want.Independent || got.n != want.EvidenceSize {
			stale++
			if stale <= 5 {
				t.Errorf("claim %d: cached posterior %+v differs from the recomputation from its edges %+v", tl.ClaimID, got, want)
			}
		}
	}
	if stale > 5 {
		t.Errorf("… %d claims in all have a stale cached posterior", stale)
	}
}

// pollUntil calls cond every interval until it returns true or timeout passes.
func pollUntil(timeout, interval time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(interval)
	}
}
