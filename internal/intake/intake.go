// Package intake is how work enters the fleet, whoever brings it — the
// enqueue CLI, make eval, make bench, and the target_queue worker for the
// results of a query: a task (CreateTask), its hypothesis claims
// (AddHypotheses) and its targets with their target_queue jobs (AddTargets),
// each in the caller's transaction.
package intake

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/textclip"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// Bounds of what one intake call takes; past them nothing is written and
// the error (errs.ErrBadInput) names the field and the limit.
const (
	// MaxBatch bounds the claims or targets of one call (split larger files).
	MaxBatch = 10000
	// MaxOrgRunes bounds an organization id.
	MaxOrgRunes = 200
)

// badInput is a refused input: errs.ErrBadInput, naming the field.
func badInput(field, format string, a ...any) error {
	return fmt.Errorf("%w: %s %s", errs.ErrBadInput, field, fmt.Sprintf(format, a...))
}

// BudgetClasses are the budget classes a task may have: how much its
// self-directed retrieval may spend (internal/planner); "" is standard.
var BudgetClasses = []string{"minimal", "standard", "deep"}

// Retrievals are how a task's pages come: given (only the targets its
// caller adds; "") or self_directed (the planner searches for its claims
// too, ARCHITECTURE.md §5.9).
var Retrievals = []string{"given", "self_directed"}

// TaskSpec is what a new task is made of.
type TaskSpec struct {
	Hypothesis string
	Budget     string // one of BudgetClasses; "" is standard
	Retrieval  string // one of Retrievals; "" is given
	// IdempotencyKey, when set, makes the create safe to retry: a second
	// create of the organization with the key returns the first's task.
	IdempotencyKey string
}

// MaxIdempotencyKeyRunes bounds an idempotency key.
const MaxIdempotencyKeyRunes = 200

// ErrIdempotencyConflict: the idempotency key was used for a task with
// another hypothesis, budget or retrieval (refused input, errs.ErrBadInput).
var ErrIdempotencyConflict = fmt.Errorf("%w: idempotency key already used for a different task", errs.ErrBadInput)

// CreateTask creates a task whose hypothesis becomes its first claim (E1), in
// the caller's transaction (CreateTaskOnce without its created flag).
func CreateTask(ctx context.Context, client *river.Client[pgx.Tx], tx pgx.Tx, org string, spec TaskSpec) (store.Task, error) {
	task, _, err := CreateTaskOnce(ctx, client, tx, org, spec)
	return task, err
}

// CreateTaskOnce creates a task whose hypothesis becomes its first claim
// (E1), in the caller's transaction, and says whether it made one: with an
// idempotency key the organization used before it returns that task (the
// same hypothesis, budget and retrieval, else ErrIdempotencyConflict). The
// hypothesis is a claim (at most jobs.MaxTextRunes characters); the
// organization id at most MaxOrgRunes.
func CreateTaskOnce(ctx context.Context, client *river.Client[pgx.Tx], tx pgx.Tx, org string, spec TaskSpec) (store.Task, bool, error) {
	hypothesis := strings.TrimSpace(spec.Hypothesis)
	if hypothesis == "" {
		return store.Task{}, false, badInput("hypothesis", "is required")
	}
	if err := jobs.CheckText(hypothesis, jobs.MaxTextRunes); err != nil {
		return store.Task{}, false, badInput("hypothesis", "%v", err)
	}
	if org == "" {
		org = "default"
	}
	if err := jobs.CheckText(org, MaxOrgRunes); err != nil {
		return store.Task{}, false, badInput("organization id", "%v", err)
	}
	budget, retrieval := cmp.Or(spec.Budget, "standard"), cmp.Or(spec.Retrieval, "given")
	if !slices.Contains(BudgetClasses, budget) {
		return store.Task{}, false, badInput("budget", "must be one of %s, got %q", strings.Join(BudgetClasses, ", "), textclip.Runes(budget, 40))
	}
	if !slices.Contains(Retrievals, retrieval) {
		return store.Task{}, false, badInput("retrieval", "must be one of %s, got %q", strings.Join(Retrievals, ", "), textclip.Runes(retrieval, 40))
	}
	var key *string
	if spec.IdempotencyKey != "" {
		if err := jobs.CheckText(spec.IdempotencyKey, MaxIdempotencyKeyRunes); err != nil {
			return store.Task{}, false, badInput("idempotency key", "%v", err)
		}
		key = &spec.IdempotencyKey
	}
	q := store.New(tx)
	task, err := q.CreateTask(ctx, store.CreateTaskParams{OrganizationID: org, Hypothesis: hypothesis, BudgetClass: budget, Retrieval: retrieval, IdempotencyKey: key})
	if store.IsNotFound(err) && key != nil {
		if task, err = q.TaskByIdempotencyKey(ctx, store.TaskByIdempotencyKeyParams{OrganizationID: org, IdempotencyKey: key}); err != nil {
			return task, false, fmt.Errorf("read the task of the idempotency key: %w", err)
		}
		if task.Hypothesis != hypothesis || task.BudgetClass != budget || task.Retrieval != retrieval {
			return task, false, fmt.Errorf("%w (task %d)", ErrIdempotencyConflict, task.ID)
		}
		return task, false, nil
	}
	if err != nil {
		return task, false, fmt.Errorf("create task: %w", err)
	}
	if _, err := AddHypotheses(ctx, client, tx, task.ID, []string{hypothesis}); err != nil {
		return task, false, err
	}
	return task, true, nil
}

// AddedClaim is a hypothesis claim after AddHypotheses.
type AddedClaim struct {
	ID         int64  `json:"id"`
	EvidenceNo int32  `json:"evidence_no"`
	Text       string `json:"text"`
	New        bool   `json:"new"`
}

// AddHypotheses adds hypothesis claims (no origin) to a task in the caller's
// transaction and enqueues a verify_nli for them. Each text is a claim (at
// most jobs.MaxTextRunes characters), at most MaxBatch per call; one bad
// text writes nothing. A text already on the task
// (same normalised text) returns the existing claim.
func AddHypotheses(ctx context.Context, client *river.Client[pgx.Tx], tx pgx.Tx, taskID int64, texts []string) ([]AddedClaim, error) {
	if len(texts) > MaxBatch {
		return nil, badInput("claims", "%d in one call, more than the %d allowed", len(texts), MaxBatch)
	}
	trimmed := make([]string, len(texts))
	for i, t := range texts {
		t = strings.TrimSpace(t)
		if t == "" {
			return nil, badInput(fmt.Sprintf("claim %d", i+1), "is empty")
		}
		if err := jobs.CheckText(t, jobs.MaxTextRunes); err != nil {
			return nil, badInput(fmt.Sprintf("claim %d", i+1), "%v", err)
		}
		trimmed[i] = t
	}
	added, err := store.New(tx).AddHypotheses(ctx, taskID, trimmed)
	if err != nil {
		return nil, err
	}
	out := make([]AddedClaim, len(added))
	var inserted []int64
	for i, a := range added {
		out[i] = AddedClaim{ID: a.ID, EvidenceNo: a.EvidenceNo, Text: trimmed[i], New: a.New}
		if a.New {
			inserted = append(inserted, a.ID)
		}
	}
	if len(inserted) > 0 {
		// The new claims' shards only: the others have nothing new to judge.
		if _, err := client.InsertTx(ctx, tx, jobs.VerifyNLIArgs{TaskID: taskID, ClaimIDs: inserted}, nil); err != nil {
			return nil, fmt.Errorf("enqueue verify_nli: %w", err)
		}
	}
	return out, nil
}

// AddTargets registers normalised targets on a task (the targets table keeps
// each once per task), as a person's or a service's (via user), and
// inserts one target_queue job per target with River's batch insert, in
// the caller's transaction. A result is UniqueSkippedAsDuplicate when the
// same target's job already exists. The `enqueue task add` command, the
// evaluation and the benchmark insert through it.
func AddTargets(ctx context.Context, client *river.Client[pgx.Tx], tx pgx.Tx, taskID int64, targets []jobs.Target) ([]*rivertype.JobInsertResult, error) {
	return addTargets(ctx, client, tx, taskID, 0, store.ViaUser, nil, targets)
}

// TargetJobs are the target_queue jobs of targets of a task at depth.
func TargetJobs(taskID int64, depth int, targets []jobs.Target) []river.InsertManyParams {
	params := make([]river.InsertManyParams, len(targets))
	for i, t := range targets {
		params[i] = river.InsertManyParams{Args: jobs.TargetQueueArgs{TaskID: taskID, Target: t, Depth: depth}}
	}
	return params
}

// ReleaseTargets inserts the target_queue jobs of deferred targets (the
// results of a query, one level below it), in the caller's transaction.
func ReleaseTargets(ctx context.Context, client *river.Client[pgx.Tx], tx pgx.Tx, taskID int64, depth int, targets []jobs.Target) ([]*rivertype.JobInsertResult, error) {
	res, err := client.InsertManyTx(ctx, tx, TargetJobs(taskID, depth, targets))
	if err != nil {
		return nil, fmt.Errorf("insert target_queue jobs: %w", err)
	}
	return res, nil
}

// RegisterTargets registers normalised targets on a task as come via (a
// source query target's id with it, or nil) in one statement, each once per
// task, and counts those new to it.
func RegisterTargets(ctx context.Context, tx pgx.Tx, taskID int64, via string, source *int64, targets []jobs.Target) (int64, error) {
	kinds := make([]string, len(targets))
	vals := make([]string, len(targets))
	for i, t := range targets {
		kinds[i], vals[i] = t.Kind, t.Value
	}
	n, err := store.New(tx).EnsureTargets(ctx, store.EnsureTargetsParams{TaskID: taskID, Kinds: kinds, Vals: vals,
		Via: via, SourceTargetID: source})
	if err != nil {
		return 0, fmt.Errorf("register targets: %w", err)
	}
	return n, nil
}

func addTargets(ctx context.Context, client *river.Client[pgx.Tx], tx pgx.Tx, taskID int64, depth int, via string, source *int64, targets []jobs.Target) ([]*rivertype.JobInsertResult, error) {
	if len(targets) > MaxBatch {
		return nil, badInput("targets", "%d in one call, more than the %d allowed", len(targets), MaxBatch)
	}
	if _, err := store.New(tx).ActiveTask(ctx, taskID); err != nil {
		return nil, err
	}
	if _, err := RegisterTargets(ctx, tx, taskID, via, source, targets); err != nil {
		return nil, err
	}
	res, err := client.InsertManyTx(ctx, tx, TargetJobs(taskID, depth, targets))
	if err != nil {
		return nil, fmt.Errorf("insert target_queue jobs: %w", err)
	}
	return res, nil
}
