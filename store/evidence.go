package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// EvidenceList runs EvidenceSpans planned for its own parameters: the query
// serves three filters with "narg IS NULL OR …" conditions, and a prepared
// statement's generic plan, which Postgres may switch to after a few runs,
// cannot use the index of the one filter given. A custom plan per call
// (plan_cache_mode, for this transaction only) folds the absent filters
// away.
func (s *Store) EvidenceList(ctx context.Context, p EvidenceSpansParams) ([]EvidenceSpansRow, error) {
	var rows []EvidenceSpansRow
	err := s.InTx(ctx, func(tx pgx.Tx, q *Queries) error {
		if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = force_custom_plan"); err != nil {
			return err
		}
		var err error
		rows, err = q.EvidenceSpans(ctx, p)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("evidence spans: %w", err)
	}
	return rows, nil
}
