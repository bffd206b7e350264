package store

import (
	"context"
	"fmt"

	"github.com/evidencefleet/evidencefleet/internal/evidence"
)

// RecomputePosteriors recomputes the cached posterior columns of the given
// claims from their edges (ARCHITECTURE.md §5.1): the claims' rows are locked in id
// order (a concurrent writer of the same claims tallies after this one
// commits), then one aggregate read and one multi-row update. Call it in the
// transaction that changed the edges.
func (q *Queries) RecomputePosteriors(ctx context.Context, claimIDs []int64) ([]evidence.Posterior, error) {
	if len(claimIDs) == 0 {
		return nil, nil
	}
	if err := q.LockClaims(ctx, claimIDs); err != nil {
		return nil, fmt.Errorf("recompute posteriors: lock claims: %w", err)
	}
	tallies, err := q.ClaimTallies(ctx, ClaimTalliesParams{ClaimIds: claimIDs, VerificationMinConfidence: evidence.VerificationMinConfidence})
	if err != nil {
		return nil, fmt.Errorf("recompute posteriors: tallies: %w", err)
	}
	n := len(tallies)
	p := UpdatePosteriorsParams{
		Ids: make([]int64, n), Alphas: make([]float64, n), Betas: make([]float64, n),
		Confidences: make([]float64, n), Uncertainties: make([]float64, n), Controversies: make([]float64, n),
		Verdicts: make([]string, n), Supportings: make([]int32, n), Refutings: make([]int32, n),
		Neutrals: make([]int32, n), Independents: make([]int32, n), EvidenceCounts: make([]int32, n),
		Verifications: make([]string, n),
	}
	out := make([]evidence.Posterior, n)
	for i, t := range tallies {
		post := evidence.Compute(TallyFromRow(t))
		out[i] = post
		p.Ids[i] = t.ClaimID
		p.Alphas[i], p.Betas[i] = post.Alpha, post.Beta
		p.Confidences[i], p.Uncertainties[i], p.Controversies[i] = post.Confidence, post.Uncertainty, post.Controversy
		p.Verdicts[i] = post.Verdict
		p.Supportings[i], p.Refutings[i], p.Neutrals[i] = int32(post.Supporting), int32(post.Refuting), int32(post.Neutral)
		p.Independents[i], p.EvidenceCounts[i] = int32(post.Independent), int32(post.EvidenceSize)
		p.Verifications[i] = post.Verification
	}
	if err := q.UpdatePosteriors(ctx, p); err != nil {
		return nil, fmt.Errorf("recompute posteriors: update: %w", err)
	}
	if err := q.promoteCorroborated(ctx, claimIDs); err != nil {
		return nil, err
	}
	return out, nil
}

// promoteCorroborated is source verification's promotion after a change of
// posteriors: the unvouched UNVERIFIED domains of claims now verified become
// LOW, each with its audit row.
func (q *Queries) promoteCorroborated(ctx context.Context, claimIDs []int64) error {
	rows, err := q.PromoteCorroboratedDomains(ctx, claimIDs)
	if err != nil {
		return fmt.Errorf("recompute posteriors: promote domains: %w", err)
	}
	if len(rows) == 0 {
		return nil
	}
	domains, reasons := make([]string, len(rows)), make([]string, len(rows))
	for i, r := range rows {
		domains[i], reasons[i] = r.Domain, fmt.Sprintf("claim %d verified by independent sites", r.ClaimID)
	}
	if err := q.RecordPromotions(ctx, RecordPromotionsParams{Domains: domains, Reasons: reasons}); err != nil {
		return fmt.Errorf("recompute posteriors: record promotions: %w", err)
	}
	return nil
}

// TallyFromRow converts an aggregate row into the pure tally.
func TallyFromRow(t ClaimTalliesRow) evidence.Tally {
	return evidence.Tally{
		SupportSum: t.SupportSum, RefuteSum: t.RefuteSum,
		Supporting: int(t.Supporting), Refuting: int(t.Refuting), Neutral: int(t.Neutral),
		IndependentSources: int(t.IndependentSources), SupportingSites: int(t.SupportingSites),
	}
}
