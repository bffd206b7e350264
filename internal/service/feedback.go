package service

import (
	"context"
	"fmt"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/store"
)

// claimOf checks that the claim is of one of the organization's tasks;
// another organization's claim, like a missing one, is
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

// ClaimVerdictFeedback is a reviewer's word on a claim of the
// organization's: reject it (the claim is wrong whatever its edges say) or
// restore it (judge it by its edges again).
type ClaimVerdictFeedback struct {
	ClaimID int64
	Reject  bool // false: restore
	Reason  string
	By      string // who the reviewer is
	TokenID int64  // the API token it came through (0 from the CLI)
}

// ClaimFeedbackResult is where the claim stands after the feedback.
type ClaimFeedbackResult struct {
	ClaimID      int64  `json:"claim_id"`
	Verification string `json:"verification_status"`
	Changed      bool   `json:"changed"` // false: it already stood so
}

// ClaimFeedback is a person's rejection or restoration of a claim of the
// organization's (store.ApplyClaimFeedback), recorded as the
// organization's: what it leads to changes the organization's view of the
// claim's domain, never the fleet's alone.
func (s *Service) ClaimFeedback(ctx context.Context, org string, f ClaimVerdictFeedback) (ClaimFeedbackResult, error) {
	if err := s.claimOf(ctx, org, f.ClaimID); err != nil {
		return ClaimFeedbackResult{ClaimID: f.ClaimID}, err
	}
	r, err := s.st.ApplyClaimFeedback(ctx, store.ClaimVerdictFeedback{ClaimID: f.ClaimID, Reject: f.Reject, Reason: f.Reason, By: f.By,
		Org: org, TokenID: f.TokenID})
	if err != nil {
		// store's error names the claim already; its text is the API's answer
		return ClaimFeedbackResult{ClaimID: f.ClaimID}, err
	}
	return ClaimFeedbackResult{ClaimID: r.ClaimID, Verification: r.Verification, Changed: r.Changed}, nil
}

// EdgeCorrection is a reviewer's correction of an NLI edge's relation.
type EdgeCorrection struct {
	EdgeID   int64
	Relation string // supports, refutes or neutral
	Reason   string
	By       string // who the reviewer is
	TokenID  int64  // the API token it came through (0 from the CLI)
}

// EdgeCorrectionResult is what a correction did.
type EdgeCorrectionResult struct {
	EdgeID   int64  `json:"edge_id"`
	ClaimID  int64  `json:"claim_id"`
	Old      string `json:"old_relation"`
	Relation string `json:"relation"`
	Changed  bool   `json:"changed"`
	Verdict  string `json:"claim_verdict"` // the claim's verdict after it
}

// CorrectEdge is a person's correction of an NLI edge into a claim of the
// organization's (store.CorrectEdge); another organization's edge, like a
// missing one, is errs.ErrEdgeNotFound.
func (s *Service) CorrectEdge(ctx context.Context, org string, c EdgeCorrection) (EdgeCorrectionResult, error) {
	out := EdgeCorrectionResult{EdgeID: c.EdgeID}
	row, err := s.st.EdgeOrganization(ctx, c.EdgeID)
	if store.IsNotFound(err) || err == nil && row.OrganizationID != org {
		return out, fmt.Errorf("edge %d: %w", c.EdgeID, errs.ErrEdgeNotFound)
	}
	if err != nil {
		return out, fmt.Errorf("read edge %d: %w", c.EdgeID, err)
	}
	r, err := s.st.CorrectEdge(ctx, store.EdgeCorrection{EdgeID: c.EdgeID, Relation: c.Relation, Reason: c.Reason, By: c.By,
		Org: org, TokenID: c.TokenID})
	if err != nil {
		// store's error names the edge already; its text is the API's answer
		return out, err
	}
	return EdgeCorrectionResult{EdgeID: r.EdgeID, ClaimID: r.ClaimID, Old: r.Old, Relation: r.Relation, Changed: r.Changed,
		Verdict: r.Verdict}, nil
}

// CorrectedPairs are the organization's corrected NLI edges as labelled
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
