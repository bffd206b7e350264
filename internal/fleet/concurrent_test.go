package fleet_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// TestTwoWorkerProcessesLeaveOneEdgePerPair runs two worker processes on one
// database and gives them many verify_nli jobs whose claim sets overlap, so
// both judge the same (fragment, claim) pairs at the same time. Every pair
// must end with exactly one NLI edge, and the jobs' recorded outputs must
// account for every edge exactly once.
func TestTwoWorkerProcessesLeaveOneEdgePerPair(t *testing.T) {
	t.Parallel()
	w := climateWorkload(t, 20)
	url := pgtest.URL(t)
	pool := openPool(t, url)
	env := deterministicEnv()
	env["EVF_NLI_WORKERS"] = "4"
	// Phase 1: the pages come in with the hypothesis as the only claim.
	task := seedTask(t, pool, w, nil, true)
	a := startWorker(t, "a", workerEnv(url, w.archive, env))
	b := startWorker(t, "b", workerEnv(url, w.archive, env))
	waitIdle(t, pool, 60*time.Second, a, b)
	before := queryInt(t, pool, `SELECT count(*) FROM edges WHERE relation IN `+nliRelations)
	firstJob := queryInt(t, pool, `SELECT COALESCE(max(id), 0) FROM river_job`)
	t.Logf("after ingest: %d pages, %d fragments, %d NLI edges", queryInt(t, pool, `SELECT count(*) FROM pages`),
		queryInt(t, pool, `SELECT count(*) FROM fragments`), before)

	// Phase 2: new claims and, in the same transaction, overlapping
	// verify_nli shards: windows of 6 claim ids every 2, the whole set, every
	// window again (deduplicated by the unique opts) and a dispatch of the
	// whole task, twice (the second deduplicated).
	ctx := context.Background()
	client := insertOnlyClient(t, pool)
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // no-op after commit
	added, err := intake.AddHypotheses(ctx, client, tx, task, w.claims)
	if err != nil {
		t.Fatalf("add hypotheses: %v", err)
	}
	var ids []int64
	for _, c := range added {
		if !slices.Contains(ids, c.ID) {
			ids = append(ids, c.ID)
		}
	}
	var sets [][]int64
	for i := 0; i < len(ids); i += 2 {
		sets = append(sets, ids[i:min(i+6, len(ids))])
	}
	sets = append(sets, ids)
	inserted, skipped := 0, 0
	for round := 0; round < 2; round++ {
		for _, set := range sets {
			res, err := client.InsertTx(ctx, tx, jobs.VerifyShard(task, set[0], set[len(set)-1]), nil)
			if err != nil {
				t.Fatalf("insert verify_nli %v: %v", set, err)
			}
			if res.UniqueSkippedAsDuplicate {
				skipped++
			} else {
				inserted++
			}
		}
		// The whole task: the second round's is a duplicate.
		res, err := client.InsertTx(ctx, tx, jobs.VerifyNLIArgs{TaskID: task}, nil)
		if err != nil {
			t.Fatalf("insert verify_nli for the task: %v", err)
		}
		if res.UniqueSkippedAsDuplicate != (round == 1) {
			t.Errorf("round %d: the dispatch of the whole task was deduplicated: %v", round, res.UniqueSkippedAsDuplicate)
		}
	}
	if inserted != len(sets) || skipped != len(sets) {
		t.Errorf("inserted %d and skipped %d verify_nli jobs, want %d each (unique by args)", inserted, skipped, len(sets))
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d new claims, %d overlapping verify_nli jobs (+1 for the whole task)", len(ids), inserted)
	waitIdle(t, pool, 90*time.Second, a, b)
	a.stop(t, 15*time.Second)
	b.stop(t, 15*time.Second)

	dump := func() string { return testfleet.JobDump(t, pool) }
	// Exactly one NLI edge per pair.
	dups := queryStrings(t, pool, `SELECT format('fragment %s claim %s: %s edges', source_id, target_id, count(*)) FROM edges
		WHERE relation IN `+nliRelations+` GROUP BY source_id, target_id HAVING count(*) > 1`)
	if len(dups) > 0 {
		t.Errorf("%d (fragment, claim) pairs with more than one NLI edge: %v", len(dups), dups[:min(10, len(dups))])
	}
	// The outputs account for every edge once.
	type output struct {
		Inserted        int `json:"inserted"`
		Judged          int `json:"judged"`
		SkippedJudged   int `json:"skipped_judged"`
		SkippedConflict int `json:"skipped_conflict"`
	}
	rows, err := pool.Query(ctx, `SELECT id, state, COALESCE(metadata->'output', 'null'::jsonb)::text,
		COALESCE(attempted_by[array_length(attempted_by, 1)], '') FROM river_job WHERE kind = 'verify_nli' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var sum, phase2Jobs, judged, skippedJudged, conflicts int
	by := map[string]int{} // phase-2 verify_nli jobs per process
	for rows.Next() {
		var id int64
		var state, raw, client string
		if err := rows.Scan(&id, &state, &raw, &client); err != nil {
			t.Fatal(err)
		}
		if state != "completed" {
			t.Errorf("verify_nli job %d ended %s\n%s", id, state, dump())
			continue
		}
		var out output
		if err := json.Unmarshal([]byte(raw), &out); err != nil || raw == "null" {
			t.Errorf("verify_nli job %d: no usable output (%s): %v", id, raw, err)
			continue
		}
		sum += out.Inserted
		if id > int64(firstJob) {
			phase2Jobs++
			judged += out.Judged
			skippedJudged += out.SkippedJudged
			conflicts += out.SkippedConflict
			by[client]++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	edges := queryInt(t, pool, `SELECT count(*) FROM edges WHERE relation IN `+nliRelations)
	t.Logf("NLI edges: %d before the overlapping jobs, %d after; phase-2 jobs: %d (per process %v), judged %d pairs, "+
		"skipped %d as judged before, %d as judged concurrently", before, edges, phase2Jobs, by, judged, skippedJudged, conflicts)
	if sum != edges {
		t.Errorf("verify_nli outputs say %d edges inserted, the graph has %d NLI edges\n%s", sum, edges, dump())
	}
	if edges <= before {
		t.Fatalf("the overlapping jobs added no NLI edge (%d before, %d after): the test proves nothing", before, edges)
	}
	if len(by) < 2 {
		t.Errorf("only one worker process worked the overlapping verify_nli jobs (%v): no concurrency was tested", by)
	}
	if skippedJudged+conflicts == 0 {
		t.Errorf("no pair was met by more than one job: the claim sets did not overlap")
	}
	if judged != edges-before+conflicts {
		t.Errorf("phase 2 judged %d pairs; want the %d new edges plus the %d conflicts", judged, edges-before, conflicts)
	}
	var logs []string
	for _, p := range []*workerProc{a, b} {
		if strings.Contains(p.log(), "level=ERROR") {
			logs = append(logs, p.logTail(20))
		}
	}
	if len(logs) > 0 {
		t.Errorf("a worker logged errors:\n%s", strings.Join(logs, "\n"))
	}
	checkNoDuplicates(t, pool)
	checkPosteriorsCached(t, pool)
	checkEvidenceNumbers(t, pool)
}
