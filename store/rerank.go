package store

import (
	"context"
	"fmt"
)

// RankingWritten is what WriteRanking did.
type RankingWritten struct {
	Task     LockTaskRow // the task as locked (its work_version tells whether it changed)
	Replaced int         // rows of the previous ranking removed
	Stored   int
}

// WriteRanking is the rerank job's one write: under the task's row lock (an
// active task; two runs for one query cannot interleave), the previous
// ranking of the query replaced by rows. A row whose fragment vanished since
// it was read (hard cleanup) makes it fail, to be ranked again.
func (q *Queries) WriteRanking(ctx context.Context, taskID int64, queryHash string, rows InsertTaskRankingParams) (RankingWritten, error) {
	var out RankingWritten
	task, err := q.LockActiveTask(ctx, taskID)
	if err != nil {
		return out, err
	}
	out.Task = task
	replaced, err := q.DeleteTaskRanking(ctx, DeleteTaskRankingParams{TaskID: taskID, QueryHash: queryHash})
	if err != nil {
		return out, fmt.Errorf("delete previous ranking: %w", err)
	}
	out.Replaced = int(replaced)
	stored, err := q.InsertTaskRanking(ctx, rows)
	if err != nil {
		return out, fmt.Errorf("insert ranking: %w", err)
	}
	if int(stored) != len(rows.FragmentIds) {
		return out, fmt.Errorf("insert ranking: stored %d of %d rows", stored, len(rows.FragmentIds))
	}
	out.Stored = int(stored)
	return out, nil
}
