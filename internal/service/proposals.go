package service

import (
	"context"
)

// AcceptClaimLink accepts the proposed link from → to (E-numbers) of the
// organization's task — one the LLM proposed when it split the hypothesis
// (ARCHITECTURE.md §5.8) — and recomputes the propagated beliefs in the
// same transaction (store.AcceptClaimLink); by is recorded in a
// claim_link_accepted task event. A link that is not a proposal is
// store.ErrNoProposal (bad input).
func (s *Service) AcceptClaimLink(ctx context.Context, org string, taskID int64, from, to, by string) (ClaimLink, error) {
	f, t, err := s.linkEnds(ctx, org, taskID, from, to)
	if err != nil {
		return ClaimLink{}, err
	}
	row, err := s.st.AcceptClaimLink(ctx, taskID, f, t, by)
	if err != nil {
		return ClaimLink{}, err
	}
	return claimLink(row), nil
}

// RejectClaimLink deletes the proposed link from → to of the
// organization's task (store.RejectClaimLink); by is recorded in a
// claim_link_rejected task event. Beliefs do not change: a proposal never
// propagated.
func (s *Service) RejectClaimLink(ctx context.Context, org string, taskID int64, from, to, by string) error {
	f, t, err := s.linkEnds(ctx, org, taskID, from, to)
	if err != nil {
		return err
	}
	return s.st.RejectClaimLink(ctx, taskID, f, t, by)
}

// linkEnds checks the task is the organization's and reads the E-numbers.
func (s *Service) linkEnds(ctx context.Context, org string, taskID int64, from, to string) (int32, int32, error) {
	if _, err := s.Task(ctx, org, taskID); err != nil {
		return 0, 0, err
	}
	f, err := ParseEvidenceNo(from)
	if err != nil {
		return 0, 0, err
	}
	t, err := ParseEvidenceNo(to)
	if err != nil {
		return 0, 0, err
	}
	return f, t, nil
}
