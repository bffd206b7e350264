package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// PaperCandidates is a paper's citation-graph candidates, recorded once per
// page (citation_neighborhoods and citation_candidates): how many
// neighbours the academic APIs reported, the embedder of the stage 1
// similarity, and the stage 1 survivors in order (Position 0 first).
type PaperCandidates struct {
	PageID     int64
	Neighbors  int
	EmbedModel string
	Candidates []CitationCandidate
}

// PaperCandidatesOf reads the page's recorded candidates; found is false
// when none were recorded.
func (q *Queries) PaperCandidatesOf(ctx context.Context, pageID int64) (c PaperCandidates, found bool, err error) {
	n, err := q.CitationNeighborhood(ctx, pageID)
	if IsNotFound(err) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("read citation neighborhood of page %d: %w", pageID, err)
	}
	rows, err := q.CitationCandidatesOf(ctx, pageID)
	if err != nil {
		return c, false, fmt.Errorf("read citation candidates of page %d: %w", pageID, err)
	}
	c = PaperCandidates{PageID: pageID, Neighbors: int(n.Neighbors), EmbedModel: n.EmbedModel, Candidates: make([]CitationCandidate, len(rows))}
	for i, r := range rows {
		c.Candidates[i] = CitationCandidate{PageID: pageID, Position: r.Position, Reference: r.Reference,
			Influential: r.Influential, Similarity: r.Similarity, Sources: r.Sources, Paper: r.Paper}
	}
	return c, true, nil
}

// RecordPaperCandidates records c, in one transaction, unless the page's
// candidates are already recorded: the first record stands, so every task
// selects among the same candidates. It returns the record that stands and
// whether it is c. Positions are c's order.
func (s *Store) RecordPaperCandidates(ctx context.Context, c PaperCandidates) (PaperCandidates, bool, error) {
	var (
		stands  PaperCandidates
		written bool
	)
	err := s.InTx(ctx, func(_ pgx.Tx, q *Queries) error {
		n, err := q.InsertCitationNeighborhood(ctx, InsertCitationNeighborhoodParams{PageID: c.PageID,
			Neighbors: int32(c.Neighbors), EmbedModel: c.EmbedModel})
		if err != nil {
			return fmt.Errorf("insert citation neighborhood: %w", err)
		}
		if n == 1 {
			for i, cand := range c.Candidates {
				if err := q.InsertCitationCandidate(ctx, InsertCitationCandidateParams{PageID: c.PageID, Position: int32(i),
					Reference: cand.Reference, Influential: cand.Influential, Similarity: cand.Similarity,
					Sources: cand.Sources, Paper: cand.Paper}); err != nil {
					return fmt.Errorf("insert citation candidate: %w", err)
				}
			}
			written = true
		}
		var found bool
		stands, found, err = q.PaperCandidatesOf(ctx, c.PageID)
		if err == nil && !found {
			err = fmt.Errorf("citation candidates of page %d vanished", c.PageID)
		}
		return err
	})
	if err != nil {
		return PaperCandidates{}, false, fmt.Errorf("record citation candidates of page %d: %w", c.PageID, err)
	}
	return stands, written, nil
}
