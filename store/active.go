package store

import (
	"context"
	"fmt"

	"github.com/evidencefleet/evidencefleet/internal/errs"
)

// TaskStopped is the status of a task that takes no new work.
const TaskStopped = "stopped"

// The one "task is active" rule. Every writer that adds to a task (workers,
// intake, the CLI) asks it: a task that does not exist is
// errs.ErrTaskNotFound, a stopped one errs.ErrTaskStopped, both permanent.

// LockActiveTask takes the task's row lock for the rest of the transaction,
// as writers that number claims or bump work_version must, and returns the
// task when it is active.
func (q *Queries) LockActiveTask(ctx context.Context, id int64) (LockTaskRow, error) {
	task, err := q.LockExistingTask(ctx, id)
	if err != nil {
		return task, err
	}
	return task, CheckActive(id, task.Status)
}

// CheckActive is the rule on a status already read: a stopped task is
// errs.ErrTaskStopped.
func CheckActive(id int64, status string) error {
	if status == TaskStopped {
		return errs.Task(id, errs.ErrTaskStopped)
	}
	return nil
}

// ShareLockActiveTask takes a share lock on the task's row for the rest of
// the transaction and returns the task when it is active. Writers that bump
// work_version (LockActiveTask) wait for it and it waits for them, so the
// work_version read is final until commit; share lockers do not wait for
// each other (the shards of one task's verification).
func (q *Queries) ShareLockActiveTask(ctx context.Context, id int64) (LockTaskRow, error) {
	row, err := q.ShareLockTask(ctx, id)
	task, err := lockedTask(id, LockTaskRow(row), err, "share-lock")
	if err != nil {
		return task, err
	}
	return task, CheckActive(id, task.Status)
}

// lockedTask is the result of a lock of task id: a missing task is
// errs.ErrTaskNotFound, any other error says which lock failed.
func lockedTask(id int64, task LockTaskRow, err error, lock string) (LockTaskRow, error) {
	switch {
	case err == nil:
		return task, nil
	case IsNotFound(err):
		return task, errs.Task(id, errs.ErrTaskNotFound)
	default:
		return task, fmt.Errorf("%s task %d: %w", lock, id, err)
	}
}

// LockExistingTask takes the task's row lock whatever its status (stopping
// and cleaning a task); a missing one is errs.ErrTaskNotFound.
func (q *Queries) LockExistingTask(ctx context.Context, id int64) (LockTaskRow, error) {
	task, err := q.LockTask(ctx, id)
	return lockedTask(id, task, err, "lock")
}

// ActiveTask reads the task without locking it and returns it when it is
// active (readers and writers that only append rows keyed by the task).
func (q *Queries) ActiveTask(ctx context.Context, id int64) (Task, error) {
	task, err := q.ExistingTask(ctx, id)
	if err != nil {
		return task, err
	}
	return task, CheckActive(id, task.Status)
}

// ExistingTask reads the task, whatever its status; a missing one is
// errs.ErrTaskNotFound.
func (q *Queries) ExistingTask(ctx context.Context, id int64) (Task, error) {
	task, err := q.GetTask(ctx, id)
	if err != nil {
		if IsNotFound(err) {
			return task, errs.Task(id, errs.ErrTaskNotFound)
		}
		return task, fmt.Errorf("read task %d: %w", id, err)
	}
	return task, nil
}

// TaskPaused is the status of a paused task: its jobs wait before they
// start (internal/workers/paused.go) and the settle sweep leaves it alone.
const TaskPaused = "paused"
