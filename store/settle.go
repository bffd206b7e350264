package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Settled is what one settle sweep did.
type Settled struct {
	Completed, Reopened []int64
}

// SettleTasks is the settle sweep: in pages of batch tasks, one transaction
// each, it locks the active or completed tasks whose rows no writer holds
// (SKIP LOCKED), then,
// each statement reading what committed before the locks, completes those
// with no job left to run and reopens completed ones that have a job to run
// again. A person's new work takes the task's row lock (ReopenTask,
// AdvanceTask), so it either waits for the sweep and reopens the task, or
// holds the row and keeps the sweep off it: a task is never left completed
// with work inserted. A paused task is no candidate: it is neither
// completed nor reopened until it is resumed. Safe in many processes at once.
func (s *Store) SettleTasks(ctx context.Context, batch int) (Settled, error) {
	var out Settled
	for after := int64(0); ; {
		var ids []int64
		err := s.InTx(ctx, func(_ pgx.Tx, q *Queries) error {
			var err error
			if ids, err = q.LockSettleCandidates(ctx, LockSettleCandidatesParams{After: after, MaxRows: int32(batch)}); err != nil || len(ids) == 0 {
				return err
			}
			completed, err := q.CompleteIdleTasks(ctx, ids)
			if err != nil {
				return err
			}
			reopened, err := q.ReopenBusyTasks(ctx, ids)
			out.Completed, out.Reopened = append(out.Completed, completed...), append(out.Reopened, reopened...)
			return err
		})
		if err != nil {
			return out, fmt.Errorf("settle tasks: %w", err)
		}
		if len(ids) < batch {
			return out, nil
		}
		after = ids[len(ids)-1]
	}
}
