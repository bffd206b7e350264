package store_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/evidencefleet/evidencefleet/internal/belief"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestBeliefWritersShareOneLockOrder runs the writers of beliefs
// concurrently on one task whose claims depend on claims of higher ids (so
// a claim's downstream claims lock before it): verify_nli writes, claim
// feedback, edge corrections, and links made and deleted. None ends in a
// deadlock or another error, and afterwards every claim's stored
// propagated belief equals a propagation of the stored own beliefs over
// the links that stand.
func TestBeliefWritersShareOneLockOrder(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	st := store.NewStore(b.pool)
	var taskID int64
	if err := b.pool.QueryRow(ctx, `SELECT task_id FROM claims WHERE id = $1`, b.claimID).Scan(&taskID); err != nil {
		t.Fatal(err)
	}
	const claims = 8
	var nos []int32
	var texts []string
	for i := 2; i <= claims; i++ {
		nos, texts = append(nos, int32(i)), append(texts, fmt.Sprintf("h%d", i))
	}
	rows, err := b.q.InsertHypotheses(ctx, store.InsertHypothesesParams{TaskID: taskID, EvidenceNos: nos, Texts: texts, TextHashes: texts})
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{b.claimID}
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	// three edges into each claim
	var edges []int64
	for i, c := range ids {
		for k := range 3 {
			var id int64
			rel := []string{"supports", "refutes", "supports"}[k]
			if err := b.pool.QueryRow(ctx, `INSERT INTO edges (source_type, source_id, target_type, target_id, relation, nli_edge_confidence, retrieval_score)
				VALUES ('fragment', $1, 'claim', $2, $3, $4, 0.8) RETURNING id`, b.fragments[3*i+k], c, rel, 0.6+0.05*float64(k+i%3)).Scan(&id); err != nil {
				t.Fatal(err)
			}
			edges = append(edges, id)
		}
	}
	// a chain E1 ← E2 ← … ← E8 read the other way: Ek depends on Ek+1
	for k := int32(1); k < claims; k++ {
		if _, err := st.LinkClaims(ctx, store.NewClaimLink{TaskID: taskID, From: k, To: k + 1, Relation: belief.DependsOn, Weight: 0.5,
			Status: "accepted", By: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for w := range 8 {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(w), 11))
			for round := range 12 {
				var err error
				switch (w + round) % 4 {
				case 0: // a verify round over three claims
					sub := []int64{ids[rnd.IntN(claims)], ids[rnd.IntN(claims)], ids[rnd.IntN(claims)]}
					err = st.InTx(ctx, func(_ pgx.Tx, q *store.Queries) error {
						_, err := q.WriteJudgements(ctx, store.Judgements{TaskID: taskID, ClaimIDs: sub})
						return err
					})
				case 1:
					_, err = st.ApplyClaimFeedback(ctx, store.ClaimVerdictFeedback{ClaimID: ids[rnd.IntN(claims)], Reject: rnd.IntN(2) == 0, Reason: "r", By: "t"})
				case 2:
					_, err = st.CorrectEdge(ctx, store.EdgeCorrection{EdgeID: edges[rnd.IntN(len(edges))],
						Relation: []string{"supports", "refutes", "neutral"}[rnd.IntN(3)], Reason: "r", By: "t"})
				case 3: // a link from a lower to a higher E-number (never a cycle), or none
					from := int32(1 + rnd.IntN(claims-1))
					to := from + 1 + int32(rnd.IntN(claims-int(from)))
					if rnd.IntN(3) == 0 {
						_, err = st.UnlinkClaims(ctx, taskID, from, to)
					} else {
						_, err = st.LinkClaims(ctx, store.NewClaimLink{TaskID: taskID, From: from, To: to,
							Relation: []string{belief.DependsOn, belief.Contradicts}[rnd.IntN(2)], Weight: rnd.Float64(), Status: "accepted", By: "t"})
					}
				}
				if err != nil {
					errs <- fmt.Errorf("writer %d round %d: %w", w, round, err)
				}
			}
		})
	}
	wg.Wait()
	reportWriterErrors(t, errs)
	links, err := b.q.TaskClaimLinks(ctx, taskID)
	if err != nil {
		t.Fatal(err)
	}
	var bl []belief.Link
	for _, l := range links {
		bl = append(bl, belief.Link{From: l.FromClaimID, To: l.ToClaimID, Relation: l.Relation, Weight: l.Weight})
	}
	own, stored := map[int64]float64{}, map[int64]float64{}
	for _, id := range ids {
		v := storedBelief(t, b, id)
		own[id], stored[id] = v[0], v[2]
	}
	want, err := belief.Propagate(own, bl)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if math.Abs(stored[id]-want[id]) > 1e-9 {
			t.Errorf("claim %d: stored propagated log-odds %.6f, recomputed %.6f", id, stored[id], want[id])
		}
	}
}
