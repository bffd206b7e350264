package store

import (
	"context"
	"fmt"
)

// setEmbeddingsSQL is hand-written because sqlc cannot resolve the derived
// table's alias in UPDATE … FROM. vectors holds one vector of dim floats per
// id, concatenated in the order of ids.
const setEmbeddingsSQL = `
UPDATE fragments f
SET embedding = u.vec, embed_model = $4::text
FROM (SELECT ids.id, ($2::real[])[(ids.ord - 1) * $3::int + 1 : ids.ord * $3::int] AS vec
      FROM unnest($1::bigint[]) WITH ORDINALITY AS ids(id, ord)) AS u
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
	flat := make([]float32, 0, dim*len(vectors))
	for i, v := range vectors {
		if len(v) != dim {
			return 0, fmt.Errorf("set embeddings: vector %d has dimension %d, want %d", i, len(v), dim)
		}
		flat = append(flat, v...)
	}
	tag, err := q.db.Exec(ctx, setEmbeddingsSQL, ids, flat, dim, model)
	if err != nil {
		return 0, fmt.Errorf("set embeddings: %w", err)
	}
	return tag.RowsAffected(), nil
}
