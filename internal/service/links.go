package service

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/belief"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/store"
)

// ClaimLink is a dependency between two claims of a task: From depends on
// (or contradicts) To, so To's belief flows into From's propagated belief,
// times Weight (ARCHITECTURE.md §5.8).
type ClaimLink struct {
	From        string    `json:"from" doc:"E-number of the dependent claim, \"E3\""`
	To          string    `json:"to" doc:"E-number of the claim it depends on (the parent), \"E1\""`
	FromClaimID int64     `json:"from_claim_id"`
	ToClaimID   int64     `json:"to_claim_id"`
	Relation    string    `json:"relation" enum:"depends_on,contradicts"`
	Weight      float64   `json:"weight" minimum:"0" maximum:"1"`
	Status      string    `json:"status" enum:"accepted,proposed" doc:"only accepted links propagate"`
	CreatedBy   string    `json:"created_by"`
	Reason      string    `json:"reason"`
	CreatedAt   time.Time `json:"created_at"`
}

func claimLink(r store.TaskClaimLinksRow) ClaimLink {
	return ClaimLink{From: fmt.Sprintf("E%d", r.FromEvidenceNo), To: fmt.Sprintf("E%d", r.ToEvidenceNo),
		FromClaimID: r.FromClaimID, ToClaimID: r.ToClaimID, Relation: r.Relation, Weight: r.Weight, Status: r.Status,
		CreatedBy: r.CreatedBy, Reason: r.Reason, CreatedAt: r.CreatedAt}
}

// ParseEvidenceNo reads a claim's E-number, "E3", "e3" or "3".
func ParseEvidenceNo(s string) (int32, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "E"), "e"), 10, 32)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("claim %q is not an E-number (E1, E2, …): %w", s, errs.ErrBadInput)
	}
	return int32(n), nil
}

// LinkClaims makes (or replaces) the accepted link "from depends on to"
// (relation depends_on or contradicts, weight in [0, 1]) between two
// claims of the organization's task, named by E-numbers, and recomputes
// the propagated beliefs (store.LinkClaims). A link that would close a
// cycle is refused naming it (store.ErrLinkCycle, bad input).
func (s *Service) LinkClaims(ctx context.Context, org string, taskID int64, from, to, relation string, weight float64, by, reason string) (ClaimLink, error) {
	if _, err := s.Task(ctx, org, taskID); err != nil {
		return ClaimLink{}, err
	}
	f, err := ParseEvidenceNo(from)
	if err != nil {
		return ClaimLink{}, err
	}
	t, err := ParseEvidenceNo(to)
	if err != nil {
		return ClaimLink{}, err
	}
	if relation != belief.DependsOn && relation != belief.Contradicts {
		return ClaimLink{}, fmt.Errorf("relation %q: want depends_on or contradicts: %w", relation, errs.ErrBadInput)
	}
	if !(weight >= 0 && weight <= 1) || math.IsNaN(weight) {
		return ClaimLink{}, fmt.Errorf("weight %v: want a number in [0, 1]: %w", weight, errs.ErrBadInput)
	}
	row, err := s.st.LinkClaims(ctx, store.NewClaimLink{TaskID: taskID, From: f, To: t, Relation: relation, Weight: weight,
		Status: "accepted", By: by, Reason: reason})
	if err != nil {
		return ClaimLink{}, err
	}
	return claimLink(row), nil
}

// ClaimLinks lists the links between the claims of the organization's
// task, in E-number order.
func (s *Service) ClaimLinks(ctx context.Context, org string, taskID int64) ([]ClaimLink, error) {
	if _, err := s.Task(ctx, org, taskID); err != nil {
		return nil, err
	}
	rows, err := s.st.TaskClaimLinks(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("task %d's claim links: %w", taskID, err)
	}
	out := make([]ClaimLink, len(rows))
	for i, r := range rows {
		out[i] = claimLink(r)
	}
	return out, nil
}
