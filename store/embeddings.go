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
