package store

import (
	"context"
	"fmt"
)

// setEmbeddingsSQL is hand-written because sqlc cannot resolve the derived
// table's alias in UPDATE … FROM. One stored vector (EncodeVector) per id.
const setEmbeddingsSQL = `
UPDATE fragments f
SET embedding = u.vec, embed_model = $3::text
FROM unnest($1::bigint[], $2::bytea[]) AS u(id, vec)
WHERE f.id = u.id`

// SetEmbeddings stores one embedding per fragment for model.
func (q *Queries) SetEmbeddings(ctx context.Context, ids []int64, vectors [][]float32, model string) (int64, error) {
	if len(ids) != len(vectors) {
		return 0, fmt.Errorf("set embeddings: %d ids but %d vectors", len(ids), len(vectors))
	}
	if len(ids) == 0 {
		return 0, nil
	}
	dim := len(vectors[0])
	encoded := make([][]byte, len(vectors))
	for i, v := range vectors {
		if len(v) != dim || dim == 0 {
			return 0, fmt.Errorf("set embeddings: vector %d has dimension %d, want %d (> 0)", i, len(v), dim)
		}
		encoded[i] = EncodeVector(v)
	}
	tag, err := q.db.Exec(ctx, setEmbeddingsSQL, ids, encoded, model)
	if err != nil {
		return 0, fmt.Errorf("set embeddings: %w", err)
	}
	return tag.RowsAffected(), nil
}

// EmbeddingsWritten is what WriteEmbeddings did.
type EmbeddingsWritten struct {
	Stored int64
	// Verify: new embeddings of an active task were stored, so its
	// work_version moved and a verify_nli must see them.
	Verify bool
}

// WriteEmbeddings is the embed job's one write: the vectors, then — when
// some were new and the job belongs to an active task — the task's
// work_version bumped under its row lock, so that a verify_nli that stopped
// waiting for them (or runs now) sees them.
func (q *Queries) WriteEmbeddings(ctx context.Context, taskID int64, ids []int64, vectors [][]float32, model string) (EmbeddingsWritten, error) {
	var out EmbeddingsWritten
	stored, err := q.SetEmbeddings(ctx, ids, vectors, model)
	if err != nil {
		return out, err
	}
	out.Stored = stored
	if stored == 0 || taskID <= 0 {
		return out, nil
	}
	task, err := q.LockTask(ctx, taskID)
	if err != nil {
		if IsNotFound(err) {
			return out, nil // the task was removed; nothing to verify
		}
		return out, fmt.Errorf("lock task: %w", err)
	}
	if task.Status == TaskStopped {
		return out, nil // cleaned up; nothing to verify
	}
	if err := q.AdvanceTask(ctx, AdvanceTaskParams{ID: taskID, NextEvidenceNo: task.NextEvidenceNo}); err != nil {
		return out, fmt.Errorf("advance task: %w", err)
	}
	out.Verify = true
	return out, nil
}
