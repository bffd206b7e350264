package workers_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// hugeText is about n bytes of distinct words: Postgres cannot index it
// (to_tsvector refuses a tsvector over 1 MB, SQLSTATE 54000).
func hugeText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		w := []byte{'q'}
		for v := i; ; v /= 26 {
			w = append(w, byte('a'+v%26))
			if v < 26 {
				break
			}
		}
		b.Write(w)
		b.WriteByte(' ')
	}
	return b.String()
}

// requireUnindexable checks the premise of a test: Postgres itself refuses
// to index text, so a worker that hands it to to_tsvector fails on every
// attempt.
func requireUnindexable(t *testing.T, f *testfleet.TxFleet, text string) {
	t.Helper()
	if _, err := f.Tx.Exec(context.Background(), `SAVEPOINT premise`); err != nil {
		t.Fatal(err)
	}
	_, err := f.Tx.Exec(context.Background(), `SELECT to_tsvector('english', $1::text)`, text)
	var pg *pgconn.PgError
	if !errors.As(err, &pg) || pg.Code != "54000" {
		t.Fatalf("premise: to_tsvector of %d bytes gave %v, want SQLSTATE 54000", len(text), err)
	}
	if _, err := f.Tx.Exec(context.Background(), `ROLLBACK TO SAVEPOINT premise`); err != nil {
		t.Fatal(err)
	}
}

// jobEnd reports how a job ended: its state, attempts and last error.
func jobEnd(t *testing.T, f *testfleet.TxFleet, id int64) (state string, attempt int, lastErr string) {
	t.Helper()
	state, lastErr, _ = testfleet.JobRow(t, f.Tx, id)
	if err := f.Tx.QueryRow(context.Background(), `SELECT attempt FROM river_job WHERE id = $1`, id).Scan(&attempt); err != nil {
		t.Fatal(err)
	}
	return state, attempt, lastErr
}

// TestOversizedTextEndsOnceWithTheReason: text no claim can be — a 1.8 MB
// rerank query, a task whose hypothesis or claim was written around intake
// at 1.8 MB, job args past their bounds — ends its job on the first attempt
// with the reason (or, for a claim, is marked refused while the task's other
// claims are verified), instead of failing every attempt until discarded.
func TestOversizedTextEndsOnceWithTheReason(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	huge := hugeText(1800 << 10)

	t.Run("RerankQueryOf1.8MBIsCancelledOnAttempt1", func(t *testing.T) {
		t.Parallel()
		f := testfleet.InTx(t, testfleet.Options{})
		task := fixture.Task(t, f.Tx, "Glaciers are retreating worldwide.")
		requireUnindexable(t, f, huge)
		cases := []struct{ query, want string }{
			{huge, "more than the 1048576 allowed"}, // the args as a whole
			{huge[:100<<10], fmt.Sprintf(`field "query": is %d characters long, more than the %d allowed`,
				utf8.RuneCountInString(huge[:100<<10]), jobs.MaxTextRunes)},
		}
		for _, c := range cases {
			id := testfleet.InsertRawJob(t, f.Tx, jobs.KindRerank, jobs.QueueRerank,
				fmt.Sprintf(`{"task_id":%d,"query":%q}`, task, c.query))
			f.Drain(t)
			state, attempt, lastErr := jobEnd(t, f, id)
			t.Logf("rerank with a %d-byte query: %s after %d attempt(s): %.120s", len(c.query), state, attempt, lastErr)
			if state != "cancelled" || attempt != 1 || !strings.Contains(lastErr, c.want) || len(lastErr) > 2000 {
				t.Errorf("job %d: %s after %d attempts, error of %d bytes (%.200q); want cancelled on attempt 1 with %q",
					id, state, attempt, len(lastErr), lastErr, c.want)
			}
		}
	})

	t.Run("RerankOfA1.8MBHypothesisIsCancelledOnAttempt1", func(t *testing.T) {
		t.Parallel()
		// On a pool, as in the fleet: the refused statement must not take
		// the test's transaction down with it.
		pool := pgtest.Pool(t)
		task := fixture.Task(t, pool, huge) // written around intake, which refuses it
		w := workers.NewRerankWorker(store.NewStore(pool), builtin.NewHashEmbedder(256), builtin.NewBM25Reranker(), workers.RerankConfig{}, nil)
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx) //nolint:errcheck
		res, err := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{Middleware: workers.Middleware(store.NewStore(tx), workers.ServerWaits{}, nil, nil)}, w).
			Work(ctx, t, tx, jobs.RerankArgs{TaskID: task}, nil)
		var lastErr string
		if res != nil && len(res.Job.Errors) > 0 {
			lastErr = res.Job.Errors[len(res.Job.Errors)-1].Error
		}
		t.Logf("rerank of a %d-byte hypothesis: %v on attempt %d: %.160s (%v)", len(huge), res.EventKind, res.Job.Attempt, lastErr, err)
		if res.EventKind != river.EventKindJobCancelled || res.Job.Attempt != 1 ||
			!strings.Contains(lastErr, "the database refuses this job's data") || !strings.Contains(lastErr, "54000") {
			t.Errorf("rerank: %v on attempt %d (%q); want cancelled on attempt 1 with the database's reason", res.EventKind, res.Job.Attempt, lastErr)
		}
	})

	t.Run("VerifyNLIRefusesA1.8MBClaimAndJudgesTheOtherThree", func(t *testing.T) {
		t.Parallel()
		f := testfleet.InTx(t, testfleet.Options{})
		task := fixture.Task(t, f.Tx, "Glaciers are retreating worldwide.")
		normal := []int64{
			fixture.Claim(t, f.Tx, task, "Glaciers are retreating worldwide."),
			fixture.Claim(t, f.Tx, task, "Alpine glaciers lost much of their volume."),
		}
		bad := fixture.Claim(t, f.Tx, task, huge) // written around intake, which refuses it
		normal = append(normal, fixture.Claim(t, f.Tx, task, "Temperatures in the mountains are rising."))
		embedder, err := builtin.NewHybridEmbedder(0) // the fleet's default
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []fixture.Page{
			fixture.PageOf(t, f.Tx, task, "https://glaciers.example.org/retreat",
				"Glaciers are retreating worldwide because global temperatures are rising.",
				"Alpine glaciers lost a large part of their volume since 1980."),
			fixture.PageOf(t, f.Tx, task, "https://blog.example.net/fine",
				"Temperatures in the mountains are not rising and glaciers are growing."),
		} {
			for _, fid := range p.Fragments {
				vec, err := embedder.Embed(ctx, []string{fragmentText(t, f.Tx, fid)})
				if err != nil {
					t.Fatal(err)
				}
				fixture.Embed(t, f.Tx, fid, models.PassageModel(embedder), vec[0])
			}
		}
		id := testfleet.InsertRawJob(t, f.Tx, jobs.KindVerifyNLI, jobs.QueueNLI, shardJSON(t, f.Tx, task))
		f.Drain(t)
		state, attempt, lastErr := jobEnd(t, f, id)
		_, _, output := testfleet.JobRow(t, f.Tx, id)
		t.Logf("verify_nli with a %d-byte claim among 4: %s after %d attempt(s), output %s", len(huge), state, attempt, output)
		if state != "completed" || attempt != 1 {
			t.Fatalf("job %d: %s after %d attempts (%q); want completed on attempt 1", id, state, attempt, lastErr)
		}
		var out workers.VerifyOutput
		if err := json.Unmarshal(output, &out); err != nil || out.Refused != 1 || out.Claims != 3 {
			t.Errorf("output %s does not count the refused claim", output)
		}
		var reason *string
		if err := f.Tx.QueryRow(ctx, `SELECT refused_reason FROM claims WHERE id = $1`, bad).Scan(&reason); err != nil {
			t.Fatal(err)
		}
		if reason == nil || !strings.Contains(*reason, fmt.Sprint(jobs.MaxTextRunes)) {
			t.Errorf("the 1.8 MB claim's refused_reason is %v; want the reason naming the limit", reason)
		}
		for _, c := range normal {
			var edges int
			var refused *string
			if err := f.Tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM edges WHERE target_type = 'claim' AND target_id = c.id
				AND relation IN ('supports', 'refutes', 'neutral')), refused_reason FROM claims c WHERE id = $1`, c).
				Scan(&edges, &refused); err != nil {
				t.Fatal(err)
			}
			if edges == 0 || refused != nil {
				t.Errorf("claim %d: %d NLI edges, refused %v; want judged like any claim", c, edges, refused)
			}
		}
		// Verified again, the refused claim stays out and nothing fails.
		id2 := testfleet.InsertRawJob(t, f.Tx, jobs.KindVerifyNLI, jobs.QueueNLI, shardJSON(t, f.Tx, task))
		f.Drain(t)
		if state, attempt, lastErr := jobEnd(t, f, id2); state != "completed" || attempt != 1 {
			t.Errorf("second verify_nli: %s after %d attempts (%q)", state, attempt, lastErr)
		}
		counts, err := store.NewStore(f.Tx).TaskVerdictCounts(ctx, task)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(fmt.Sprint(counts), "{refused 1}") {
			t.Errorf("verdict counts %v lack the refused claim", counts)
		}
	})

	t.Run("ArgsPastTheirBoundsAreCancelledOnAttempt1", func(t *testing.T) {
		t.Parallel()
		f := testfleet.InTx(t, testfleet.Options{})
		task := fixture.Task(t, f.Tx, "Glaciers are retreating worldwide.")
		ids := func(n int) string {
			s := make([]string, n)
			for i := range s {
				s[i] = fmt.Sprint(i + 1)
			}
			return strings.Join(s, ",")
		}
		cases := []struct{ name, kind, queue, args, want string }{
			{"claim_ids over MaxClaimIDs", jobs.KindVerifyNLI, jobs.QueueNLI,
				fmt.Sprintf(`{"task_id":%d,"claim_ids":[%s]}`, task, ids(jobs.MaxClaimIDs+1)), `field "claim_ids": at most 10000 ids`},
			{"args over MaxArgsBytes", jobs.KindVerifyNLI, jobs.QueueNLI,
				fmt.Sprintf(`{"task_id":%d,"claim_ids":[%s]}`, task, ids(200000)), "more than the 1048576 allowed"},
			{"a 1 MB unknown field name", jobs.KindCleanup, jobs.QueueMaintenance,
				fmt.Sprintf(`{"mode":"soft","task_id":%d,%q:1}`, task, strings.Repeat("x", 1<<20-100)), "unknown field"},
		}
		var jobIDs []int64
		for _, c := range cases {
			jobIDs = append(jobIDs, testfleet.InsertRawJob(t, f.Tx, c.kind, c.queue, c.args))
		}
		f.Drain(t)
		for i, c := range cases {
			state, attempt, lastErr := jobEnd(t, f, jobIDs[i])
			t.Logf("%s (%d bytes): %s after %d attempt(s): %.120s", c.name, len(c.args), state, attempt, lastErr)
			if state != "cancelled" || attempt != 1 || !strings.Contains(lastErr, c.want) || len(lastErr) > 2000 {
				t.Errorf("%s: %s after %d attempts, error of %d bytes %.200q; want cancelled on attempt 1 with %q in a short error",
					c.name, state, attempt, len(lastErr), lastErr, c.want)
			}
		}
	})
}

// shardJSON is the args of a verify_nli shard covering every claim of task.
func shardJSON(t *testing.T, tx pgx.Tx, task int64) string {
	t.Helper()
	a := wholeTask(t, tx, task)
	return fmt.Sprintf(`{"task_id":%d,"claim_from":%d,"claim_to":%d}`, a.TaskID, a.ClaimFrom, a.ClaimTo)
}
