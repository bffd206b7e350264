package workers

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"

	"github.com/evidencefleet/evidencefleet/internal/domainpolicy"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/evidence"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// VerifyNLIWorker works verify_nli jobs.
type VerifyNLIWorker struct {
	river.WorkerDefaults[jobs.VerifyNLIArgs]
	Store    *store.Store
	Embedder models.Embedder
	NLI      models.NLI
	Recall   *Recaller
	Verify   VerifyConfig
	Metrics  *metrics.Metrics
	Logger   *slog.Logger

	// solo lets a suspect shard (one claim whose worker died under it
	// errs.MaxWorkerDeaths times) run alone among this process's
	// verify_nli jobs: the others hold it shared while they work.
	solo sync.RWMutex
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
	// HandedOver: a successor job of the same shard does the rest (the
	// shard had more pairs than one job judges, or the task kept changing).
	HandedOver bool `json:"handed_over,omitempty"`
}

// maxRounds bounds how often one job goes round when the task keeps changing;
// after that it completes and enqueues a successor.
const maxRounds = 5

// Work dispatches a task's shards, or verifies one shard: rounds until the
// task did not change during a round, judging at most Verify.JobPairs pairs
// in all and handing the rest to a successor.
func (w *VerifyNLIWorker) Work(ctx context.Context, job *river.Job[jobs.VerifyNLIArgs]) error {
	if !job.Args.IsShard() {
		return w.dispatch(ctx, job)
	}
	if n := workerDeaths(job.JobRow); n >= errs.MaxWorkerDeaths {
		suspect, err := w.split(ctx, job, n)
		if !suspect {
			return err
		}
		// One claim that may be killing its worker, or may have died beside
		// the one that does: it runs alone, so that a death now is its own.
		w.solo.Lock()
		defer w.solo.Unlock()
		if err := w.Store.MarkSoloAttempt(ctx, store.MarkSoloAttemptParams{ID: job.ID, Attempt: int32(job.Attempt)}); err != nil {
			return fmt.Errorf("mark the attempt solo: %w", err)
		}
	} else {
		w.solo.RLock()
		defer w.solo.RUnlock()
	}
	var out VerifyOutput
	for round := 1; round <= maxRounds; round++ {
		out.Rounds = round
		state, err := w.Store.TaskVerifyState(ctx, store.TaskVerifyStateParams{TaskID: job.Args.TaskID, EmbedModel: models.PassageModel(w.Embedder)})
		if err != nil {
			if store.IsNotFound(err) {
				return errs.Task(job.Args.TaskID, errs.ErrTaskNotFound)
			}
			return fmt.Errorf("read task: %w", err)
		}
		// Task state first: a stopped task's claims are not judged.
		if err := store.CheckActive(job.Args.TaskID, state.Status); err != nil {
			return err
		}
		version := state.WorkVersion
		if pending := state.NotEmbedded; pending > 0 && round > 1 {
			// Pages came in during the last round: this job's committed
			// rounds stay its own (a snooze would lose their count from its
			// output); a successor waits for the new embeddings.
			return w.handOver(ctx, job, out)
		}
		if pending := state.NotEmbedded; pending > 0 {
			if snoozeCount(job.Metadata) < int64(w.Verify.MaxEmbedWaits) {
				// Judging now would rank without those fragments: wait for the embed jobs.
				return river.JobSnooze(w.Verify.EmbedWait)
			}
			out.NotEmbedded = int(pending)
			logger(w.Logger).WarnContext(ctx, "verifying without fragments that are still not embedded",
				slog.Int64("job_id", job.ID), slog.Int64("fragments", pending))
		}
		plan, err := w.plan(ctx, job.Args, state, &out)
		if err != nil {
			return modelErr(err, "plan verification")
		}
		more := plan.keep(w.Verify.jobPairs() - out.Judged)
		judgements, err := judge(ctx, w.NLI, plan.pairs, w.Verify.NLIBatchSize)
		if err != nil {
			return modelErr(err, "NLI with "+w.NLI.Model())
		}
		done := false
		var verdicts []store.ClaimState
		write := w.judgements(job.Args.TaskID, plan, judgements, &out)
		err = w.Store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
			// A target_queue that added pages while we judged is seen in the
			// task's work_version, read under its (share) lock.
			res, err := q.WriteJudgements(ctx, write)
			if err != nil {
				return err
			}
			w.countEdges(write.Edges, res.Inserted, &out)
			verdicts = res.Posteriors
			changed := res.Task.WorkVersion != version
			if changed && !more && round < maxRounds {
				return nil // commit this round's edges, then go round again
			}
			done = true
			out.HandedOver = changed || more
			if err := completeTx(ctx, tx, job, out); err != nil {
				return err
			}
			if out.HandedOver {
				// The task keeps changing, or the shard has more pairs than
				// one job judges: a successor does the rest.
				return insertSuccessor(ctx, tx, job)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("store NLI edges: %w", err)
		}
		byVerdict := map[string]int{}
		for _, p := range verdicts {
			byVerdict[p.Verdict]++
		}
		for v, n := range byVerdict {
			w.Metrics.Verdict(v, n)
		}
		if done {
			logger(w.Logger).InfoContext(ctx, "claims verified", slog.Int64("job_id", job.ID),
				slog.Int64("task_id", job.Args.TaskID), slog.Int64("claim_from", job.Args.ClaimFrom),
				slog.Int64("claim_to", job.Args.ClaimTo), slog.Int("claims", out.Claims),
				slog.Int("inserted", out.Inserted), slog.Int("skipped_judged", out.SkippedJudged),
				slog.Int("skipped_conflict", out.SkippedConflict), slog.Bool("handed_over", out.HandedOver))
			return nil
		}
	}
	return nil // unreachable: the last round always completes
}

// verifyPlan is what one round will judge.
type verifyPlan struct {
	claimIDs []int64 // every claim of the round, for the posterior recompute
	refused  []store.RefusedClaim
	pairs    []models.Pair
	meta     []pairMeta // parallel to pairs
}

type pairMeta struct {
	claimID, fragmentID int64
	retrievalScore      float64 // the candidate's cosine similarity (the store clamps it)
	sourceTrust         string
	sourceCategory      string
	targetTrust         string
}

// plan reads the claims and candidates and selects the pairs (ARCHITECTURE.md §5.2).
func (w *VerifyNLIWorker) plan(ctx context.Context, args jobs.VerifyNLIArgs, state store.TaskVerifyStateRow, out *VerifyOutput) (verifyPlan, error) {
	var plan verifyPlan
	claimIDs := args.ClaimIDs
	if claimIDs == nil {
		claimIDs = []int64{}
	}
	claims, err := w.Store.TaskClaimsForVerification(ctx, store.TaskClaimsForVerificationParams{
		TaskID: args.TaskID, ClaimIds: claimIDs, ClaimFrom: args.ClaimFrom, ClaimTo: args.ClaimTo, MaxChars: jobs.MaxTextRunes})
	if err != nil {
		return plan, fmt.Errorf("read claims: %w", err)
	}
	claims, plan.refused = workableClaims(claims)
	out.Claims, out.Refused = len(claims), out.Refused+len(plan.refused)
	if len(claims) == 0 || state.Fragments == 0 {
		return plan, nil
	}
	texts := make([]string, len(claims))
	for i, c := range claims {
		texts[i] = c.Text
		plan.claimIDs = append(plan.claimIDs, c.ID)
	}
	claimVecs, err := w.Embedder.Embed(ctx, texts)
	if err == nil {
		err = checkVectors(claimVecs, len(texts), w.Embedder.Dim())
	}
	if err != nil {
		return plan, fmt.Errorf("embed claims with %s: %w", w.Embedder.Model(), err)
	}
	recall := make([]RecallClaim, len(claims))
	for i, c := range claims {
		recall[i] = RecallClaim{ID: c.ID, Text: c.Text, Lexemes: c.Lexemes, Vec: claimVecs[i], ExcludeDomain: c.OriginDomain}
	}
	candidates, err := w.Recall.Candidates(ctx, args.TaskID, state, recall)
	if err != nil {
		return plan, err
	}
	judgedRows, err := w.Store.JudgedPairs(ctx, plan.claimIDs)
	if err != nil {
		return plan, fmt.Errorf("read judged pairs: %w", err)
	}
	judged := make(map[[2]int64]bool, len(judgedRows))
	for _, r := range judgedRows {
		judged[[2]int64{r.ClaimID, r.FragmentID}] = true
	}
	lim := evidence.SelectLimits{MinSimilarity: w.Verify.MinSimilarity, TopK: w.Verify.TopK,
		MaxDomains: w.Verify.MaxDomains, MaxPairs: w.Verify.MaxPairsPerClaim}
	type selection struct {
		claim      int
		fragment   int64
		similarity float64
	}
	var selected []selection
	var fragIDs []int64
	for i, c := range claims {
		cands := candidates[c.ID]
		evidence.FuseScores(cands) // lexical and cosine scores, fused (§5.2)
		out.Candidates += len(cands)
		sel, skipped := evidence.SelectPairs(cands, func(fid int64) bool { return judged[[2]int64{c.ID, fid}] }, lim)
		out.SkippedJudged += skipped
		for _, s := range sel {
			selected = append(selected, selection{claim: i, fragment: s.FragmentID, similarity: s.Similarity})
			fragIDs = append(fragIDs, s.FragmentID)
		}
	}
	w.Metrics.NLISkipped("already_judged", out.SkippedJudged)
	if len(selected) == 0 {
		return plan, nil
	}
	rows, err := w.Store.PairFragments(ctx, store.PairFragmentsParams{TaskID: args.TaskID, Ids: fragIDs})
	if err != nil {
		return plan, fmt.Errorf("read selected fragments: %w", err)
	}
	frags := make(map[int64]store.PairFragmentsRow, len(rows))
	for _, f := range rows {
		frags[f.ID] = f
	}
	for _, s := range selected {
		f, ok := frags[s.fragment]
		if !ok {
			continue // deleted since it was recalled
		}
		if f.TrustLevel == domainpolicy.Blocked {
			out.SkippedBlocked++ // read now: a block leaves every candidate set at once
			w.Metrics.NLISkipped("blocked_domain", 1)
			continue
		}
		c := claims[s.claim]
		plan.pairs = append(plan.pairs, models.Pair{Premise: f.Text, Hypothesis: c.Text})
		plan.meta = append(plan.meta, pairMeta{claimID: c.ID, fragmentID: s.fragment, retrievalScore: s.similarity,
			sourceTrust: f.TrustLevel, sourceCategory: f.Category, targetTrust: c.OriginTrustLevel})
	}
	return plan, nil
}

// workableClaims splits off the claims longer than a claim may be
// (jobs.MaxTextRunes: rows written around internal/intake), which cannot be
// embedded, indexed or judged; they are marked refused with the reason, and
// the task's other claims go on.
func workableClaims(claims []store.TaskClaimsForVerificationRow) ([]store.TaskClaimsForVerificationRow, []store.RefusedClaim) {
	var refused []store.RefusedClaim
	kept := claims[:0]
	for _, c := range claims {
		if c.Chars > jobs.MaxTextRunes {
			refused = append(refused, store.RefusedClaim{ID: c.ID,
				Reason: fmt.Sprintf("text of %d characters, more than the %d a claim may have", c.Chars, jobs.MaxTextRunes)})
			continue
		}
		kept = append(kept, c)
	}
	return kept, refused
}

// handOver completes the job with what its rounds did and enqueues a
// successor for the rest, in one transaction.
func (w *VerifyNLIWorker) handOver(ctx context.Context, job *river.Job[jobs.VerifyNLIArgs], out VerifyOutput) error {
	return w.Store.InTx(ctx, func(tx pgx.Tx, _ *store.Queries) error {
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

// judge calls the NLI backend in batches and checks what it answers: a
// batch answered with the wrong number of judgements fails, a single
// unusable judgement is models.Unjudgeable.
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
		for i, j := range js {
			// A judgement that is no judgement makes its pair unjudgeable;
			// the rest of the batch stands.
			known := j.Label == models.Supports || j.Label == models.Refutes || j.Label == models.Neutral
			if !known || math.IsNaN(j.Confidence) || j.Confidence < 0 || j.Confidence > 1 {
				js[i] = models.Judgement{Label: models.Unjudgeable}
			}
		}
		out = append(out, js...)
	}
	return out, nil
}

// judgements turns a round's NLI answers into the edges to store
// (ARCHITECTURE.md §5.2): a supports/refutes the model holds back (when
// HoldBack is on) or below MinNLIConfidence is stored as neutral with the
// model's label kept, and neutral pairs are dropped unless SaveNeutral.
func (w *VerifyNLIWorker) judgements(taskID int64, plan verifyPlan, js []models.Judgement, out *VerifyOutput) store.Judgements {
	cfg := w.Verify
	write := store.Judgements{TaskID: taskID, Model: w.NLI.Model(), ClaimIDs: plan.claimIDs, Refused: plan.refused}
	for i, j := range js {
		out.Judged++
		if j.Label == models.Unjudgeable {
			out.Unjudgeable++ // not stored: a later run asks again
			w.Metrics.NLISkipped("unjudgeable", 1)
			continue
		}
		rel := j.Label
		switch {
		case rel == models.Neutral:
		case j.HoldBack && cfg.HoldBack:
			rel = models.Neutral
			out.HeldBack++
		case j.Confidence < cfg.MinNLIConfidence:
			rel = models.Neutral
			out.Downgraded++
		}
		if rel == models.Neutral && !cfg.SaveNeutral {
			out.DroppedNeutral++
			continue
		}
		m := plan.meta[i]
		write.Edges = append(write.Edges, store.Judgement{ClaimID: m.claimID, FragmentID: m.fragmentID,
			Relation: rel, Label: j.Label, Confidence: j.Confidence, RetrievalScore: m.retrievalScore,
			SourceCategory: m.sourceCategory, SourceTrust: m.sourceTrust, TargetTrust: m.targetTrust})
	}
	return write
}

// countEdges records what was inserted: edges by relation, or, when another
// worker judged some of the pairs first, the conflicts.
func (w *VerifyNLIWorker) countEdges(edges []store.Judgement, inserted int, out *VerifyOutput) {
	if len(edges) == 0 {
		return
	}
	out.Inserted += inserted
	conflicts := len(edges) - inserted
	out.SkippedConflict += conflicts
	w.Metrics.NLISkipped("conflict", conflicts)
	if conflicts == 0 {
		byRelation := map[string]int{}
		for _, e := range edges {
			byRelation[e.Relation]++
		}
		for rel, c := range byRelation {
			w.Metrics.NLIEdge(rel, c)
		}
	}
}
