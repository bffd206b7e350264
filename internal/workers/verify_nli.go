package workers

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/evidence"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
	"github.com/evidencefleet/evidencefleet/internal/verifyplan"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// VerifyNLIWorker works verify_nli jobs: a dispatching job enqueues a
// task's shards (verify_shards.go); a shard job reads, plans
// (internal/verifyplan), judges, writes once and completes, round after
// round while the task changes under it.
type VerifyNLIWorker struct {
	river.WorkerDefaults[jobs.VerifyNLIArgs]
	store    *store.Store
	embedder models.Embedder
	nli      models.NLI
	recall   *Recaller
	cfg      VerifyConfig
	observe  Observer
	logger   *slog.Logger

	settled settledStates // tasks whose fragments were all embedded at a work_version
}

// NewVerifyNLIWorker is the verify_nli worker of these dependencies; a nil
// observer or logger records nothing.
func NewVerifyNLIWorker(st *store.Store, embedder models.Embedder, nli models.NLI, recall *Recaller, cfg VerifyConfig, observe Observer, log *slog.Logger) *VerifyNLIWorker {
	return &VerifyNLIWorker{store: st, embedder: embedder, nli: nli, recall: recall, cfg: cfg, observe: observer(observe), logger: logger(log)}
}

// VerifyOutput is recorded as the job's output.
type VerifyOutput struct {
	Rounds          int `json:"rounds"`
	Claims          int `json:"claims"`
	Candidates      int `json:"candidates"`
	Judged          int `json:"judged"`           // pairs sent to NLI
	Inserted        int `json:"inserted"`         // edges inserted
	SkippedJudged   int `json:"skipped_judged"`   // ranked pairs already judged before (pre-check)
	SkippedConflict int `json:"skipped_conflict"` // judged concurrently by another worker (ON CONFLICT)
	Downgraded      int `json:"downgraded_to_neutral"`
	HeldBack        int `json:"held_back_to_neutral"` // supports/refutes the model itself held back (models.Judgement.HoldBack)
	DroppedNeutral  int `json:"dropped_neutral"`      // neutral judgements not saved (save_neutral=false)
	NotEmbedded     int `json:"fragments_not_embedded"`
	Unjudgeable     int `json:"unjudgeable"`     // pairs the model gave no usable answer for
	Refused         int `json:"claims_refused"`  // claims too long to work, marked refused and skipped
	SkippedBlocked  int `json:"skipped_blocked"` // selected fragments of BLOCKED domains, never judged
	// HandedOver: a successor job of the same shard does the rest, for
	// the reason in Successor (verifyplan.Reason).
	HandedOver bool              `json:"handed_over,omitempty"`
	Successor  verifyplan.Reason `json:"successor,omitempty"`
}

// Work dispatches a task's shards, or verifies one shard: rounds until the
// task did not change during a round, judging at most the job's pairs in
// all and handing the rest to a successor.
func (w *VerifyNLIWorker) Work(ctx context.Context, job *river.Job[jobs.VerifyNLIArgs]) error {
	if !job.Args.IsShard() {
		return w.dispatch(ctx, job)
	}
	if n := workerDeaths(job.JobRow); n >= errs.MaxWorkerDeaths {
		// The middleware runs it alone in the process (outcomes.admit).
		if suspect, err := w.split(ctx, job, n); !suspect {
			return err
		}
	}
	var out VerifyOutput
	for round := 1; ; round++ {
		out.Rounds = round
		state, err := w.readState(ctx, job.Args.TaskID)
		if err != nil {
			return err
		}
		switch verifyplan.Begin(round, state.NotEmbedded, snoozeCount(job.Metadata), w.cfg.MaxEmbedWaits) {
		case verifyplan.WaitForEmbeddings:
			return wait(EmbeddingsPending, w.cfg.EmbedWait,
				fmt.Errorf("%d fragments of task %d are not embedded yet", state.NotEmbedded, job.Args.TaskID))
		case verifyplan.HandOver:
			out.HandedOver, out.Successor = true, verifyplan.NewFragments
			return w.handOver(ctx, job, out)
		}
		if state.NotEmbedded > 0 {
			out.NotEmbedded = int(state.NotEmbedded)
			w.logger.WarnContext(ctx, "verifying without fragments that are still not embedded",
				slog.Int64("job_id", job.ID), slog.Int64("fragments", state.NotEmbedded))
		}
		plan, err := w.plan(ctx, job.Args, state, w.cfg.jobPairs()-out.Judged, &out)
		if err != nil {
			return fmt.Errorf("plan verification: %w", err)
		}
		judgements, err := judge(ctx, w.nli, plan.ModelPairs(), w.cfg.NLIBatchSize)
		if err != nil {
			return fmt.Errorf("NLI with %s: %w", w.nli.Model(), err)
		}
		edges, tally := verifyplan.Edges(plan, judgements, w.cfg.edgeRules())
		out.add(tally)
		w.observe.NLISkipped("unjudgeable", tally.Unjudgeable)
		done, err := w.write(ctx, job, round, state.WorkVersion, plan, edges, &out)
		if err != nil {
			return fmt.Errorf("store NLI edges: %w", err)
		}
		if done {
			w.logger.InfoContext(ctx, "claims verified", slog.Int64("job_id", job.ID),
				slog.Int64("task_id", job.Args.TaskID), slog.Int64("claim_from", job.Args.ClaimFrom),
				slog.Int64("claim_to", job.Args.ClaimTo), slog.Int("claims", out.Claims),
				slog.Int("inserted", out.Inserted), slog.Int("skipped_judged", out.SkippedJudged),
				slog.Int("skipped_conflict", out.SkippedConflict), slog.String("successor", string(out.Successor)))
			return nil
		}
	}
}

// readState reads the task's state; a stopped task's claims are not judged.
// The task's row alone is read when the process knows its state at its
// work_version (settledStates).
func (w *VerifyNLIWorker) readState(ctx context.Context, taskID int64) (store.TaskVerifyStateRow, error) {
	model := models.PassageModel(w.embedder)
	row, err := w.store.TaskWorkVersion(ctx, taskID)
	if err == nil {
		if err = store.CheckActive(taskID, row.Status); err != nil {
			return store.TaskVerifyStateRow{}, err
		}
		if state, ok := w.settled.get(taskID, model, row.WorkVersion); ok {
			state.Status = row.Status // as it is now
			return state, nil
		}
	}
	state, err := w.store.TaskVerifyState(ctx, store.TaskVerifyStateParams{TaskID: taskID, EmbedModel: model})
	if err != nil {
		if store.IsNotFound(err) {
			return state, errs.Task(taskID, errs.ErrTaskNotFound)
		}
		return state, fmt.Errorf("read task: %w", err)
	}
	if err := store.CheckActive(taskID, state.Status); err != nil {
		return state, err
	}
	w.settled.keep(taskID, model, state)
	return state, nil
}

// plan reads the shard's claims, embeds them, recalls their candidates and
// the pairs judged before, selects (verifyplan.Select), reads the selected
// fragments and makes the round's plan of at most budget pairs
// (verifyplan.Pairs).
func (w *VerifyNLIWorker) plan(ctx context.Context, args jobs.VerifyNLIArgs, state store.TaskVerifyStateRow, budget int, out *VerifyOutput) (verifyplan.Plan, error) {
	claimIDs := args.ClaimIDs
	if claimIDs == nil {
		claimIDs = []int64{}
	}
	rows, err := w.store.TaskClaimsForVerification(ctx, store.TaskClaimsForVerificationParams{
		TaskID: args.TaskID, ClaimIds: claimIDs, ClaimFrom: args.ClaimFrom, ClaimTo: args.ClaimTo, MaxChars: jobs.MaxTextRunes})
	if err != nil {
		return verifyplan.Plan{}, fmt.Errorf("read claims: %w", err)
	}
	claims, refused := verifyplan.Workable(planClaims(rows), jobs.MaxTextRunes)
	out.Claims, out.Refused = len(claims), out.Refused+len(refused)
	if len(claims) == 0 || state.Fragments == 0 {
		return verifyplan.Plan{Refused: refused}, nil // nothing to judge them against
	}
	candidates, err := w.recall.ForClaims(ctx, args.TaskID, state, claims)
	if err != nil {
		return verifyplan.Plan{}, err
	}
	judged, err := w.judged(ctx, claims)
	if err != nil {
		return verifyplan.Plan{}, err
	}
	sel := verifyplan.Select(claims, candidates, judged, w.cfg.selectLimits())
	out.Candidates += sel.Candidates
	out.SkippedJudged += sel.SkippedJudged
	w.observe.NLISkipped("already_judged", sel.SkippedJudged)
	var frags map[int64]verifyplan.Fragment
	if len(sel.Picks) > 0 {
		if frags, err = w.fragments(ctx, args.TaskID, sel.FragmentIDs()); err != nil {
			return verifyplan.Plan{}, err
		}
	}
	plan := verifyplan.Pairs(claims, refused, sel, frags, budget)
	out.SkippedBlocked += plan.SkippedBlocked
	w.observe.NLISkipped("blocked_domain", plan.SkippedBlocked)
	return plan, nil
}

func planClaims(rows []store.TaskClaimsForVerificationRow) []verifyplan.Claim {
	out := make([]verifyplan.Claim, len(rows))
	for i, c := range rows {
		out[i] = verifyplan.Claim{ID: c.ID, Text: c.Text, Chars: int(c.Chars), Lexemes: c.Lexemes,
			OriginDomain: c.OriginDomain, OriginTrust: c.OriginTrustLevel}
	}
	return out
}

// judged reads the pairs of the claims judged before.
func (w *VerifyNLIWorker) judged(ctx context.Context, claims []verifyplan.Claim) (map[verifyplan.PairKey]bool, error) {
	ids := make([]int64, len(claims))
	for i, c := range claims {
		ids[i] = c.ID
	}
	rows, err := w.store.JudgedPairs(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("read judged pairs: %w", err)
	}
	judged := make(map[verifyplan.PairKey]bool, len(rows))
	for _, r := range rows {
		judged[verifyplan.PairKey{ClaimID: r.ClaimID, FragmentID: r.FragmentID}] = true
	}
	return judged, nil
}

// fragments reads the selected fragments' texts and their sources' levels
// in the task's organization's view, as they are now.
func (w *VerifyNLIWorker) fragments(ctx context.Context, taskID int64, ids []int64) (map[int64]verifyplan.Fragment, error) {
	rows, err := w.store.PairFragments(ctx, store.PairFragmentsParams{TaskID: taskID, Ids: ids})
	if err != nil {
		return nil, fmt.Errorf("read selected fragments: %w", err)
	}
	frags := make(map[int64]verifyplan.Fragment, len(rows))
	for _, f := range rows {
		frags[f.ID] = verifyplan.Fragment{Text: f.Text, TrustLevel: f.TrustLevel, Category: f.Category}
	}
	return frags, nil
}

// judge calls the NLI backend in batches: a batch answered with the wrong
// number of judgements fails; an unusable single judgement is left to
// verifyplan.Edges, which counts it unjudgeable.
func judge(ctx context.Context, nli models.NLI, pairs []models.Pair, batch int) ([]models.Judgement, error) {
	if batch <= 0 {
		batch = 32
	}
	out := make([]models.Judgement, 0, len(pairs))
	for start := 0; start < len(pairs); start += batch {
		end := min(start+batch, len(pairs))
		js, err := nli.Judge(ctx, pairs[start:end])
		if err != nil {
			return nil, err
		}
		if len(js) != end-start {
			return nil, fmt.Errorf("%w: %d judgements for %d pairs", remoteerr.ErrBadResponse, len(js), end-start)
		}
		out = append(out, js...)
	}
	return out, nil
}

// write stores a round's edges, refused claims and posteriors with one
// store call (store.WriteJudgements) and, when the round ends the job
// (verifyplan.End), completes it with its successor, in one transaction.
// A target_queue that added pages while the round judged is seen in the
// task's work_version, read under its share lock.
func (w *VerifyNLIWorker) write(ctx context.Context, job *river.Job[jobs.VerifyNLIArgs], round int, version int64, plan verifyplan.Plan, edges []verifyplan.Edge, out *VerifyOutput) (done bool, err error) {
	judgements := storeJudgements(job.Args.TaskID, w.nli.Model(), plan, edges)
	var written store.JudgementsWritten
	err = w.store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		written, err = q.WriteJudgements(ctx, judgements)
		if err != nil {
			return err
		}
		out.count(edges, written.Inserted)
		var successor verifyplan.Reason
		if done, successor = verifyplan.End(round, plan, written.Task.WorkVersion != version); !done {
			return nil // commit this round's edges, then go round again
		}
		out.HandedOver, out.Successor = successor != "", successor
		if err := completeTx(ctx, tx, job, *out); err != nil {
			return err
		}
		if out.HandedOver {
			return insertSuccessor(ctx, tx, job)
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	w.observeWritten(edges, written)
	return done, nil
}

// storeJudgements is the store's view of a round.
func storeJudgements(taskID int64, model string, plan verifyplan.Plan, edges []verifyplan.Edge) store.Judgements {
	j := store.Judgements{TaskID: taskID, Model: model, ClaimIDs: plan.ClaimIDs}
	for _, r := range plan.Refused {
		j.Refused = append(j.Refused, store.RefusedClaim{ID: r.ID, Reason: r.Reason})
	}
	for _, e := range edges {
		j.Edges = append(j.Edges, store.Judgement{ClaimID: e.ClaimID, FragmentID: e.FragmentID,
			Relation: e.Relation, Label: e.Label, Confidence: e.Confidence, RetrievalScore: e.RetrievalScore,
			SourceCategory: e.SourceCategory, SourceTrust: e.SourceTrust, TargetTrust: e.TargetTrust})
	}
	return j
}

// add counts a round's tally into the job's output.
func (o *VerifyOutput) add(t verifyplan.Tally) {
	o.Judged += t.Judged
	o.Unjudgeable += t.Unjudgeable
	o.HeldBack += t.HeldBack
	o.Downgraded += t.Downgraded
	o.DroppedNeutral += t.DroppedNeutral
}

// count records what a round's write inserted: the other edges were judged
// concurrently by another worker (ON CONFLICT).
func (o *VerifyOutput) count(edges []verifyplan.Edge, inserted int) {
	o.Inserted += inserted
	o.SkippedConflict += len(edges) - inserted
}

// observeWritten reports a committed round: edges by relation (unless
// another worker judged some of them first: the conflicts), and the
// claims' verdicts.
func (w *VerifyNLIWorker) observeWritten(edges []verifyplan.Edge, written store.JudgementsWritten) {
	conflicts := len(edges) - written.Inserted
	w.observe.NLISkipped("conflict", conflicts)
	if conflicts == 0 {
		byRelation := map[string]int{}
		for _, e := range edges {
			byRelation[e.Relation]++
		}
		for rel, n := range byRelation {
			w.observe.NLIEdge(rel, n)
		}
	}
	byVerdict := map[string]int{}
	for _, p := range written.Posteriors {
		byVerdict[p.Verdict]++
	}
	for v, n := range byVerdict {
		w.observe.Verdict(v, n)
	}
}

// handOver completes the job with what its rounds did and enqueues a
// successor for the rest, in one transaction.
func (w *VerifyNLIWorker) handOver(ctx context.Context, job *river.Job[jobs.VerifyNLIArgs], out VerifyOutput) error {
	return w.store.InTx(ctx, func(tx pgx.Tx, _ *store.Queries) error {
		if err := completeTx(ctx, tx, job, out); err != nil {
			return err
		}
		return insertSuccessor(ctx, tx, job)
	})
}

// insertSuccessor enqueues the same verify_nli in tx, where the job is
// already completed (so the unique insert is not skipped as a duplicate).
func insertSuccessor(ctx context.Context, tx pgx.Tx, job *river.Job[jobs.VerifyNLIArgs]) error {
	if _, err := river.ClientFromContext[pgx.Tx](ctx).InsertTx(ctx, tx, job.Args, nil); err != nil {
		return fmt.Errorf("enqueue successor verify_nli: %w", err)
	}
	return nil
}

// selectLimits are stage 3's cut-offs.
func (c VerifyConfig) selectLimits() evidence.SelectLimits {
	return evidence.SelectLimits{MinSimilarity: c.MinSimilarity, TopK: c.TopK, MaxDomains: c.MaxDomains, MaxPairs: c.MaxPairsPerClaim}
}

// edgeRules are how the round's judgements become edges.
func (c VerifyConfig) edgeRules() verifyplan.EdgeRules {
	return verifyplan.EdgeRules{MinConfidence: c.MinNLIConfidence, SaveNeutral: c.SaveNeutral, HoldBack: c.HoldBack}
}

// jobPairs bounds the pairs one job judges (defaultJobPairs when unset).
func (c VerifyConfig) jobPairs() int {
	if c.JobPairs <= 0 {
		return defaultJobPairs
	}
	return c.JobPairs
}
