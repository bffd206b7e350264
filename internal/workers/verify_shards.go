package workers

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// A task's claims are verified in shards (jobs.VerifyNLIArgs): ranges of
// Verify.ShardClaims consecutive claim ids, one job each, so that N workers
// share one task's NLI and no job's work grows with the task. A dispatching
// job enqueues the shards; a shard judges at most Verify.JobPairs pairs per
// job; a shard whose worker keeps dying is split in two until the claim
// that kills it is alone, and only that claim is refused.

// Defaults of a VerifyConfig left zero (tests that build one by hand).
const (
	defaultShardClaims = 64
	defaultJobPairs    = 2000
)

func (c VerifyConfig) shardClaims() int64 {
	if c.ShardClaims <= 0 {
		return defaultShardClaims
	}
	return int64(c.ShardClaims)
}

// DispatchOutput is the output of a dispatching verify_nli job.
type DispatchOutput struct {
	Shards   int `json:"shards"`   // shards of this page of the claims with no job waiting or running
	Enqueued int `json:"enqueued"` // shard jobs inserted; the others were waiting or running already
	// Continued: the task has more shards; a continuation enqueues them.
	Continued bool `json:"continued,omitempty"`
}

// dispatchShards bounds the shard jobs one dispatch enqueues
// (VerifyConfig.DispatchShards, 0 = this); a continuation (DispatchFrom)
// enqueues the next ones.
const dispatchShards = 1000

func (c VerifyConfig) dispatchShards() int {
	if c.DispatchShards <= 0 {
		return dispatchShards
	}
	return c.DispatchShards
}

// dispatch enqueues the shards of the job's claims (all of the task's, or
// those of ClaimIDs), at most dispatchShards() from DispatchFrom on and a
// continuation for the rest, and completes, in one transaction under the
// task's share lock (store.VerifyShards says why).
func (w *VerifyNLIWorker) dispatch(ctx context.Context, job *river.Job[jobs.VerifyNLIArgs]) error {
	if n := diedAlone(job.JobRow); n >= errs.MaxWorkerDeaths {
		return fail(WorkerDied, fmt.Errorf("its worker process died in %d attempts, %d of them while it ran alone: not run again", workerDeaths(job.JobRow), n))
	}
	var out DispatchOutput
	err := w.store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		shards, err := q.VerifyShards(ctx, job.Args.TaskID, job.Args.ClaimIDs, w.cfg.shardClaims(), job.Args.DispatchFrom, w.cfg.dispatchShards())
		if err != nil {
			return err
		}
		out.Shards = len(shards.Ranges)
		params := make([]river.InsertManyParams, 0, len(shards.Ranges)+1)
		for _, s := range shards.Ranges {
			params = append(params, river.InsertManyParams{Args: jobs.VerifyShard(job.Args.TaskID, s.From, s.To)})
		}
		if shards.Next > 0 {
			next := job.Args
			next.DispatchFrom = shards.Next
			params = append(params, river.InsertManyParams{Args: next})
			out.Continued = true
		}
		if len(params) > 0 {
			res, err := river.ClientFromContext[pgx.Tx](ctx).InsertManyTx(ctx, tx, params)
			if err != nil {
				return fmt.Errorf("enqueue verify_nli shards: %w", err)
			}
			for _, r := range res[:len(shards.Ranges)] {
				if !r.UniqueSkippedAsDuplicate {
					out.Enqueued++
				}
			}
		}
		return completeTx(ctx, tx, job, out)
	})
	if err != nil {
		return fmt.Errorf("dispatch verify_nli shards: %w", err)
	}
	w.logger.DebugContext(ctx, "verify_nli shards enqueued", slog.Int64("job_id", job.ID),
		slog.Int64("task_id", job.Args.TaskID), slog.Int("shards", out.Shards), slog.Int("enqueued", out.Enqueued))
	return nil
}

// SplitOutput is the output of a shard job split after its worker died
// under it errs.MaxWorkerDeaths times.
type SplitOutput struct {
	WorkerDeaths int        `json:"worker_deaths"`
	Into         [][2]int64 `json:"split_into"` // the two halves' claim-id ranges
}

// split ends a shard whose worker process died under it deaths times: a
// shard of several claims is split in two halves of its remaining claims
// (each a job of its own), so that the claim that kills its worker ends up
// alone. A shard of one claim is a suspect: once its worker has died under
// it errs.MaxWorkerDeaths times while it ran alone in its process
// (outcomes.admit, jobCounts.WorkerDeathsSolo), the claim is refused, with
// the reason, and the job cancelled; until then it reports suspect, and
// Work verifies it. Every other claim is verified.
func (w *VerifyNLIWorker) split(ctx context.Context, job *river.Job[jobs.VerifyNLIArgs], deaths int) (suspect bool, err error) {
	a := job.Args
	ids, err := w.store.ShardClaimIDs(ctx, store.ShardClaimIDsParams{TaskID: a.TaskID, ClaimFrom: a.ClaimFrom, ClaimTo: a.ClaimTo})
	if err != nil {
		return false, fmt.Errorf("read the shard's claims: %w", err)
	}
	if len(ids) == 1 {
		solo := diedAlone(job.JobRow)
		if solo < errs.MaxWorkerDeaths {
			return true, nil
		}
		reason := fmt.Sprintf("its worker process died %d times while verifying it alone", solo)
		err := w.store.InTx(ctx, func(_ pgx.Tx, q *store.Queries) error {
			return q.RefuseClaims(ctx, store.RefuseClaimsParams{TaskID: a.TaskID, Ids: ids, Reasons: []string{reason}})
		})
		if err != nil {
			return false, fmt.Errorf("refuse claim %d: %w", ids[0], err)
		}
		w.logger.WarnContext(ctx, "claim refused: its verification kills the worker", slog.Int64("job_id", job.ID),
			slog.Int64("task_id", a.TaskID), slog.Int64("claim_id", ids[0]), slog.Int("worker_deaths", deaths), slog.Int("alone", solo))
		return false, fail(ClaimKillsWorker, fmt.Errorf("claim %d refused: %s; the task's other claims are verified", ids[0], reason))
	}
	var out SplitOutput
	out.WorkerDeaths = deaths
	err = w.store.InTx(ctx, func(tx pgx.Tx, _ *store.Queries) error {
		var params []river.InsertManyParams
		if len(ids) > 1 {
			mid := ids[len(ids)/2]
			out.Into = [][2]int64{{a.ClaimFrom, mid - 1}, {mid, a.ClaimTo}}
			for _, r := range out.Into {
				params = append(params, river.InsertManyParams{Args: jobs.VerifyShard(a.TaskID, r[0], r[1])})
			}
			if _, err := river.ClientFromContext[pgx.Tx](ctx).InsertManyTx(ctx, tx, params); err != nil {
				return fmt.Errorf("enqueue the halves: %w", err)
			}
		}
		return completeTx(ctx, tx, job, out)
	})
	if err != nil {
		return false, fmt.Errorf("split verify_nli shard: %w", err)
	}
	w.logger.WarnContext(ctx, "verify_nli shard split: its worker died under it", slog.Int64("job_id", job.ID),
		slog.Int64("task_id", a.TaskID), slog.Int("worker_deaths", deaths), slog.Any("into", out.Into))
	return false, nil
}
