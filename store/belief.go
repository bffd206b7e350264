package store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/evidencefleet/evidencefleet/internal/belief"
	"github.com/evidencefleet/evidencefleet/internal/errs"
)

// beliefEvidence is a claim's input to the log-odds belief: the per-edge
// columns of its tally row and the sites source verification counted.
func beliefEvidence(t ClaimTalliesRow, supportingSites, refutingSites int) belief.Evidence {
	ev := belief.Evidence{SupportingSites: supportingSites, RefutingSites: refutingSites}
	for i, rel := range t.BeliefRelations {
		ev.Edges = append(ev.Edges, belief.Edge{Relation: rel, Strength: t.BeliefStrengths[i], Relevance: t.BeliefRelevances[i]})
	}
	return ev
}

func toLinks(rows []AcceptedLinksOfClaimTasksRow) []belief.Link {
	out := make([]belief.Link, len(rows))
	for i, r := range rows {
		out[i] = belief.Link{From: r.FromClaimID, To: r.ToClaimID, Relation: r.Relation, Weight: r.Weight}
	}
	return out
}

// lockBeliefScope takes the locks a recomputation of the claims needs, in
// the one lock order: the rows of their tasks FOR SHARE, in id order (a
// link change holds its task's row FOR UPDATE, so the links stay as read
// until commit), then the claims and those downstream of them along the
// accepted links of their tasks, in id order. It returns the locked
// claims, their ids and those links. The links are read only when a task
// has some (tasks.accepted_links, read from its locked row). With
// lockedTask the caller holds the share lock of the one task all the
// claims belong to already, and passes its row.
func (q *Queries) lockBeliefScope(ctx context.Context, claimIDs []int64, lockedTask *LockTaskRow) ([]LockClaimsRow, []int64, []belief.Link, error) {
	linked := lockedTask != nil && lockedTask.AcceptedLinks > 0
	if lockedTask == nil {
		tasks, err := q.ShareLockClaimTasks(ctx, claimIDs)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("lock the claims' tasks: %w", err)
		}
		linked = slices.ContainsFunc(tasks, func(t ShareLockClaimTasksRow) bool { return t.AcceptedLinks > 0 })
	}
	var links []belief.Link
	if linked {
		rows, err := q.AcceptedLinksOfClaimTasks(ctx, claimIDs)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("claim links: %w", err)
		}
		links = toLinks(rows)
	}
	scope := append(slices.Clone(claimIDs), belief.Descendants(links, claimIDs)...)
	slices.Sort(scope)
	scope = slices.Compact(scope)
	locked, err := q.LockClaims(ctx, scope)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("lock claims: %w", err)
	}
	return locked, scope, links, nil
}

// propagate sets the propagated belief of states (the recomputed claims)
// and writes that of the claims downstream of them: one pass over the DAG
// of their tasks' accepted links (belief.Propagate, over links as
// lockBeliefScope read them under its locks), from the claims' own
// log-odds (the new ones of states, the stored ones of the others). The
// rows of scope are locked (lockBeliefScope); a claim downstream missing
// from it (none, while the tasks' rows are share-locked) is locked here.
func (q *Queries) propagate(ctx context.Context, scope []int64, links []belief.Link, states []ClaimState) error {
	ids := make([]int64, len(states))
	local := make(map[int64]float64, len(states))
	for i, s := range states {
		ids[i], local[s.ClaimID] = s.ClaimID, s.Belief.LogOdds
		states[i].PropagatedLogOdds, states[i].PropagatedBelief = s.Belief.LogOdds, s.Belief.Belief
	}
	if len(links) == 0 {
		return nil
	}
	down := belief.Descendants(links, ids)
	if late := slices.DeleteFunc(slices.Clone(down), func(id int64) bool { _, ok := slices.BinarySearch(scope, id); return ok }); len(late) > 0 {
		if _, err := q.LockClaims(ctx, late); err != nil {
			return fmt.Errorf("lock claims downstream: %w", err)
		}
	}
	return q.writePropagated(ctx, links, local, down, states)
}

// writePropagated propagates over links from the stored log-odds of their
// claims (overridden by local) and writes the propagated belief of down;
// states, when given, take theirs.
func (q *Queries) writePropagated(ctx context.Context, links []belief.Link, local map[int64]float64, down []int64, states []ClaimState) error {
	nodes := slices.Clone(down)
	for _, l := range links {
		nodes = append(nodes, l.From, l.To)
	}
	stored, err := q.ClaimLocalBeliefs(ctx, nodes)
	if err != nil {
		return fmt.Errorf("claims' own beliefs: %w", err)
	}
	all := make(map[int64]float64, len(stored)+len(local))
	for _, s := range stored {
		all[s.ID] = s.BeliefLogOdds
	}
	for id, v := range local {
		all[id] = v
	}
	prop, err := belief.Propagate(all, links)
	if err != nil {
		return fmt.Errorf("propagate beliefs: %w", err)
	}
	for i, s := range states {
		states[i].PropagatedLogOdds = prop[s.ClaimID]
		states[i].PropagatedBelief = belief.Sigmoid(prop[s.ClaimID])
	}
	var p UpdatePropagatedBeliefsParams
	for _, id := range down {
		if _, ok := local[id]; ok && states != nil {
			continue // written with its posterior
		}
		p.Ids = append(p.Ids, id)
		p.LogOdds = append(p.LogOdds, prop[id])
		p.Beliefs = append(p.Beliefs, belief.Sigmoid(prop[id]))
	}
	if len(p.Ids) == 0 {
		return nil
	}
	if err := q.UpdatePropagatedBeliefs(ctx, p); err != nil {
		return fmt.Errorf("write propagated beliefs: %w", err)
	}
	return nil
}

// NewClaimLink is a link to make between two claims of a task, named by
// their E-numbers: From depends on (or contradicts) To, so To's belief
// flows into From.
type NewClaimLink struct {
	TaskID   int64
	From, To int32  // E-numbers
	Relation string // belief.DependsOn or belief.Contradicts
	Weight   float64
	Status   string // "accepted" or "proposed"
	By       string
	Reason   string
}

// ErrLinkCycle is the error of a link that would close a cycle.
var ErrLinkCycle = fmt.Errorf("claim links may not form a cycle: %w", errs.ErrBadInput)

// LinkClaims makes (or replaces) a claim link in one transaction: under
// the task's row lock (FOR UPDATE, so no other link change or verify_nli
// write of the task runs beside it) the claims are found, a link that
// would close a cycle is refused naming it ("cycle E3 → E1 → E3"), the
// link is written, and the propagated belief of the task's linked claims
// is recomputed, their rows locked in id order.
func (s *Store) LinkClaims(ctx context.Context, l NewClaimLink) (TaskClaimLinksRow, error) {
	var out TaskClaimLinksRow
	err := s.InTx(ctx, func(_ pgx.Tx, q *Queries) error {
		if _, err := q.LockTask(ctx, l.TaskID); err != nil {
			if IsNotFound(err) {
				return fmt.Errorf("task %d: %w", l.TaskID, errs.ErrTaskNotFound)
			}
			return fmt.Errorf("lock task: %w", err)
		}
		claims, err := q.TaskClaimsByEvidenceNo(ctx, TaskClaimsByEvidenceNoParams{TaskID: l.TaskID, EvidenceNos: []int32{l.From, l.To}})
		if err != nil {
			return fmt.Errorf("find claims: %w", err)
		}
		ids := map[int32]int64{}
		for _, c := range claims {
			ids[c.EvidenceNo] = c.ID
		}
		for _, no := range []int32{l.From, l.To} {
			if _, ok := ids[no]; !ok {
				return fmt.Errorf("claim E%d of task %d: %w", no, l.TaskID, errs.ErrClaimNotFound)
			}
		}
		if l.From == l.To {
			return fmt.Errorf("a claim cannot depend on itself (E%d): %w", l.From, ErrLinkCycle)
		}
		existing, err := q.TaskClaimLinks(ctx, l.TaskID)
		if err != nil {
			return fmt.Errorf("task's links: %w", err)
		}
		if c := linkCycle(existing, l); c != "" {
			return fmt.Errorf("cycle %s: %w", c, ErrLinkCycle)
		}
		if _, err := q.UpsertClaimLink(ctx, UpsertClaimLinkParams{TaskID: l.TaskID, FromClaimID: ids[l.From], ToClaimID: ids[l.To],
			Relation: l.Relation, Weight: l.Weight, Status: l.Status, CreatedBy: l.By, Reason: l.Reason}); err != nil {
			return fmt.Errorf("write link: %w", err)
		}
		if err := q.repropagateTask(ctx, l.TaskID, []int64{ids[l.From], ids[l.To]}); err != nil {
			return err
		}
		rows, err := q.TaskClaimLinks(ctx, l.TaskID)
		if err != nil {
			return fmt.Errorf("task's links: %w", err)
		}
		for _, r := range rows {
			if r.FromEvidenceNo == l.From && r.ToEvidenceNo == l.To {
				out = r
			}
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("link E%d to E%d: %w", l.From, l.To, err)
	}
	return out, nil
}

// UnlinkClaims deletes a claim link and recomputes the propagated belief,
// as LinkClaims does; false when there was none.
func (s *Store) UnlinkClaims(ctx context.Context, taskID int64, from, to int32) (bool, error) {
	var deleted bool
	err := s.InTx(ctx, func(_ pgx.Tx, q *Queries) error {
		if _, err := q.LockTask(ctx, taskID); err != nil {
			return fmt.Errorf("lock task: %w", err)
		}
		claims, err := q.TaskClaimsByEvidenceNo(ctx, TaskClaimsByEvidenceNoParams{TaskID: taskID, EvidenceNos: []int32{from, to}})
		if err != nil || len(claims) != 2 {
			return err
		}
		ids := map[int32]int64{claims[0].EvidenceNo: claims[0].ID, claims[1].EvidenceNo: claims[1].ID}
		n, err := q.DeleteClaimLink(ctx, DeleteClaimLinkParams{TaskID: taskID, FromClaimID: ids[from], ToClaimID: ids[to]})
		if err != nil {
			return fmt.Errorf("delete link: %w", err)
		}
		deleted = n > 0
		return q.repropagateTask(ctx, taskID, []int64{ids[from]})
	})
	if err != nil {
		return false, fmt.Errorf("unlink E%d from E%d: %w", from, to, err)
	}
	return deleted, nil
}

// repropagateTask recomputes the propagated belief of the task's linked
// claims and of extra (a link's ends, linked or not any more), their rows
// locked in id order first: a writer of a claim upstream then either
// commits before (its new log-odds is read here) or waits and sees the new
// links.
func (q *Queries) repropagateTask(ctx context.Context, taskID int64, extra []int64) error {
	if err := q.RecountAcceptedLinks(ctx, taskID); err != nil {
		return fmt.Errorf("count task %d's accepted links: %w", taskID, err)
	}
	rows, err := q.AcceptedLinksOfClaimTasks(ctx, extra)
	if err != nil {
		return fmt.Errorf("claim links: %w", err)
	}
	links := toLinks(rows)
	scope := slices.Clone(extra)
	for _, l := range links {
		scope = append(scope, l.From, l.To)
	}
	slices.Sort(scope)
	scope = slices.Compact(scope)
	if _, err := q.LockClaims(ctx, scope); err != nil {
		return fmt.Errorf("lock task %d's linked claims: %w", taskID, err)
	}
	return q.writePropagated(ctx, links, map[int64]float64{}, scope, nil)
}

// linkCycle names the cycle the link l would close among the task's links
// ("E3 → E1 → E3"), or "".
func linkCycle(existing []TaskClaimLinksRow, l NewClaimLink) string {
	links := []belief.Link{{From: int64(l.From), To: int64(l.To)}}
	for _, r := range existing {
		if r.FromEvidenceNo == l.From && r.ToEvidenceNo == l.To {
			continue // replaced
		}
		links = append(links, belief.Link{From: int64(r.FromEvidenceNo), To: int64(r.ToEvidenceNo)})
	}
	c := belief.CycleFrom(links, int64(l.From))
	if c == nil {
		return ""
	}
	names := make([]string, len(c))
	for i, no := range c {
		names[i] = fmt.Sprintf("E%d", no)
	}
	return strings.Join(names, " → ")
}
