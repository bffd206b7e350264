package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/verification"
)

// ClaimVerdictFeedback is a person's rejection of a claim, or its restoration.
type ClaimVerdictFeedback struct {
	ClaimID int64
	Reject  bool // false: restore
	Reason  string
	By      string
	// Org and TokenID are whose feedback it is: the organization and the
	// API token it came through (0 from the CLI). Recorded with it, and
	// cited by any block the rejection leads to.
	Org     string
	TokenID int64
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
// restored one is judged by its tally again, and source verification's
// rejection no longer applies to it (a person's word stands over the
// rules). The claim's posterior, status and its domain's block rule are
// recomputed in the same transaction. Repeating feedback records nothing.
func (s *Store) ApplyClaimFeedback(ctx context.Context, f ClaimVerdictFeedback) (ClaimFeedbackResult, error) {
	out := ClaimFeedbackResult{ClaimID: f.ClaimID}
	err := s.InTx(ctx, func(_ pgx.Tx, q *Queries) error {
		// its task's row, then the claim and those downstream of it, in id
		// order, as RecomputePosteriors locks them
		if _, _, _, err := q.lockBeliefScope(ctx, []int64{f.ClaimID}, nil); err != nil {
			return err
		}
		cur, err := q.LockClaimStatus(ctx, f.ClaimID)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("claim %d: %w", f.ClaimID, errs.ErrClaimNotFound)
		}
		if err != nil {
			return err
		}
		out.Verification = cur.VerificationStatus
		action, word := "restore", verification.ReviewerRestored
		if f.Reject {
			action, word = "reject", verification.ReviewerRejected
		}
		// Nothing to do: rejected already by a person, or a restore of a
		// claim that is not rejected.
		if cur.ReviewerStatus == word || (!f.Reject && cur.VerificationStatus != verification.Rejected) {
			return nil
		}
		if err := q.SetReviewerStatus(ctx, SetReviewerStatusParams{ID: f.ClaimID, ReviewerStatus: &word}); err != nil {
			return err
		}
		if err := q.RecordClaimFeedback(ctx, RecordClaimFeedbackParams{ClaimID: f.ClaimID, Action: action, Reason: f.Reason, SetBy: f.By,
			OrganizationID: nonEmpty(f.Org), TokenID: nonZero(f.TokenID)}); err != nil {
			return err
		}
		states, err := q.RecomputePosteriors(ctx, []int64{f.ClaimID})
		if err != nil {
			return err
		}
		out.Verification, out.Changed = states[0].Verification, true
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("feedback on claim %d: %w", f.ClaimID, err)
	}
	return out, nil
}

// EdgeCorrection is a person's relation for an NLI edge.
type EdgeCorrection struct {
	EdgeID   int64
	Relation string // supports, refutes or neutral
	Reason   string
	By       string
	Org      string // whose correction: the organization and its API token (0 from the CLI)
	TokenID  int64
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

// CorrectEdge applies a person's correction of an NLI edge in one
// transaction: the model's judgement is kept beside it (model_relation,
// model_confidence), the person's counts at confidence 1, the claim's
// posterior is recomputed, and edge_feedback audits it. Repeating a
// correction records nothing.
func (s *Store) CorrectEdge(ctx context.Context, c EdgeCorrection) (EdgeCorrectionResult, error) {
	out := EdgeCorrectionResult{EdgeID: c.EdgeID, Relation: c.Relation}
	err := s.InTx(ctx, func(_ pgx.Tx, q *Queries) error {
		// the task's row before the edge's, in the one lock order
		if _, err := q.ShareLockEdgeTask(ctx, c.EdgeID); err != nil {
			return fmt.Errorf("lock the edge's task: %w", err)
		}
		e, err := q.LockNLIEdge(ctx, c.EdgeID)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("edge %d: %w", c.EdgeID, errs.ErrEdgeNotFound)
		}
		if err != nil {
			return err
		}
		out.ClaimID, out.Old = e.ClaimID, e.Relation
		if !(e.Relation == c.Relation && e.Corrected) {
			if err := q.CorrectEdge(ctx, CorrectEdgeParams{ID: c.EdgeID, Relation: c.Relation, SetBy: &c.By}); err != nil {
				return err
			}
			if err := q.RecordEdgeFeedback(ctx, RecordEdgeFeedbackParams{EdgeID: c.EdgeID, OldRelation: e.Relation,
				NewRelation: c.Relation, Reason: c.Reason, SetBy: c.By, OrganizationID: nonEmpty(c.Org), TokenID: nonZero(c.TokenID)}); err != nil {
				return err
			}
			out.Changed = true
		}
		posts, err := q.RecomputePosteriors(ctx, []int64{e.ClaimID})
		if err != nil {
			return err
		}
		out.Verdict = posts[0].Verdict
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("correct edge %d: %w", c.EdgeID, err)
	}
	return out, nil
}

func nonZero(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}
