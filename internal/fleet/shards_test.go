package fleet_test

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
)

// manyClaims returns up to n distinct hypothesis claims from the bundled
// Climate-FEVER sample: every record's claim and evidence sentences.
func manyClaims(t *testing.T, n int) []string {
	t.Helper()
	records, err := corpus.ReadClimateFever(climateFeverPath)
	if err != nil {
		t.Fatalf("read Climate-FEVER: %v", err)
	}
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] && len(out) < n {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, r := range records {
		add(r.Claim)
		for _, e := range r.Evidences {
			add(e.Evidence)
		}
	}
	return out
}

// TestTwoWorkerProcessesShareOneTasksShards gives one task a thousand
// claims and verifies it twice from the same input: with one worker process,
// and with two at once. The task's verification is split into shards that
// both processes work at the same time, no shard job judges more pairs than
// the bound, and the graph is the one-process graph.
func TestTwoWorkerProcessesShareOneTasksShards(t *testing.T) {
	t.Parallel() // with the other process tests that mark themselves so
	w := climateWorkload(t, 8)
	claims := manyClaims(t, 1000)
	if len(claims) < 1000 {
		t.Fatalf("%d claims: want a thousand", len(claims))
	}
	env := deterministicEnv()
	// Shards of 64 claims: about 16 of them, each with more pairs than the
	// job's bound, so that shards are split into successor jobs too.
	env["EVF_VERIFY_SHARD_CLAIMS"] = "64"
	const bound = 1500
	env["EVF_VERIFY_JOB_PAIRS"] = strconv.Itoa(bound)
	env["EVF_NLI_WORKERS"] = "2"

	refURL, runURL := pgtest.URL(t), pgtest.URL(t)
	refPool, runPool := openPool(t, refURL), openPool(t, runURL)
	seedTask(t, refPool, w, claims, true)
	seedTask(t, runPool, w, claims, true)
	t.Logf("workload: %d target URLs, %d hypothesis claims", len(w.urls), 1+len(claims))

	// The reference and the run at once, each on its own database.
	one := startWorker(t, "one", workerEnv(refURL, w.archive, env))
	a := startWorker(t, "a", workerEnv(runURL, w.archive, env))
	b := startWorker(t, "b", workerEnv(runURL, w.archive, env))
	waitIdle(t, refPool, 5*time.Minute, one)
	waitIdle(t, runPool, 5*time.Minute, a, b)
	for _, p := range []*workerProc{one, a, b} {
		p.stop(t, 15*time.Second)
	}

	want, got := readGraph(t, refPool), readGraph(t, runPool)
	if countNLI(want) == 0 {
		t.Fatal("no NLI edge: the test proves nothing")
	}
	if d := diffGraphs(want, got, 10); d != "" {
		t.Errorf("two processes built another graph than one:\n%s", d)
	}
	checkNoDuplicates(t, runPool)
	checkPosteriorsCached(t, runPool)

	type shardJob struct {
		from, to   int64
		client     string
		start, end time.Time
		judged     int
	}
	rows, err := runPool.Query(context.Background(), `SELECT (args->>'claim_from')::bigint, (args->>'claim_to')::bigint,
		attempted_by[cardinality(attempted_by)], attempted_at, finalized_at, state, COALESCE(metadata->'output', '{}')::text
		FROM river_job WHERE kind = 'verify_nli' AND args ? 'claim_from' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var shards []shardJob
	for rows.Next() {
		var j shardJob
		var state, output string
		if err := rows.Scan(&j.from, &j.to, &j.client, &j.start, &j.end, &state, &output); err != nil {
			t.Fatal(err)
		}
		var out struct {
			Judged int `json:"judged"`
		}
		if state != "completed" || json.Unmarshal([]byte(output), &out) != nil {
			t.Errorf("shard [%d, %d] ended %s (%s)", j.from, j.to, state, output)
		}
		if j.judged = out.Judged; j.judged > bound {
			t.Errorf("shard [%d, %d] judged %d pairs in one job, more than the bound of %d", j.from, j.to, j.judged, bound)
		}
		shards = append(shards, j)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	ranges, clients := map[[2]int64]bool{}, map[string]bool{}
	overlapping := 0
	for i, x := range shards {
		ranges[[2]int64{x.from, x.to}] = true
		clients[x.client] = true
		for _, y := range shards[i+1:] {
			if x.client != y.client && x.start.Before(y.end) && y.start.Before(x.end) {
				overlapping++
			}
		}
	}
	t.Logf("%d shard jobs over %d shards, by %d processes; %d pairs of jobs of different processes ran at the same time",
		len(shards), len(ranges), len(clients), overlapping)
	if len(ranges) < 10 || len(clients) < 2 || overlapping == 0 {
		t.Errorf("%d shards, %d processes, %d overlaps: the task's verification was not shared by two processes at once",
			len(ranges), len(clients), overlapping)
	}
	if slices.ContainsFunc(shards, func(j shardJob) bool { return j.to-j.from+1 > 64 }) {
		t.Error("a shard spans more than EVF_VERIFY_SHARD_CLAIMS claim ids")
	}
}
