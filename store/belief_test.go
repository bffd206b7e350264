package store_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/belief"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/store"
)

// storedBelief reads a claim's belief columns: own log-odds and belief,
// propagated log-odds and belief.
func storedBelief(t *testing.T, b *posteriorBundle, claimID int64) [4]float64 {
	t.Helper()
	var v [4]float64
	if err := b.pool.QueryRow(context.Background(), `SELECT belief_log_odds, belief, propagated_log_odds, propagated_belief
		FROM claims WHERE id = $1`, claimID).Scan(&v[0], &v[1], &v[2], &v[3]); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestStoredBeliefEqualsRecomputation: the belief written with the
// posterior equals belief.Compute over the edges as listed here by hand:
// relevance is the recorded retrieval score, 1 when none was recorded or a
// person corrected the edge; neutral edges add nothing; a BLOCKED domain's
// edges none either, while the Beta posterior keeps them.
func TestStoredBeliefEqualsRecomputation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.addEdges(t, []edgeSpec{{"supports", 0.9, ""}, {"supports", 0.6, ""}, {"refutes", 0.8, ""}, {"neutral", 0.95, ""}, {"supports", 0.7, ""}})
	// fragments 0..4 in insertion order: scores 0.5, none, 0.25, 0.9, 0.3 (corrected)
	for i, score := range []any{0.5, nil, 0.25, 0.9, 0.3} {
		if _, err := b.pool.Exec(ctx, `UPDATE edges SET retrieval_score = $2 WHERE source_id = $1`, b.fragments[i], score); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.pool.Exec(ctx, `UPDATE edges SET corrected_at = now(), corrected_by = 'p', nli_edge_confidence = 1 WHERE source_id = $1`, b.fragments[4]); err != nil {
		t.Fatal(err)
	}
	states, err := b.q.RecomputePosteriors(ctx, []int64{b.claimID})
	if err != nil {
		t.Fatal(err)
	}
	p := belief.DefaultParams()
	want := p.Compute(belief.Evidence{Edges: []belief.Edge{
		{Relation: "supports", Strength: 0.9, Relevance: 0.5},
		{Relation: "supports", Strength: 0.6, Relevance: 1},
		{Relation: "refutes", Strength: 0.8, Relevance: 0.25},
		{Relation: "supports", Strength: 1, Relevance: 1},
	}})
	// by hand: 0.5·2·sigmoid(4) + 2·sigmoid(1) − 0.25·2·sigmoid(3) + 2·sigmoid(5)
	// = 0.98201 + 1.46212 − 0.47629 + 1.98661
	if math.Abs(want.LogOdds-3.9545) > 1e-4 {
		t.Fatalf("hand value %.4f, want 3.9545", want.LogOdds)
	}
	got := storedBelief(t, b, b.claimID)
	if math.Abs(got[0]-want.LogOdds) > 1e-12 || math.Abs(got[1]-want.Belief) > 1e-12 || got[2] != got[0] || got[3] != got[1] {
		t.Errorf("stored %v, recomputed %+v (propagated = own without links)", got, want)
	}
	if states[0].Belief != want {
		t.Errorf("returned %+v, want %+v", states[0].Belief, want)
	}
	before := b.cached(t)
	if _, err := b.pool.Exec(ctx, `INSERT INTO domains (domain, trust_level) VALUES ('site.example', 'BLOCKED')`); err != nil {
		t.Fatal(err)
	}
	if _, err := b.q.RecomputePosteriors(ctx, []int64{b.claimID}); err != nil {
		t.Fatal(err)
	}
	if got := storedBelief(t, b, b.claimID); got != [4]float64{0, 0.5, 0, 0.5} {
		t.Errorf("with the domain BLOCKED the belief is %v, want none of its edges", got)
	}
	if after := b.cached(t); after != before {
		t.Errorf("blocking changed the Beta posterior: %+v → %+v", before, after)
	}
}

// TestWriteJudgementsRecordsRetrievalScore: verify_nli's write stores each
// pair's similarity, clamped to [0, 1], and the belief uses it.
func TestWriteJudgementsRecordsRetrievalScore(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	var taskID int64
	if err := b.pool.QueryRow(ctx, `SELECT task_id FROM claims WHERE id = $1`, b.claimID).Scan(&taskID); err != nil {
		t.Fatal(err)
	}
	_, err := b.q.WriteJudgements(ctx, store.Judgements{TaskID: taskID, Model: "m", ClaimIDs: []int64{b.claimID}, Edges: []store.Judgement{
		{ClaimID: b.claimID, FragmentID: b.fragments[0], Relation: "supports", Label: "supports", Confidence: 0.9, RetrievalScore: 1.7},
		{ClaimID: b.claimID, FragmentID: b.fragments[1], Relation: "refutes", Label: "refutes", Confidence: 0.9, RetrievalScore: 0.4},
		{ClaimID: b.claimID, FragmentID: b.fragments[2], Relation: "refutes", Label: "refutes", Confidence: 0.9, RetrievalScore: math.NaN()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var scores []float64
	rows, err := b.pool.Query(ctx, `SELECT retrieval_score FROM edges WHERE target_id = $1 ORDER BY source_id`, b.claimID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s float64
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		scores = append(scores, s)
	}
	if len(scores) != 3 || scores[0] != 1 || scores[1] != 0.4 || scores[2] != 0 {
		t.Errorf("retrieval scores %v, want [1 0.4 0]", scores)
	}
	// (1 − 0.4) · 2·sigmoid(4)
	if got := storedBelief(t, b, b.claimID); math.Abs(got[0]-0.6*2*belief.Sigmoid(4)) > 1e-12 {
		t.Errorf("belief log-odds %.5f, want %.5f", got[0], 0.6*2*belief.Sigmoid(4))
	}
}

// linkBundle is a task with claims E1…E4 (hypotheses), E1 supported by two
// edges of 0.9 (log-odds 2·1.96403 = 3.92806).
type linkBundle struct {
	*posteriorBundle
	st     *store.Store
	taskID int64
	ids    map[int32]int64
}

func setupLinks(t *testing.T) *linkBundle {
	t.Helper()
	b := setup(t)
	ctx := context.Background()
	lb := &linkBundle{posteriorBundle: b, st: store.NewStore(b.pool), ids: map[int32]int64{1: b.claimID}}
	if err := b.pool.QueryRow(ctx, `SELECT task_id FROM claims WHERE id = $1`, b.claimID).Scan(&lb.taskID); err != nil {
		t.Fatal(err)
	}
	rows, err := b.q.InsertHypotheses(ctx, store.InsertHypothesesParams{TaskID: lb.taskID, EvidenceNos: []int32{2, 3, 4},
		Texts: []string{"h2", "h3", "h4"}, TextHashes: []string{"h2", "h3", "h4"}})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		lb.ids[int32(i+2)] = r.ID
	}
	b.addEdges(t, []edgeSpec{{"supports", 0.9, ""}, {"supports", 0.9, ""}})
	if _, err := b.q.RecomputePosteriors(ctx, []int64{b.claimID}); err != nil {
		t.Fatal(err)
	}
	return lb
}

func (lb *linkBundle) link(t *testing.T, from, to int32, rel string, w float64) error {
	t.Helper()
	_, err := lb.st.LinkClaims(context.Background(), store.NewClaimLink{TaskID: lb.taskID, From: from, To: to, Relation: rel,
		Weight: w, Status: "accepted", By: "tester"})
	return err
}

// TestLinkClaimsPropagates: E2 depends on E1 (weight 0.5), E3 contradicts
// E2 (weight 1): E2 = 0.5 · 3.92806 = 1.96403, E3 = −1.96403; a new edge
// into E1 (a refute of 0.9: −1.96403, E1 = 1.96403) is propagated to E2
// and E3 in the same transaction: 0.98201 and −0.98201.
func TestLinkClaimsPropagates(t *testing.T) {
	t.Parallel()
	lb := setupLinks(t)
	ctx := context.Background()
	if err := lb.link(t, 2, 1, belief.DependsOn, 0.5); err != nil {
		t.Fatal(err)
	}
	if err := lb.link(t, 3, 2, belief.Contradicts, 1); err != nil {
		t.Fatal(err)
	}
	check := func(no int32, own, prop float64) {
		t.Helper()
		got := storedBelief(t, lb.posteriorBundle, lb.ids[no])
		if math.Abs(got[0]-own) > 1e-4 || math.Abs(got[2]-prop) > 1e-4 || math.Abs(got[3]-belief.Sigmoid(prop)) > 1e-4 {
			t.Errorf("E%d: stored %v, want own %.5f propagated %.5f", no, got, own, prop)
		}
	}
	check(1, 3.92806, 3.92806)
	check(2, 0, 1.96403)
	check(3, 0, -1.96403)
	check(4, 0, 0)
	if _, err := lb.pool.Exec(ctx, `INSERT INTO edges (source_type, source_id, target_type, target_id, relation, nli_edge_confidence)
		VALUES ('fragment', $1, 'claim', $2, 'refutes', 0.9)`, lb.fragments[5], lb.claimID); err != nil {
		t.Fatal(err)
	}
	if _, err := lb.q.RecomputePosteriors(ctx, []int64{lb.claimID}); err != nil {
		t.Fatal(err)
	}
	check(1, 1.96403, 1.96403)
	check(2, 0, 0.98201)
	check(3, 0, -0.98201)
	links, err := lb.q.TaskClaimLinks(ctx, lb.taskID)
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != 2 || links[0].FromEvidenceNo != 2 || links[0].ToEvidenceNo != 1 || links[1].Relation != belief.Contradicts {
		t.Errorf("links %+v", links)
	}
	// deleting E3's link leaves it its own belief again
	if ok, err := lb.st.UnlinkClaims(ctx, lb.taskID, 3, 2); err != nil || !ok {
		t.Fatalf("unlink: %v %v", ok, err)
	}
	check(3, 0, 0)
	// the task's count of accepted links, which tells a recomputation
	// whether to read them, follows the writers
	var accepted int
	if err := lb.pool.QueryRow(ctx, `SELECT accepted_links FROM tasks WHERE id = $1`, lb.taskID).Scan(&accepted); err != nil || accepted != 1 {
		t.Errorf("tasks.accepted_links = %d (%v), want 1", accepted, err)
	}
}

// TestLinkCycleRefused: E1 → E2 → E3 (depends on) and then E3 → E1 closes a
// cycle, refused with its claims named; so are a self-link and a claim the
// task does not have. Nothing is written.
func TestLinkCycleRefused(t *testing.T) {
	t.Parallel()
	lb := setupLinks(t)
	if err := lb.link(t, 1, 2, belief.DependsOn, 1); err != nil {
		t.Fatal(err)
	}
	if err := lb.link(t, 2, 3, belief.DependsOn, 1); err != nil {
		t.Fatal(err)
	}
	err := lb.link(t, 3, 1, belief.Contradicts, 1)
	if !errors.Is(err, store.ErrLinkCycle) || !strings.Contains(err.Error(), "cycle E3 → E1 → E2 → E3") {
		t.Errorf("cycle: %v", err)
	}
	if err := lb.link(t, 2, 2, belief.DependsOn, 1); !errors.Is(err, store.ErrLinkCycle) {
		t.Errorf("self-link: %v", err)
	}
	if err := lb.link(t, 2, 9, belief.DependsOn, 1); !errors.Is(err, errs.ErrClaimNotFound) {
		t.Errorf("unknown claim: %v", err)
	}
	links, err := lb.q.TaskClaimLinks(context.Background(), lb.taskID)
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != 2 {
		t.Errorf("%d links, want 2", len(links))
	}
}
