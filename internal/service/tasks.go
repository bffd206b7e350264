package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/textclip"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// CreateTask creates a task of the organization (intake.TaskSpec: its
// hypothesis, which becomes claim E1, budget class and retrieval).
func (s *Service) CreateTask(ctx context.Context, org string, spec intake.TaskSpec) (store.Task, error) {
	task, _, err := s.createTaskOnce(ctx, org, spec)
	return task, err
}

// CreatedTask is a task as created.
type CreatedTask struct {
	TaskID         int64     `json:"id"`
	OrganizationID string    `json:"organization_id"`
	Hypothesis     string    `json:"hypothesis"`
	Budget         string    `json:"budget"`
	Retrieval      string    `json:"retrieval"`
	Status         string    `json:"status"`
	CreatedAt      time.Time `json:"created_at"`
}

// CreateTaskOnce is CreateTask that says whether it made the task: with
// an idempotency key the organization used before, it returns that task
// (intake.CreateTaskOnce).
func (s *Service) CreateTaskOnce(ctx context.Context, org string, spec intake.TaskSpec) (CreatedTask, bool, error) {
	t, created, err := s.createTaskOnce(ctx, org, spec)
	if err != nil {
		return CreatedTask{}, false, err
	}
	return CreatedTask{TaskID: t.ID, OrganizationID: t.OrganizationID, Hypothesis: t.Hypothesis, Budget: t.BudgetClass,
		Retrieval: t.Retrieval, Status: t.Status, CreatedAt: t.CreatedAt}, created, nil
}

// createTaskOnce creates the task, or finds the one its idempotency key
// made, in one transaction.
func (s *Service) createTaskOnce(ctx context.Context, org string, spec intake.TaskSpec) (store.Task, bool, error) {
	var task store.Task
	var created bool
	err := s.st.InTx(ctx, func(tx pgx.Tx, _ *store.Queries) error {
		var err error
		task, created, err = intake.CreateTaskOnce(ctx, s.client, tx, org, spec)
		return err
	})
	return task, created, err
}

// AddClaims adds hypothesis claims to the organization's task.
func (s *Service) AddClaims(ctx context.Context, org string, taskID int64, texts []string) ([]intake.AddedClaim, error) {
	if _, err := s.Task(ctx, org, taskID); err != nil {
		return nil, err
	}
	var added []intake.AddedClaim
	err := s.st.InTx(ctx, func(tx pgx.Tx, _ *store.Queries) error {
		var err error
		added, err = intake.AddHypotheses(ctx, s.client, tx, taskID, texts)
		return err
	})
	return added, err
}

// TargetsAdded is what AddTargets did.
type TargetsAdded struct {
	TaskID   int64         `json:"task_id"`
	Targets  []jobs.Target `json:"targets"` // as normalised and registered
	JobIDs   []int64       `json:"job_ids"`
	Inserted int           `json:"inserted"`
	Skipped  int           `json:"skipped_duplicates"`
}

// AddTargets registers targets of the organization's task and enqueues a
// target_queue job for each, in one transaction. Each is normalised first
// (jobs.Target.Normalized); one that cannot be refuses the call
// (errs.ErrBadInput naming targets[i]) and nothing is queued.
func (s *Service) AddTargets(ctx context.Context, org string, taskID int64, targets []jobs.Target) (TargetsAdded, error) {
	res := TargetsAdded{TaskID: taskID, Targets: targets, JobIDs: []int64{}}
	normalized, err := normalizeTargets(targets)
	if err != nil {
		return res, err
	}
	targets, res.Targets = normalized, normalized
	if _, err := s.Task(ctx, org, taskID); err != nil {
		return res, err
	}
	err = s.st.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		if err := q.ReopenTask(ctx, taskID); err != nil {
			return fmt.Errorf("reopen task %d: %w", taskID, err)
		}
		results, err := intake.AddTargets(ctx, s.client, tx, taskID, targets)
		if err != nil {
			return err
		}
		for _, r := range results {
			if r.UniqueSkippedAsDuplicate {
				res.Skipped++
				continue
			}
			res.Inserted++
			res.JobIDs = append(res.JobIDs, r.Job.ID)
		}
		return nil
	})
	return res, err
}

// normalizeTargets checks and normalises every target (jobs.Target.Normalized),
// naming each bad one by its index: nothing is queued when one is bad, and
// the caller learns of all of them at once.
func normalizeTargets(targets []jobs.Target) ([]jobs.Target, error) {
	if len(targets) == 0 {
		return nil, fmt.Errorf("%w: targets: give at least one", errs.ErrBadInput)
	}
	out := make([]jobs.Target, len(targets))
	var problems []string
	for i, t := range targets {
		n, err := t.Normalized()
		if err != nil {
			problems = append(problems, fmt.Sprintf("targets[%d] (%s %q): %v", i, t.Kind, textclip.Runes(t.Value, 200), err))
			continue
		}
		out[i] = n
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w: invalid targets, nothing queued: %s", errs.ErrBadInput, strings.Join(problems, "; "))
	}
	return out, nil
}

// Stopped is what StopTask did.
type Stopped struct {
	TaskID        int64  `json:"task_id"`
	Status        string `json:"status"`
	Cleanup       string `json:"cleanup,omitempty"`
	CleanupJobID  int64  `json:"cleanup_job_id,omitempty"`
	CleanupQueued bool   `json:"-"`
	AlreadyQueued bool   `json:"cleanup_already_queued,omitempty"`
}

// StopTask stops the organization's task (its waiting jobs cancel
// themselves, nothing more is added to it) and, with cleanup soft or hard,
// enqueues the deletion of its data (ARCHITECTURE.md §5.6), in one
// transaction under the task's row lock.
func (s *Service) StopTask(ctx context.Context, org string, taskID int64, cleanup string) (Stopped, error) {
	out := Stopped{TaskID: taskID, Status: "stopped", Cleanup: cleanup}
	switch cleanup {
	case "", jobs.CleanupSoft, jobs.CleanupHard:
	default:
		return out, fmt.Errorf("cleanup %q: want soft or hard", cleanup)
	}
	if _, err := s.Task(ctx, org, taskID); err != nil {
		return out, err
	}
	err := s.st.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		if _, err := q.LockExistingTask(ctx, taskID); err != nil {
			return err
		}
		if _, err := q.StopTask(ctx, taskID); err != nil {
			return fmt.Errorf("stop task: %w", err)
		}
		if cleanup == "" {
			return nil
		}
		res, err := s.client.InsertTx(ctx, tx, jobs.CleanupArgs{TaskID: taskID, Mode: cleanup}, nil)
		if err != nil {
			return fmt.Errorf("enqueue cleanup: %w", err)
		}
		out.CleanupJobID, out.AlreadyQueued = res.Job.ID, res.UniqueSkippedAsDuplicate
		return nil
	})
	return out, err
}

// InsertJob inserts a job of any kind, its args already checked as the
// worker checks them (jobs.ParseArgs); a job of a task must be of the
// organization's task, which it reopens if it was completed. Unless
// allowUnserved, a job for a queue no worker serves (QueueUnservedError) is
// refused: it is inserted, its queue read as River chose it, and the whole
// transaction rolled back.
func (s *Service) InsertJob(ctx context.Context, org string, args river.JobArgs, opts *river.InsertOpts, allowUnserved bool) (*rivertype.JobInsertResult, error) {
	a, ok := args.(jobs.Args)
	if !ok {
		return nil, fmt.Errorf("insert %s job: %w: %T is not an args type of the job contract (package jobs)", args.Kind(), errs.ErrBadInput, args)
	}
	task := a.TaskOf()
	if task > 0 {
		if _, err := s.Task(ctx, org, task); err != nil {
			return nil, err
		}
	}
	var res *rivertype.JobInsertResult
	err := s.st.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		if task > 0 {
			if err := q.ReopenTask(ctx, task); err != nil {
				return fmt.Errorf("reopen task %d: %w", task, err)
			}
		}
		r, err := s.client.InsertTx(ctx, tx, args, opts)
		if err != nil {
			return fmt.Errorf("insert %s job: %w", args.Kind(), err)
		}
		res = r
		if allowUnserved {
			return nil
		}
		return queueServed(ctx, q, res.Job.Queue)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// ServedWithin is how recently a worker must have reported serving a queue
// for the queue to be served: River's producers report when they start and
// every 10 minutes while they run (river_queue.updated_at).
const ServedWithin = 15 * time.Minute

// ErrQueueUnserved: no worker serves the queue (QueueUnservedError says
// why).
var ErrQueueUnserved = errors.New("no worker serves the queue")

// QueueUnservedError is a queue no worker serves and why.
type QueueUnservedError struct {
	Queue  string `json:"queue"`
	Reason string `json:"reason"`
}

func (e *QueueUnservedError) Error() string {
	return fmt.Sprintf("queue %q is not served: %s", e.Queue, e.Reason)
}

func (e *QueueUnservedError) Unwrap() error { return ErrQueueUnserved }

// queueServed checks that a worker reported serving the queue within
// ServedWithin and that the queue is not paused.
func queueServed(ctx context.Context, q *store.Queries, queue string) error {
	row, err := q.QueueSeen(ctx, queue)
	switch {
	case store.IsNotFound(err):
		return &QueueUnservedError{Queue: queue, Reason: "no worker has served it (or none for a day)"}
	case err != nil:
		return fmt.Errorf("read queue %q: %w", queue, err)
	case row.Paused:
		return &QueueUnservedError{Queue: queue, Reason: "it is paused"}
	}
	if age := time.Duration(row.AgeSeconds * float64(time.Second)); age > ServedWithin {
		return &QueueUnservedError{Queue: queue, Reason: fmt.Sprintf("no worker has reported serving it for %s (a worker serving it reports every 10 minutes)",
			age.Round(time.Minute))}
	}
	return nil
}
