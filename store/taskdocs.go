package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"
)

// taskSearchDocsSQL reads what the in-memory task index (internal/taskindex)
// is built from: every fragment of the task embedded with the model (of
// the page versions $3 only, unless $3 is NULL), with its page version, its
// page's domain, its tsvector with its page title's lexemes (pages.title_tsv; as
// text, parsed by the caller: 8× cheaper for the server than unnesting it)
// and its embedding. It follows task_pages, so its cost grows with the
// task, not with the graph. The rows come in no order: the index does not depend
// on it, and sorting 50,000 rows of embeddings spilled 72 MB to disk and
// took two thirds of the query (342 → 122 ms). Hand-written: the rows
// stream to a callback.
const taskSearchDocsSQL = `
SELECT tp.page_version_id, f.id, tp.domain, (f.tsv || tp.title_tsv)::text, f.embedding
FROM (
    SELECT tp.page_version_id, p.domain, p.title_tsv
    FROM task_pages tp
    JOIN pages p ON p.id = tp.page_id
    WHERE tp.task_id = $1 AND ($3::bigint[] IS NULL OR tp.page_version_id = ANY ($3::bigint[]))
    OFFSET 0
) AS tp
JOIN fragments f ON f.page_version_id = tp.page_version_id
WHERE f.embed_model = $2`

// TaskSearchDocs calls fn with each of the task's fragments embedded with
// embedModel (those of pageVersions only, unless it is nil), in no
// particular order: its page version, its page's domain, its tsvector as
// text and its embedding. The slices are only valid during the call (they point into the
// driver's buffer and one reused vector), so a task of any size streams
// through without a copy of its rows.
func (q *Queries) TaskSearchDocs(ctx context.Context, taskID int64, embedModel string, pageVersions []int64, fn func(pageVersion, id int64, domain, tsvector []byte, vec []float32) error) error {
	rows, err := q.db.Query(ctx, taskSearchDocsSQL, taskID, embedModel, pageVersions)
	if err != nil {
		return fmt.Errorf("read task search docs: %w", err)
	}
	defer rows.Close()
	var (
		pv, id      int64
		domain, tsv pgtype.DriverBytes
		raw         pgtype.DriverBytes
		vec         []float32
	)
	for rows.Next() {
		if err := rows.Scan(&pv, &id, &domain, &tsv, &raw); err != nil {
			return fmt.Errorf("read task search docs: %w", err)
		}
		if vec, err = DecodeVector(raw, vec); err != nil {
			return fmt.Errorf("read task search docs: fragment %d: %w", id, err)
		}
		if err := fn(pv, id, domain, tsv, vec); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read task search docs: %w", err)
	}
	return nil
}
