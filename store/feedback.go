package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/evidencefleet/evidencefleet/internal/errs"
)

// ClaimVerdictFeedback is a person's rejection of a claim, or its restoration.
type ClaimVerdictFeedback struct {
	ClaimID int64
	Reject  bool // false: restore
	Reason  string
	By      string
}

// ClaimFeedbackResult is where the claim stands after the feedback.
type ClaimFeedbackResult struct {
	ClaimID      int64  `json:"claim_id"`
	Verification string `json:"verification_status"`
	Changed      bool   `json:"changed"` // false: it already stood so
}

// ApplyClaimFeedback rejects or restores a claim in one transaction with its
// audit row (claim_feedback). A rejected claim stays in the graph,
// verification_status rejected and not adopted, whatever its edges say; a
// restored one is judged by its tally again. Repeating feedback records
// nothing.
func (s *Store) ApplyClaimFeedback(ctx context.Context, f ClaimVerdictFeedback) (ClaimFeedbackResult, error) {
	out := ClaimFeedbackResult{ClaimID: f.ClaimID}
	err := s.InTx(ctx, func(_ pgx.Tx, q *Queries) error {
		status, err := q.LockClaimStatus(ctx, f.ClaimID)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("claim %d: %w", f.ClaimID, errs.ErrClaimNotFound)
		}
		if err != nil {
			return err
		}
		out.Verification = status
		action := "restore"
		switch {
		case f.Reject && status == "rejected", !f.Reject && status != "rejected":
			return nil
		case f.Reject:
			action, out.Verification = "reject", "rejected"
			if err := q.RejectClaim(ctx, f.ClaimID); err != nil {
				return err
			}
		default:
			if err := q.UnrejectClaim(ctx, f.ClaimID); err != nil {
				return err
			}
			posts, err := q.RecomputePosteriors(ctx, []int64{f.ClaimID})
			if err != nil {
				return err
			}
			out.Verification = posts[0].Verification
		}
		out.Changed = true
		return q.RecordClaimFeedback(ctx, RecordClaimFeedbackParams{ClaimID: f.ClaimID, Action: action, Reason: f.Reason, SetBy: f.By})
	})
	if err != nil {
		return out, fmt.Errorf("feedback on claim %d: %w", f.ClaimID, err)
	}
	return out, nil
}
