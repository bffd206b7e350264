package store

import (
	"context"
	"fmt"
)

// taskSearchDocsSQL reads what the in-memory task index (internal/taskindex)
// is built from: every fragment of the task embedded with the model, with its
// page's domain, its tsvector (as text, parsed by the caller: 8× cheaper for
// the server than unnesting it) and its embedding. It follows task_pages, so
// its cost grows with the task, not with the graph. Hand-written: the
// embeddings are decoded into one backing array.
const taskSearchDocsSQL = `
SELECT f.id, p.domain, f.tsv::text, f.embedding
FROM task_pages tp
JOIN fragments f ON f.page_version_id = tp.page_version_id
JOIN pages p ON p.id = f.page_id
WHERE tp.task_id = $1 AND f.embed_model = $2
ORDER BY f.id`

// TaskSearchDoc is one row of TaskSearchDocs.
type TaskSearchDoc struct {
	ID        int64
	Domain    string
	TSVector  string // text output of fragments.tsv
	Embedding []float32
}

// TaskSearchDocs returns the task's fragments embedded with embedModel, by id.
func (q *Queries) TaskSearchDocs(ctx context.Context, taskID int64, embedModel string) ([]TaskSearchDoc, error) {
	rows, err := q.db.Query(ctx, taskSearchDocsSQL, taskID, embedModel)
	if err != nil {
		return nil, fmt.Errorf("read task search docs: %w", err)
	}
	defer rows.Close()
	var out []TaskSearchDoc
	var raw []byte
	var vecs []float32 // one backing array for many embeddings
	for rows.Next() {
		var d TaskSearchDoc
		if err := rows.Scan(&d.ID, &d.Domain, &d.TSVector, &raw); err != nil {
			return nil, fmt.Errorf("read task search docs: %w", err)
		}
		if n := len(raw) / 4; cap(vecs)-len(vecs) < n {
			vecs = make([]float32, 0, max(n*256, 1))
		}
		v, err := DecodeVector(raw, vecs[len(vecs):])
		if err != nil {
			return nil, fmt.Errorf("read task search docs: fragment %d: %w", d.ID, err)
		}
		d.Embedding = v[:len(v):len(v)]
		vecs = vecs[:len(vecs)+len(v)]
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read task search docs: %w", err)
	}
	return out, nil
}
