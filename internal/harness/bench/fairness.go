package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	xrate "golang.org/x/time/rate"

	"github.com/evidencefleet/evidencefleet/jobs"
)

// FairnessSection is fair shares between organizations: organization A's
// large task and B's small one on a slow NLI server, with and without the
// share (internal/workers/fairshare.go).
const FairnessSection = "fairness"

// FairnessOptions size the fairness section.
type FairnessOptions struct {
	ClaimsA  int           // claims of organization A's task, enqueued first
	ClaimsB  int           // claims of organization B's task, enqueued After later
	After    time.Duration // B's task is enqueued this long after the worker started on A's
	PairRate float64       // NLI pairs per second the model server judges, all requests together
	Share    string        // EVF_ORG_SHARE of the arm with shares
}

// fairRun is one arm's outcome.
type fairRun struct {
	bWait      time.Duration // B's jobs: from their insert to the last one's completion
	aClaims    int           // A's claims verified by then
	aSpan      time.Duration // from A's first attempt to B's completion
	shareWaits int64         // snoozes of A's jobs for its share
	pairs      int64         // pairs the model server judged
}

// fairness runs A's task of ClaimsA claims on one worker process (NLIWorkers
// workers) judging through an NLI server limited to PairRate pairs a
// second, enqueues B's task of ClaimsB claims After later, and measures
// how long B's task waits for its verification, with EVF_ORG_SHARE=1 (no
// share: River's order; once, since B then waits for A's whole backlog,
// minutes each time) and with Share (Reps times).
func (h *harness) fairness(ctx context.Context) error {
	fo := h.opts.Fairness
	env, err := h.synthEnv(ctx)
	if err != nil {
		return err
	}
	defer env.done()
	begin := time.Now()
	spec := func(claims int, prefix string, seed uint64) taskSpec {
		return taskSpec{Claims: claims, Fragments: 3 * claims, Related: 3, Domains: 40, FragsPerPage: 20, DomainPrefix: prefix, Seed: seed}
	}
	taskA, err := loadTask(ctx, env.pool, env.models.Embedder, env.sentences, spec(fo.ClaimsA, "fa", 3))
	if err != nil {
		return err
	}
	taskB, err := loadTask(ctx, env.pool, env.models.Embedder, env.sentences, spec(fo.ClaimsB, "fb", 4))
	if err != nil {
		return err
	}
	for task, org := range map[int64]string{taskA.ID: "org-a", taskB.ID: "org-b"} {
		if _, err := env.pool.Exec(ctx, `UPDATE tasks SET organization_id = $2 WHERE id = $1`, task, org); err != nil {
			return fmt.Errorf("fairness: organization of task %d: %w", task, err)
		}
	}
	h.logf("fairness: loaded A's %d claims and B's %d in %.1fs", len(taskA.ClaimIDs), len(taskB.ClaimIDs), time.Since(begin).Seconds())
	nli := newSlowNLI(fo.PairRate)
	defer nli.Close()

	sec := fmt.Sprintf("fairness (A: %d claims, B: %d claims %s later; NLI server at %.0f pairs/s; %d claims per job, 1 process of %d workers)",
		len(taskA.ClaimIDs), len(taskB.ClaimIDs), fo.After, fo.PairRate, h.opts.ClaimsPerJob, h.opts.NLIWorkers)
	arms := []struct{ name, share string }{{"without shares (EVF_ORG_SHARE=1)", "1"}, {"with EVF_ORG_SHARE=" + fo.Share, fo.Share}}
	waits := make([][]float64, len(arms))
	aRates := make([][]float64, len(arms))
	held := make([][]float64, len(arms))
	for rep := range h.opts.Reps {
		for i, arm := range arms {
			if i == 0 && rep > 0 {
				continue // River's order: B waits for A's backlog, as long each time
			}
			r, err := h.runFairness(ctx, env.pool, env.url, taskA, taskB, nli, arm.share)
			if err != nil {
				return fmt.Errorf("fairness, %s: %w", arm.name, err)
			}
			waits[i] = append(waits[i], r.bWait.Seconds())
			aRates[i] = append(aRates[i], rate(r.aClaims, r.aSpan))
			held[i] = append(held[i], float64(r.shareWaits))
			h.logf("fairness rep %d, %s: B done in %.1fs; A verified %d claims in %.1fs meanwhile, held back %d times; %d pairs judged",
				rep+1, arm.name, r.bWait.Seconds(), r.aClaims, r.aSpan.Seconds(), r.shareWaits, r.pairs)
		}
	}
	for i, arm := range arms {
		h.add(sec, "B's task: from its enqueue to its last verify_nli job done, "+arm.name, waits[i], "s", "")
		h.add(sec, "A's claims verified meanwhile, "+arm.name, aRates[i], "claims/s", "")
		h.add(sec, "A's jobs held back for its share (snoozes), "+arm.name, held[i], "snoozes", "")
	}
	return nil
}

// runFairness is one arm: A's jobs enqueued, a worker started with
// EVF_ORG_SHARE=share, B's jobs enqueued After later, until B's are done.
func (h *harness) runFairness(ctx context.Context, pool *pgxpool.Pool, dbURL string, taskA, taskB synthTask, nli *slowNLI, share string) (fairRun, error) {
	var r fairRun
	for _, q := range []string{"TRUNCATE river_job", "DELETE FROM edges WHERE target_type = 'claim'"} {
		if _, err := pool.Exec(ctx, q); err != nil {
			return r, fmt.Errorf("reset: %s: %w", q, err)
		}
	}
	if err := vacuum(ctx, pool, "edges"); err != nil {
		return r, fmt.Errorf("reset: %w", err)
	}
	client, err := insertOnlyClient(pool)
	if err != nil {
		return r, err
	}
	shards := func(task synthTask) []river.InsertManyParams {
		var ps []river.InsertManyParams
		for i := 0; i < len(task.ClaimIDs); i += h.opts.ClaimsPerJob {
			ids := task.ClaimIDs[i:min(i+h.opts.ClaimsPerJob, len(task.ClaimIDs))]
			ps = append(ps, river.InsertManyParams{Args: jobs.VerifyShard(task.ID, ids[0], ids[len(ids)-1])})
		}
		return ps
	}
	if _, err := client.InsertMany(ctx, shards(taskA)); err != nil {
		return r, fmt.Errorf("insert organization A's jobs: %w", err)
	}
	pairsBefore := nli.pairs.Load()
	p, err := startProc(h.opts.Exe, []string{"DATABASE_URL=" + dbURL, "EVF_QUEUES=nli", fmt.Sprintf("EVF_NLI_WORKERS=%d", h.opts.NLIWorkers),
		"EVF_NLI_BACKEND=tei", "EVF_NLI_URL=" + nli.URL, "EVF_NLI_MODEL=bench-slow-nli", "EVF_NLI_BATCH=32", "EVF_ORG_SHARE=" + share}, "fleet")
	if err != nil {
		return r, err
	}
	defer func() {
		if p != nil {
			_, _ = p.stop()
		}
	}()
	select {
	case <-ctx.Done():
		return r, ctx.Err()
	case <-time.After(h.opts.Fairness.After):
	}
	bJobs := shards(taskB)
	if _, err := client.InsertMany(ctx, bJobs); err != nil {
		return r, fmt.Errorf("insert organization B's jobs: %w", err)
	}
	bTask := fmt.Sprint(taskB.ID)
	deadline := time.Now().Add(30 * time.Minute)
	for {
		var done, ended int
		if err := pool.QueryRow(ctx, `
			SELECT count(*) FILTER (WHERE state = 'completed'), count(*) FILTER (WHERE state IN ('discarded', 'cancelled'))
			FROM river_job WHERE kind = $1 AND args ->> 'task_id' = $2`, jobs.KindVerifyNLI, bTask).Scan(&done, &ended); err != nil {
			return r, fmt.Errorf("read organization B's jobs: %w", err)
		}
		if ended > 0 {
			return r, fmt.Errorf("%d of organization B's jobs ended undone", ended)
		}
		if done == len(bJobs) {
			break
		}
		if time.Now().After(deadline) {
			return r, fmt.Errorf("organization B's jobs not done within 30 minutes (%d of %d)", done, len(bJobs))
		}
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	var bSecs, aSecs float64
	var aJobClaims int64
	err = pool.QueryRow(ctx, `
		WITH b AS (SELECT min(created_at) AS enqueued, max(finalized_at) AS done FROM river_job WHERE kind = $1 AND args ->> 'task_id' = $2),
		     a AS (SELECT * FROM river_job WHERE kind = $1 AND args ->> 'task_id' = $3)
		SELECT EXTRACT(epoch FROM b.done - b.enqueued)::float8,
		       EXTRACT(epoch FROM b.done - (SELECT min(attempted_at) FROM a))::float8,
		       COALESCE((SELECT sum((args ->> 'claim_to')::bigint - (args ->> 'claim_from')::bigint + 1) FROM a
		                 WHERE state = 'completed' AND finalized_at <= b.done), 0)::bigint,
		       COALESCE((SELECT sum(COALESCE((metadata ->> 'share_waits')::bigint, 0)) FROM a), 0)::bigint
		FROM b`, jobs.KindVerifyNLI, bTask, fmt.Sprint(taskA.ID)).Scan(&bSecs, &aSecs, &aJobClaims, &r.shareWaits)
	if err != nil {
		return r, fmt.Errorf("fairness: read the run: %w", err)
	}
	r.bWait = time.Duration(bSecs * float64(time.Second))
	r.aSpan = time.Duration(aSecs * float64(time.Second))
	r.aClaims = int(aJobClaims)
	_, err = p.stop()
	p = nil
	r.pairs = nli.pairs.Load() - pairsBefore
	return r, err
}

// slowNLI is a TEI-style NLI server (/predict) that judges every pair
// neutral at a bounded rate of pairs per second, all requests together: a
// model server that is the fleet's bottleneck.
type slowNLI struct {
	*httptest.Server
	pairs atomic.Int64
}

func newSlowNLI(pairsPerSecond float64) *slowNLI {
	s := &slowNLI{}
	lim := xrate.NewLimiter(xrate.Limit(pairsPerSecond), 64)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /predict", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Inputs [][]string `json:"inputs"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<20)).Decode(&req); err != nil || len(req.Inputs) > 64 {
			http.Error(w, "want at most 64 inputs", http.StatusUnprocessableEntity)
			return
		}
		if err := lim.WaitN(r.Context(), len(req.Inputs)); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		s.pairs.Add(int64(len(req.Inputs)))
		type labelScore struct {
			Label string  `json:"label"`
			Score float64 `json:"score"`
		}
		row := []labelScore{{"neutral", 0.8}, {"entailment", 0.1}, {"contradiction", 0.1}}
		out := make([][]labelScore, len(req.Inputs))
		for i := range out {
			out[i] = row
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
	s.Server = httptest.NewServer(mux)
	return s
}
