package store_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/evidencefleet/evidencefleet/internal/belief"
	"github.com/evidencefleet/evidencefleet/store"
)

func (lb *linkBundle) propose(t *testing.T, links ...store.NewClaimLink) []store.ProposedLink {
	t.Helper()
	var out []store.ProposedLink
	err := lb.st.InTx(context.Background(), func(_ pgx.Tx, q *store.Queries) error {
		if _, err := q.LockTask(context.Background(), lb.taskID); err != nil {
			return err
		}
		var err error
		out, err = q.ProposeClaimLinks(context.Background(), lb.taskID, links)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (lb *linkBundle) propagated(t *testing.T, no int32) float64 {
	t.Helper()
	return storedBelief(t, lb.posteriorBundle, lb.ids[no])[2]
}

// TestProposalsPropagateOnlyOnceAccepted: E2 → E1 and E3 → E1 proposed
// (E1's log-odds 3.92806) change no belief; accepting E2 → E1 gives E2
// E1's log-odds in the same call and records who accepted; rejecting E3 →
// E1 deletes it; neither works twice. A proposal never replaces a link of
// the same pair and never closes a cycle.
func TestProposalsPropagateOnlyOnceAccepted(t *testing.T) {
	t.Parallel()
	lb := setupLinks(t)
	ctx := context.Background()
	if err := lb.link(t, 4, 1, belief.Contradicts, 0.5); err != nil {
		t.Fatal(err)
	}
	prop := func(from, to int32) store.NewClaimLink {
		return store.NewClaimLink{TaskID: lb.taskID, From: from, To: to, Relation: belief.DependsOn, Weight: 1, By: "llm:test", Reason: "split"}
	}
	got := lb.propose(t, prop(2, 1), prop(3, 1), prop(4, 1), prop(1, 2), prop(3, 3))
	want := []store.ProposedLink{{From: "E2", To: "E1", Proposed: true}, {From: "E3", To: "E1", Proposed: true},
		{From: "E4", To: "E1", Skipped: "the pair is linked already"}, {From: "E1", To: "E2", Skipped: "cycle E1 → E2 → E1"},
		{From: "E3", To: "E3", Skipped: "the same claim"}}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("proposals %+v, want %+v", got, want)
		}
	}
	if p := lb.propagated(t, 2); p != 0 {
		t.Errorf("E2 propagated %v before acceptance, want 0", p)
	}
	if p := lb.propagated(t, 4); math.Abs(p+1.96403) > 1e-4 {
		t.Errorf("E4 propagated %v, want −1.96403 (its contradicts link kept, not replaced)", p)
	}
	row, err := lb.st.AcceptClaimLink(ctx, lb.taskID, 2, 1, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if row.Status != "accepted" || row.CreatedBy != "llm:test" || row.FromEvidenceNo != 2 || row.ToEvidenceNo != 1 {
		t.Errorf("accepted link %+v", row)
	}
	if p := lb.propagated(t, 2); math.Abs(p-3.92806) > 1e-4 {
		t.Errorf("E2 propagated %v after acceptance, want 3.92806", p)
	}
	if _, err := lb.st.AcceptClaimLink(ctx, lb.taskID, 2, 1, "alice"); !errors.Is(err, store.ErrNoProposal) {
		t.Errorf("accepting twice: %v, want ErrNoProposal", err)
	}
	if err := lb.st.RejectClaimLink(ctx, lb.taskID, 4, 1, "bob"); !errors.Is(err, store.ErrNoProposal) {
		t.Errorf("rejecting a person's link: %v, want ErrNoProposal", err)
	}
	if err := lb.st.RejectClaimLink(ctx, lb.taskID, 3, 1, "bob"); err != nil {
		t.Fatal(err)
	}
	if err := lb.st.RejectClaimLink(ctx, lb.taskID, 3, 1, "bob"); !errors.Is(err, store.ErrNoProposal) {
		t.Errorf("rejecting twice: %v, want ErrNoProposal", err)
	}
	links, err := lb.q.TaskClaimLinks(ctx, lb.taskID)
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != 2 {
		t.Errorf("links %+v, want E2 → E1 and E4 → E1", links)
	}
	events, err := lb.q.TaskEvents(ctx, store.TaskEventsParams{TaskID: &lb.taskID, MaxRows: 10})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, e := range events {
		kinds[e.EventType] = string(e.Payload)
	}
	if kinds[store.EventClaimLinkAccepted] != `{"by": "alice", "to": "E1", "from": "E2"}` ||
		kinds[store.EventClaimLinkRejected] != `{"by": "bob", "to": "E1", "from": "E3"}` {
		t.Errorf("events %v", kinds)
	}
}
