package service

import (
	"context"
	"fmt"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/store"
)

// claimOf checks that the claim is of one of the organisation's tasks;
// another organisation's claim, like a missing one, is
// errs.ErrClaimNotFound.
func (s *Service) claimOf(ctx context.Context, org string, claimID int64) error {
	row, err := s.st.ClaimOrganization(ctx, claimID)
	if store.IsNotFound(err) || err == nil && row.OrganizationID != org {
		return fmt.Errorf("claim %d: %w", claimID, errs.ErrClaimNotFound)
	}
	if err != nil {
		return fmt.Errorf("read claim %d: %w", claimID, err)
	}
	return nil
}

// ClaimFeedback is a person's rejection or restoration of a claim of the
// organisation's (store.ApplyClaimFeedback), recorded as the
// organisation's: what it leads to changes the organisation's view of the
// claim's domain, never the fleet's alone.
func (s *Service) ClaimFeedback(ctx context.Context, org string, f store.ClaimVerdictFeedback) (store.ClaimFeedbackResult, error) {
	if err := s.claimOf(ctx, org, f.ClaimID); err != nil {
		return store.ClaimFeedbackResult{ClaimID: f.ClaimID}, err
	}
	f.Org = org
	return s.st.ApplyClaimFeedback(ctx, f)
}

// CorrectEdge is a person's correction of an NLI edge into a claim of the
// organisation's (store.CorrectEdge); another organisation's edge, like a
// missing one, is store.ErrEdgeNotFound.
func (s *Service) CorrectEdge(ctx context.Context, org string, c store.EdgeCorrection) (store.EdgeCorrectionResult, error) {
	row, err := s.st.EdgeOrganization(ctx, c.EdgeID)
	if store.IsNotFound(err) || err == nil && row.OrganizationID != org {
		return store.EdgeCorrectionResult{EdgeID: c.EdgeID}, fmt.Errorf("edge %d: %w", c.EdgeID, store.ErrEdgeNotFound)
	}
	if err != nil {
		return store.EdgeCorrectionResult{EdgeID: c.EdgeID}, fmt.Errorf("read edge %d: %w", c.EdgeID, err)
	}
	c.Org = org
	return s.st.CorrectEdge(ctx, c)
}

// CorrectedPairs are the organisation's corrected NLI edges as labelled
// pairs, of one task (taskID > 0) or of all its tasks.
func (s *Service) CorrectedPairs(ctx context.Context, org string, taskID int64) ([]store.CorrectedPairsRow, error) {
	p := store.CorrectedPairsParams{OrganizationID: org}
	if taskID > 0 {
		if _, err := s.Task(ctx, org, taskID); err != nil {
			return nil, err
		}
		p.TaskID = &taskID
	}
	rows, err := s.st.CorrectedPairs(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("corrected pairs: %w", err)
	}
	return rows, nil
}
