package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/evidencefleet/evidencefleet/internal/errs"
)

// ErrNoProposal is the error of accepting or rejecting a link that is not
// a proposal (never proposed, accepted already, or rejected).
var ErrNoProposal = fmt.Errorf("no proposed claim link: %w", errs.ErrBadInput)

// Event types of the proposed links' review.
const (
	EventClaimLinkAccepted = "claim_link_accepted"
	EventClaimLinkRejected = "claim_link_rejected"
)

// ProposedLink is the outcome of one proposal: made, or why not.
type ProposedLink struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Proposed bool   `json:"proposed"`
	Skipped  string `json:"skipped,omitempty"`
}

// ProposeClaimLinks records links as proposals (status proposed, whatever
// theirs says) in the caller's transaction, which holds the task's row
// lock FOR UPDATE (as store.LinkClaims does): a link of a pair already
// linked is skipped (a person's link is never replaced by a proposal), so
// is a link that would close a cycle among the task's links, proposed ones
// included (so accepting never makes one). Proposals do not propagate:
// no belief changes.
func (q *Queries) ProposeClaimLinks(ctx context.Context, taskID int64, links []NewClaimLink) ([]ProposedLink, error) {
	existing, err := q.TaskClaimLinks(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("task's links: %w", err)
	}
	nos := make([]int32, 0, 2*len(links))
	for _, l := range links {
		nos = append(nos, l.From, l.To)
	}
	claims, err := q.TaskClaimsByEvidenceNo(ctx, TaskClaimsByEvidenceNoParams{TaskID: taskID, EvidenceNos: nos})
	if err != nil {
		return nil, fmt.Errorf("find claims: %w", err)
	}
	ids := map[int32]int64{}
	for _, c := range claims {
		ids[c.EvidenceNo] = c.ID
	}
	out := make([]ProposedLink, len(links))
	for i, l := range links {
		out[i] = ProposedLink{From: fmt.Sprintf("E%d", l.From), To: fmt.Sprintf("E%d", l.To)}
		from, okF := ids[l.From]
		to, okT := ids[l.To]
		switch {
		case !okF || !okT:
			out[i].Skipped = "a claim is missing"
			continue
		case l.From == l.To:
			out[i].Skipped = "the same claim"
			continue
		}
		if c := linkCycle(existing, l); c != "" {
			out[i].Skipped = "cycle " + c
			continue
		}
		n, err := q.InsertProposedClaimLink(ctx, InsertProposedClaimLinkParams{TaskID: taskID, FromClaimID: from, ToClaimID: to,
			Relation: l.Relation, Weight: l.Weight, CreatedBy: l.By, Reason: l.Reason})
		if err != nil {
			return nil, fmt.Errorf("propose E%d → E%d: %w", l.From, l.To, err)
		}
		if n == 0 {
			out[i].Skipped = "the pair is linked already"
			continue
		}
		out[i].Proposed = true
		existing = append(existing, TaskClaimLinksRow{FromClaimID: from, FromEvidenceNo: l.From, ToClaimID: to, ToEvidenceNo: l.To,
			Relation: l.Relation, Weight: l.Weight, Status: "proposed", CreatedBy: l.By, Reason: l.Reason})
	}
	return out, nil
}

// AcceptClaimLink makes the task's proposed link from → to (E-numbers)
// accepted and, in the same transaction under the task's row lock (as
// LinkClaims), recomputes the propagated belief of the task's linked
// claims and records a claim_link_accepted event naming who accepted it.
// A link that is not a proposal is ErrNoProposal.
func (s *Store) AcceptClaimLink(ctx context.Context, taskID int64, from, to int32, by string) (TaskClaimLinksRow, error) {
	var out TaskClaimLinksRow
	err := s.reviewProposal(ctx, taskID, from, to, by, EventClaimLinkAccepted, func(q *Queries, p proposal) error {
		n, err := q.AcceptProposedClaimLink(ctx, AcceptProposedClaimLinkParams{TaskID: taskID, FromClaimID: p.from, ToClaimID: p.to})
		if err != nil {
			return fmt.Errorf("accept link: %w", err)
		}
		if n == 0 {
			return ErrNoProposal
		}
		if err := q.repropagateTask(ctx, taskID, []int64{p.from, p.to}); err != nil {
			return err
		}
		rows, err := q.TaskClaimLinks(ctx, taskID)
		if err != nil {
			return fmt.Errorf("task's links: %w", err)
		}
		for _, r := range rows {
			if r.FromClaimID == p.from && r.ToClaimID == p.to {
				out = r
			}
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("accept E%d → E%d: %w", from, to, err)
	}
	return out, nil
}

// RejectClaimLink deletes the task's proposed link from → to and records
// a claim_link_rejected event naming who rejected it; beliefs do not
// change (a proposal never propagated). A link that is not a proposal (an
// accepted one is unlinked with UnlinkClaims) is ErrNoProposal.
func (s *Store) RejectClaimLink(ctx context.Context, taskID int64, from, to int32, by string) error {
	err := s.reviewProposal(ctx, taskID, from, to, by, EventClaimLinkRejected, func(q *Queries, p proposal) error {
		n, err := q.DeleteProposedClaimLink(ctx, DeleteProposedClaimLinkParams{TaskID: taskID, FromClaimID: p.from, ToClaimID: p.to})
		if err != nil {
			return fmt.Errorf("delete link: %w", err)
		}
		if n == 0 {
			return ErrNoProposal
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reject E%d → E%d: %w", from, to, err)
	}
	return nil
}

// proposal is the claim ids of a reviewed link.
type proposal struct{ from, to int64 }

// reviewProposal runs change in one transaction holding the task's row
// lock FOR UPDATE, with the ids of the claims from and to, then records
// the event.
func (s *Store) reviewProposal(ctx context.Context, taskID int64, from, to int32, by, event string, change func(*Queries, proposal) error) error {
	return s.InTx(ctx, func(_ pgx.Tx, q *Queries) error {
		if _, err := q.LockTask(ctx, taskID); err != nil {
			if IsNotFound(err) {
				return fmt.Errorf("task %d: %w", taskID, errs.ErrTaskNotFound)
			}
			return fmt.Errorf("lock task: %w", err)
		}
		claims, err := q.TaskClaimsByEvidenceNo(ctx, TaskClaimsByEvidenceNoParams{TaskID: taskID, EvidenceNos: []int32{from, to}})
		if err != nil {
			return fmt.Errorf("find claims: %w", err)
		}
		ids := map[int32]int64{}
		for _, c := range claims {
			ids[c.EvidenceNo] = c.ID
		}
		for _, no := range []int32{from, to} {
			if _, ok := ids[no]; !ok {
				return fmt.Errorf("claim E%d of task %d: %w", no, taskID, errs.ErrClaimNotFound)
			}
		}
		if err := change(q, proposal{from: ids[from], to: ids[to]}); err != nil {
			return err
		}
		payload, err := json.Marshal(map[string]string{"from": fmt.Sprintf("E%d", from), "to": fmt.Sprintf("E%d", to), "by": by})
		if err != nil {
			return fmt.Errorf("event %s: %w", event, err)
		}
		if err := q.InsertEvent(ctx, InsertEventParams{TaskID: &taskID, EventType: event, Payload: payload}); err != nil {
			return fmt.Errorf("record event %s: %w", event, err)
		}
		return nil
	})
}
