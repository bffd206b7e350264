package store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/belief"
	"github.com/evidencefleet/evidencefleet/internal/evidence"
	"github.com/evidencefleet/evidencefleet/internal/verification"
)

// ClaimState is a claim's recomputed posterior and where it stands.
type ClaimState struct {
	ClaimID int64
	evidence.Posterior
	// Verification is the claim's status after source verification and a
	// person's word (verification.WithReviewer).
	Verification string
	Outcome      verification.Outcome
	// Belief is the claim's own log-odds belief (internal/belief), beside
	// the Beta posterior; the propagated one adds what flows in along the
	// task's claim links.
	Belief            belief.Belief
	PropagatedLogOdds float64
	PropagatedBelief  float64
}

// RecomputePosteriors recomputes the cached posterior columns of the given
// claims from their edges (ARCHITECTURE.md §5.1) and runs source
// verification on them (§5.5): their tasks' rows are share-locked and the
// claims' rows locked in id order (a concurrent writer of the same claims
// tallies after this one commits),
// then one aggregate read, one read of the confident edges by site, one
// multi-row update, the claims' conflicts replaced, promotions, and the
// block rule for the domains whose claims moved into or out of rejection.
// The log-odds belief (§5.8, with the numbers belief.ParamsFrom(ctx)) is
// computed from the same aggregate read and written with the posterior;
// the claims downstream of them along their tasks' claim links are locked
// with them (one id-ordered lock) and get their propagated belief.
// Call it in the transaction that changed the edges.
func (q *Queries) RecomputePosteriors(ctx context.Context, claimIDs []int64) ([]ClaimState, error) {
	return q.recomputePosteriors(ctx, claimIDs, nil)
}

// recomputePosteriors is RecomputePosteriors; with lockedTask the caller
// holds the share lock of the one task all the claims belong to (a
// verify_nli round) and passes its row: the lock is not taken again.
func (q *Queries) recomputePosteriors(ctx context.Context, claimIDs []int64, lockedTask *LockTaskRow) ([]ClaimState, error) {
	if len(claimIDs) == 0 {
		return nil, nil
	}
	locked, scope, links, err := q.lockBeliefScope(ctx, claimIDs, lockedTask)
	if err != nil {
		return nil, fmt.Errorf("recompute posteriors: %w", err)
	}
	tallies, siteEdges, err := q.ClaimEvidenceSums(ctx, claimIDs, verification.MinConfidence)
	if err != nil {
		return nil, fmt.Errorf("recompute posteriors: %w", err)
	}
	states := claimStates(locked, tallies, siteEdges, belief.ParamsFrom(ctx))
	if err := q.propagate(ctx, scope, links, states); err != nil {
		return nil, fmt.Errorf("recompute posteriors: %w", err)
	}
	if err := q.UpdatePosteriors(ctx, posteriorParams(states)); err != nil {
		return nil, fmt.Errorf("recompute posteriors: update: %w", err)
	}
	if err := q.replaceConflicts(ctx, states, tallies); err != nil {
		return nil, err
	}
	if err := q.promoteCorroborated(ctx, states, tallies); err != nil {
		return nil, err
	}
	if err := q.applyBlockRule(ctx, rejectionChanges(locked, states, tallies)); err != nil {
		return nil, err
	}
	return states, nil
}

// claimStates decides each claim from its tally, its confident edges by
// site and a person's word, and its own log-odds belief from the tally's
// edges and the sites source verification counted. The three inputs are in
// claim id order.
func claimStates(locked []LockClaimsRow, tallies []ClaimTalliesRow, siteEdges []ClaimSiteEdgesRow, bp belief.Params) []ClaimState {
	reviewer := make(map[int64]string, len(locked))
	for _, l := range locked {
		reviewer[l.ID] = l.ReviewerStatus
	}
	edges := make(map[int64][]verification.Edge)
	for _, e := range siteEdges {
		edges[e.ClaimID] = append(edges[e.ClaimID], verification.Edge{ID: e.EdgeID, Relation: e.Relation,
			Confidence: e.Confidence, Domain: e.Domain, Site: e.Site, Level: e.Level})
	}
	out := make([]ClaimState, len(tallies))
	for i, t := range tallies {
		o := verification.Decide(verification.Claim{OriginDomain: t.OriginDomain, OriginSite: t.OriginSite,
			OriginLevel: t.OriginLevel, Edges: edges[t.ClaimID]})
		out[i] = ClaimState{ClaimID: t.ClaimID, Posterior: evidence.Compute(TallyFromRow(t)), Outcome: o,
			Verification: verification.WithReviewer(o.Status, reviewer[t.ClaimID]),
			Belief:       bp.Compute(beliefEvidence(t, o.SupportingSites, o.RefutingSites))}
	}
	return out
}

func posteriorParams(states []ClaimState) UpdatePosteriorsParams {
	n := len(states)
	p := UpdatePosteriorsParams{
		Ids: make([]int64, n), Alphas: make([]float64, n), Betas: make([]float64, n),
		Confidences: make([]float64, n), Uncertainties: make([]float64, n), Controversies: make([]float64, n),
		Verdicts: make([]string, n), Supportings: make([]int32, n), Refutings: make([]int32, n),
		Neutrals: make([]int32, n), Independents: make([]int32, n), EvidenceCounts: make([]int32, n),
		Verifications: make([]string, n), Reasons: make([]string, n), SupportingSites: make([]int32, n), RefutingSites: make([]int32, n),
		BeliefLogOdds: make([]float64, n), Beliefs: make([]float64, n), PropagatedLogOdds: make([]float64, n), PropagatedBeliefs: make([]float64, n),
	}
	for i, s := range states {
		post := s.Posterior
		p.Ids[i] = s.ClaimID
		p.Alphas[i], p.Betas[i] = post.Alpha, post.Beta
		p.Confidences[i], p.Uncertainties[i], p.Controversies[i] = post.Confidence, post.Uncertainty, post.Controversy
		p.Verdicts[i] = post.Verdict
		p.Supportings[i], p.Refutings[i], p.Neutrals[i] = int32(post.Supporting), int32(post.Refuting), int32(post.Neutral)
		p.Independents[i], p.EvidenceCounts[i] = int32(post.Independent), int32(post.EvidenceSize)
		p.Verifications[i], p.Reasons[i] = s.Verification, s.Outcome.Reason
		if s.Verification != s.Outcome.Status {
			p.Reasons[i] = "a person's word: " + s.Verification
		}
		p.SupportingSites[i], p.RefutingSites[i] = int32(s.Outcome.SupportingSites), int32(s.Outcome.RefutingSites)
		p.BeliefLogOdds[i], p.Beliefs[i] = s.Belief.LogOdds, s.Belief.Belief
		p.PropagatedLogOdds[i], p.PropagatedBeliefs[i] = s.PropagatedLogOdds, s.PropagatedBelief
	}
	return p
}

// promoteCorroborated is source verification's promotion after a change of
// posteriors, in the view of the organization whose claim is now verified:
// an unvouched UNVERIFIED origin domain becomes LOW there, with its audit
// row; fleet-wide once a quorum of organizations' claims corroborated it
// (verification.QuorumFrom), with an audit row naming them.
func (q *Queries) promoteCorroborated(ctx context.Context, states []ClaimState, tallies []ClaimTalliesRow) error {
	var pairs []orgDomain
	claims := map[string][]int64{}
	for i, s := range states {
		t := tallies[i]
		// only an origin its organization sees at UNVERIFIED can be promoted
		if s.Verification == verification.Verified && t.OriginLevel == "UNVERIFIED" && t.OrganizationID != "" && t.OriginDomain != "" {
			pairs = append(pairs, orgDomain{Org: t.OrganizationID, Domain: t.OriginDomain})
			claims[t.OrganizationID] = append(claims[t.OrganizationID], s.ClaimID)
		}
	}
	if len(pairs) == 0 {
		return nil // most rounds: no statement sent
	}
	orgs, perOrg, all := byOrg(sortedOrgDomains(pairs))
	if err := q.LockDomains(ctx, all); err != nil {
		return fmt.Errorf("recompute posteriors: lock domains: %w", err)
	}
	var promoted []string
	for _, org := range orgs {
		if err := q.EnsureOrgDomainRows(ctx, EnsureOrgDomainRowsParams{OrganizationID: org, Domains: perOrg[org]}); err != nil {
			return fmt.Errorf("recompute posteriors: %s's view: %w", org, err)
		}
		rows, err := q.PromoteOrgDomains(ctx, PromoteOrgDomainsParams{OrganizationID: org, ClaimIds: claims[org]})
		if err != nil {
			return fmt.Errorf("recompute posteriors: promote domains in %s's view: %w", org, err)
		}
		if len(rows) == 0 {
			continue
		}
		domains, reasons := make([]string, len(rows)), make([]string, len(rows))
		for i, r := range rows {
			domains[i], reasons[i] = r.Domain, fmt.Sprintf("claim %d verified by independent sites", r.ClaimID)
		}
		if err := q.RecordPromotions(ctx, RecordPromotionsParams{Domains: domains, Reasons: reasons, OrganizationID: org}); err != nil {
			return fmt.Errorf("recompute posteriors: record promotions: %w", err)
		}
		promoted = append(promoted, domains...)
	}
	slices.Sort(promoted)
	for _, d := range slices.Compact(promoted) {
		if err := q.fleetPromotion(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// fleetPromotion promotes a domain fleet-wide (UNVERIFIED that nobody
// vouched for becomes LOW) once at least the quorum of organizations'
// claims corroborated it, with an audit row naming the rule and them.
func (q *Queries) fleetPromotion(ctx context.Context, domain string) error {
	votes, err := q.DomainVotes(ctx, domain)
	if err != nil {
		return fmt.Errorf("recompute posteriors: votes on %s: %w", domain, err)
	}
	quorum := verification.QuorumFrom(ctx)
	if len(votes.Promoting) < quorum {
		return nil
	}
	d, err := q.LockDomain(ctx, domain)
	if err != nil {
		return fmt.Errorf("recompute posteriors: lock %s: %w", domain, err)
	}
	if s := (verification.Standing{Level: d.TrustLevel, LevelSource: d.LevelSource, LevelRule: d.LevelRule}); d.TrustLevel != "UNVERIFIED" || s.Vouched() {
		return nil
	}
	reason := fmt.Sprintf("corroborated in the views of %d organizations (quorum %d): %s", len(votes.Promoting), quorum, strings.Join(votes.Promoting, ", "))
	if err := q.PromoteDomain(ctx, PromoteDomainParams{Domain: domain, Reason: &reason}); err != nil {
		return fmt.Errorf("recompute posteriors: promote %s: %w", domain, err)
	}
	_, err = q.auditRule(ctx, domainBlock{Domain: domain, Level: d.TrustLevel, Orgs: votes.Promoting}, "promote", "LOW", reason)
	return err
}

// TallyFromRow converts an aggregate row into the pure tally.
func TallyFromRow(t ClaimTalliesRow) evidence.Tally {
	return evidence.Tally{
		SupportSum: t.SupportSum, RefuteSum: t.RefuteSum,
		Supporting: int(t.Supporting), Refuting: int(t.Refuting), Neutral: int(t.Neutral),
		IndependentSources: int(t.IndependentSources),
	}
}
