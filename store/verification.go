package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/evidencefleet/evidencefleet/internal/verification"
)

// replaceConflicts replaces the claims' recorded conflicts with the ones
// just decided (claim_conflicts): a re-judged or corrected edge leaves no
// stale conflict behind. Only the claims whose tally found conflicts
// recorded are cleared: most claims never have one, and the statement is
// then not sent.
func (q *Queries) replaceConflicts(ctx context.Context, states []ClaimState, tallies []ClaimTalliesRow) error {
	var stale []int64
	for _, t := range tallies {
		if t.HasConflicts {
			stale = append(stale, t.ClaimID)
		}
	}
	if len(stale) > 0 {
		if err := q.DeleteClaimConflicts(ctx, stale); err != nil {
			return fmt.Errorf("recompute posteriors: clear conflicts: %w", err)
		}
	}
	var p InsertClaimConflictsParams
	for i, s := range states {
		for _, c := range s.Outcome.Conflicts {
			p.EdgeIds = append(p.EdgeIds, c.EdgeID)
			p.ClaimIds = append(p.ClaimIds, s.ClaimID)
			p.Kinds = append(p.Kinds, c.Kind)
			p.RefuterDomains = append(p.RefuterDomains, c.RefuterDomain)
			p.RefuterLevels = append(p.RefuterLevels, c.RefuterLevel)
			p.OriginDomains = append(p.OriginDomains, tallies[i].OriginDomain)
			p.OriginLevels = append(p.OriginLevels, tallies[i].OriginLevel)
			p.Confidences = append(p.Confidences, c.Confidence)
		}
	}
	if len(p.EdgeIds) == 0 {
		return nil
	}
	if err := q.InsertClaimConflicts(ctx, p); err != nil {
		return fmt.Errorf("recompute posteriors: record conflicts: %w", err)
	}
	return nil
}

// rejectionChanges are the origin domains of the claims whose status moved
// into or out of rejected, sorted: only their rejection rates changed.
func rejectionChanges(locked []LockClaimsRow, states []ClaimState, tallies []ClaimTalliesRow) []string {
	was := make(map[int64]string, len(locked))
	for _, l := range locked {
		was[l.ID] = l.VerificationStatus
	}
	var domains []string
	for i, s := range states {
		rejected := s.Verification == verification.Rejected
		if d := tallies[i].OriginDomain; d != "" && rejected != (was[s.ClaimID] == verification.Rejected) {
			domains = append(domains, d)
		}
	}
	slices.Sort(domains)
	return slices.Compact(domains)
}

// applyBlockRule records the domains' rejection counts and applies the
// block rule (verification.DecideDomain) to them: a block with its cause,
// or a flag for a person, each with its audit row.
func (q *Queries) applyBlockRule(ctx context.Context, domains []string) error {
	if len(domains) == 0 {
		return nil
	}
	rows, err := q.DomainStandings(ctx, domains)
	if err != nil {
		return fmt.Errorf("source verification: domain standings: %w", err)
	}
	for _, r := range rows {
		s := verification.Standing{Level: r.TrustLevel, LevelSource: r.LevelSource, LevelRule: r.LevelRule,
			Blocked: r.Blocked, Rejected: int(r.Rejected), Total: int(r.Total)}
		if err := q.SetDomainStanding(ctx, SetDomainStandingParams{Domain: r.Domain, Rejected: r.Rejected, Total: r.Total,
			RejectionRate: s.RejectionRate()}); err != nil {
			return fmt.Errorf("source verification: %s: %w", r.Domain, err)
		}
		action, reason := verification.DecideDomain(s)
		switch {
		case action == verification.Block:
			edges, err := q.RejectingEdges(ctx, r.RejectedIds)
			if err != nil {
				return fmt.Errorf("source verification: %s: %w", r.Domain, err)
			}
			err = q.blockDomain(ctx, domainBlock{Domain: r.Domain, Level: r.TrustLevel, Code: verification.ReasonHighRejectionRate,
				Reason: reason, ClaimIDs: r.RejectedIds, EdgeIDs: edges})
			if err != nil {
				return err
			}
		case action == verification.Flag && !r.Flagged:
			if err := q.flagDomain(ctx, r.Domain, r.TrustLevel, reason); err != nil {
				return err
			}
		}
	}
	return nil
}

// domainBlock is a block by the fleet itself, with its cause.
type domainBlock struct {
	Domain, Level string // the domain and the level the block replaces
	Code          string // verification.ReasonHighRejectionRate or ReasonDangerousPattern
	Reason        string // in words, with the numbers
	ClaimIDs      []int64
	EdgeIDs       []int64
	Cause         string // e.g. "page 12"
}

func (q *Queries) blockDomain(ctx context.Context, b domainBlock) error {
	if b.ClaimIDs == nil {
		b.ClaimIDs = []int64{}
	}
	if b.EdgeIDs == nil {
		b.EdgeIDs = []int64{}
	}
	err := q.BlockDomain(ctx, BlockDomainParams{Domain: b.Domain, Reason: &b.Reason, BlockReason: &b.Code,
		ClaimIds: b.ClaimIDs, EdgeIds: b.EdgeIDs, Cause: nonEmpty(b.Cause)})
	if err != nil {
		return fmt.Errorf("source verification: block %s: %w", b.Domain, err)
	}
	err = q.RecordDomainLevelChange(ctx, RecordDomainLevelChangeParams{Domain: b.Domain, OldLevel: nonEmpty(b.Level),
		NewLevel: "BLOCKED", Source: verification.SourceVerification, Reason: b.Code + ": " + b.Reason,
		SetBy: "source verification", Action: "block"})
	if err != nil {
		return fmt.Errorf("source verification: record the block of %s: %w", b.Domain, err)
	}
	return nil
}

func (q *Queries) flagDomain(ctx context.Context, domain, level, reason string) error {
	if err := q.FlagDomain(ctx, FlagDomainParams{Domain: domain, Reason: &reason}); err != nil {
		return fmt.Errorf("source verification: flag %s: %w", domain, err)
	}
	err := q.RecordDomainLevelChange(ctx, RecordDomainLevelChangeParams{Domain: domain, OldLevel: nonEmpty(level),
		NewLevel: level, Source: verification.SourceVerification, Reason: "flagged for review: " + reason,
		SetBy: "source verification", Action: "flag"})
	if err != nil {
		return fmt.Errorf("source verification: record the flag of %s: %w", domain, err)
	}
	return nil
}

// quarantine marks a page whose text holds a dangerous pattern and blocks
// its domain at once (reason dangerous_pattern, cause the page), or flags
// it when a person or the policy vouched for it (an encyclopedia article
// about prompt injection quotes the very words).
func (q *Queries) quarantine(ctx context.Context, pageID int64, domain, pattern string) error {
	if err := q.QuarantinePage(ctx, QuarantinePageParams{ID: pageID, Reason: &pattern}); err != nil {
		return fmt.Errorf("quarantine page %d: %w", pageID, err)
	}
	d, err := q.LockDomain(ctx, domain)
	if err != nil {
		return fmt.Errorf("quarantine page %d: lock %s: %w", pageID, domain, err)
	}
	s := verification.Standing{Level: d.TrustLevel, LevelSource: d.LevelSource, LevelRule: d.LevelRule, Blocked: d.Blocked}
	reason := fmt.Sprintf("page %d holds %q", pageID, pattern)
	switch verification.DecideDangerous(s) {
	case verification.Block:
		return q.blockDomain(ctx, domainBlock{Domain: domain, Level: d.TrustLevel, Code: verification.ReasonDangerousPattern,
			Reason: reason, Cause: fmt.Sprintf("page %d", pageID)})
	case verification.Flag:
		if !d.Flagged {
			return q.flagDomain(ctx, domain, d.TrustLevel, verification.ReasonDangerousPattern+": "+reason)
		}
	}
	return nil
}
