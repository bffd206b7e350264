package store

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

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

// orgDomain is one organization's claims from one domain.
type orgDomain struct{ Org, Domain string }

// rejectionChanges are the organizations and origin domains of the claims
// whose status moved into or out of rejected, sorted: only their rejection
// rates changed.
func rejectionChanges(locked []LockClaimsRow, states []ClaimState, tallies []ClaimTalliesRow) []orgDomain {
	was := make(map[int64]string, len(locked))
	for _, l := range locked {
		was[l.ID] = l.VerificationStatus
	}
	var out []orgDomain
	for i, s := range states {
		rejected := s.Verification == verification.Rejected
		t := tallies[i]
		if t.OriginDomain != "" && t.OrganizationID != "" && rejected != (was[s.ClaimID] == verification.Rejected) {
			out = append(out, orgDomain{Org: t.OrganizationID, Domain: t.OriginDomain})
		}
	}
	return sortedOrgDomains(out)
}

// sortedOrgDomains sorts the pairs by organization, then domain, each once:
// the order every caller locks the organizations' rows in.
func sortedOrgDomains(pairs []orgDomain) []orgDomain {
	slices.SortFunc(pairs, func(a, b orgDomain) int {
		return cmp.Or(cmp.Compare(a.Org, b.Org), cmp.Compare(a.Domain, b.Domain))
	})
	return slices.Compact(pairs)
}

// byOrg groups sorted organization–domain pairs by organization, and
// returns every domain once, sorted.
func byOrg(pairs []orgDomain) (orgs []string, domains map[string][]string, all []string) {
	domains = map[string][]string{}
	for _, p := range pairs {
		if len(orgs) == 0 || orgs[len(orgs)-1] != p.Org {
			orgs = append(orgs, p.Org)
		}
		domains[p.Org] = append(domains[p.Org], p.Domain)
		all = append(all, p.Domain)
	}
	slices.Sort(all)
	return orgs, domains, slices.Compact(all)
}

// viewStanding is a domain as one organization's view sees it: its own
// level when it has one (set by its reviewer or by a rule on its
// evidence), else the fleet's; a fleet-wide block holds in every view.
func viewStanding(fleetLevel, fleetSource, fleetRule, orgLevel, orgSource, orgRule string) verification.Standing {
	s := verification.Standing{Level: fleetLevel, LevelSource: fleetSource, LevelRule: fleetRule}
	if orgLevel != "" && fleetLevel != "BLOCKED" {
		s.Level, s.LevelSource, s.LevelRule = orgLevel, orgSource, orgRule
	}
	s.Blocked = s.Level == "BLOCKED"
	return s
}

// applyBlockRule applies the block rule (verification.DecideDomain) to
// each organization's view of the domains whose claims moved into or out
// of rejection, on that organization's claims alone: a block in its view
// with its cause, or a flag, each with its audit row. A domain that a
// quorum of organizations' views now block is then blocked (or flagged)
// fleet-wide (fleetQuorum). The domains' rows are locked first, then the
// organizations' rows, in name order.
func (q *Queries) applyBlockRule(ctx context.Context, changes []orgDomain) error {
	if len(changes) == 0 {
		return nil
	}
	orgs, perOrg, all := byOrg(changes)
	if err := q.LockDomains(ctx, all); err != nil {
		return fmt.Errorf("source verification: lock domains: %w", err)
	}
	var voted []string
	for _, org := range orgs {
		if err := q.EnsureOrgDomainRows(ctx, EnsureOrgDomainRowsParams{OrganizationID: org, Domains: perOrg[org]}); err != nil {
			return fmt.Errorf("source verification: %s's view: %w", org, err)
		}
		rows, err := q.OrgDomainStandings(ctx, OrgDomainStandingsParams{OrganizationID: org, Domains: perOrg[org]})
		if err != nil {
			return fmt.Errorf("source verification: %s's standings: %w", org, err)
		}
		for _, r := range rows {
			s := viewStanding(r.FleetLevel, r.FleetSource, r.FleetRule, r.OrgLevel, r.OrgSource, r.OrgRule)
			s.Rejected, s.Total = int(r.Rejected), int(r.Total)
			if err := q.SetOrgDomainStanding(ctx, SetOrgDomainStandingParams{OrganizationID: org, Domain: r.Domain,
				Rejected: r.Rejected, Total: r.Total}); err != nil {
				return fmt.Errorf("source verification: %s: %w", r.Domain, err)
			}
			action, reason := verification.DecideDomain(s)
			switch {
			case action == verification.Block:
				edges, err := q.RejectingEdges(ctx, r.RejectedIds)
				if err != nil {
					return fmt.Errorf("source verification: %s: %w", r.Domain, err)
				}
				claims, err := q.RejectionEvidence(ctx, r.RejectedIds)
				if err != nil {
					return fmt.Errorf("source verification: %s: evidence: %w", r.Domain, err)
				}
				err = q.blockInView(ctx, domainBlock{Org: org, Domain: r.Domain, Level: s.Level, Code: verification.ReasonHighRejectionRate,
					Reason: reason, ClaimIDs: r.RejectedIds, EdgeIDs: edges, Evidence: map[string]any{"rejected_claims": json.RawMessage(claims)}})
				if err != nil {
					return err
				}
				voted = append(voted, r.Domain)
			case action == verification.Flag && !r.Flagged:
				if err := q.flagInView(ctx, org, r.Domain, s.Level, reason); err != nil {
					return err
				}
				voted = append(voted, r.Domain)
			}
		}
	}
	for _, d := range all {
		if err := q.SumDomainStanding(ctx, d); err != nil {
			return fmt.Errorf("source verification: %s: %w", d, err)
		}
	}
	slices.Sort(voted)
	for _, d := range slices.Compact(voted) {
		if err := q.fleetQuorum(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// domainBlock is a block by the fleet's rules, with its cause: in one
// organization's view (Org), or fleet-wide (Org empty).
type domainBlock struct {
	Org           string
	Domain, Level string // the domain and the level the block replaces
	Code          string // verification.ReasonHighRejectionRate or ReasonDangerousPattern
	Reason        string // in words, with the numbers
	ClaimIDs      []int64
	EdgeIDs       []int64
	Cause         string         // e.g. "page 12"
	Orgs          []string       // the organizations whose evidence fed the rule
	Evidence      map[string]any // what the block rests on, kept in its audit row
}

// audit is the block's audit row, returning its id.
func (q *Queries) auditRule(ctx context.Context, b domainBlock, action, newLevel, reason string) (int64, error) {
	ev, err := json.Marshal(b.Evidence)
	if err != nil {
		return 0, fmt.Errorf("audit %s of %s: evidence: %w", action, b.Domain, err)
	}
	orgs := b.Orgs
	if b.Org != "" && len(orgs) == 0 {
		orgs = []string{b.Org}
	}
	p := RecordDomainLevelChangeParams{Domain: b.Domain, OldLevel: nonEmpty(b.Level), NewLevel: newLevel,
		Source: verification.SourceVerification, Reason: reason, SetBy: "source verification", Action: action,
		Scope: "fleet", ActorKind: "rule", RuleOrganizations: orgs, Evidence: ev}
	if b.Org != "" {
		p.Scope, p.OrganizationID = "organization", &b.Org
	}
	id, err := q.RecordDomainLevelChange(ctx, p)
	if err != nil {
		return 0, fmt.Errorf("record the %s of %s: %w", action, b.Domain, err)
	}
	return id, nil
}

// blockInView blocks the domain in one organization's view (its row made
// and locked by the caller), citing the audit row that keeps the cause.
func (q *Queries) blockInView(ctx context.Context, b domainBlock) error {
	id, err := q.auditRule(ctx, b, "block", "BLOCKED", b.Code+": "+b.Reason)
	if err != nil {
		return fmt.Errorf("source verification: %w", err)
	}
	blocked, source := "BLOCKED", verification.SourceVerification
	err = q.SetOrgDomainLevel(ctx, SetOrgDomainLevelParams{OrganizationID: b.Org, Domain: b.Domain, TrustLevel: &blocked,
		LevelSource: &source, LevelRule: &b.Reason, SetBy: ptr("source verification"), BlockReason: &b.Code, Cause: nonEmpty(b.Cause),
		OriginalTrustLevel: nonEmpty(b.Level), CauseChangeID: &id, ClaimIds: orEmpty(b.ClaimIDs), EdgeIds: orEmpty(b.EdgeIDs)})
	if err != nil {
		return fmt.Errorf("source verification: block %s in %s's view: %w", b.Domain, b.Org, err)
	}
	return nil
}

func (q *Queries) flagInView(ctx context.Context, org, domain, level, reason string) error {
	if err := q.FlagOrgDomain(ctx, FlagOrgDomainParams{OrganizationID: org, Domain: domain, Reason: &reason}); err != nil {
		return fmt.Errorf("source verification: flag %s in %s's view: %w", domain, org, err)
	}
	if _, err := q.auditRule(ctx, domainBlock{Org: org, Domain: domain, Level: level}, "flag", level, "flagged for review: "+reason); err != nil {
		return fmt.Errorf("source verification: %w", err)
	}
	return nil
}

// fleetQuorum applies verification.DecideQuorum to a domain whose row the
// caller locked, with the quorum of verification.QuorumFrom: blocked
// fleet-wide once that many organizations' views block it — the audit row
// names the rule and those organizations and cites their blocks' audit
// rows, where the evidence is — or flagged once that many views block or
// flag a domain a person or the policy vouched for.
func (q *Queries) fleetQuorum(ctx context.Context, domain string) error {
	votes, err := q.DomainVotes(ctx, domain)
	if err != nil {
		return fmt.Errorf("source verification: votes on %s: %w", domain, err)
	}
	quorum := verification.QuorumFrom(ctx)
	if len(votes.Flagging) < quorum {
		return nil // most changes: no further statement
	}
	d, err := q.LockDomain(ctx, domain)
	if err != nil {
		return fmt.Errorf("source verification: lock %s: %w", domain, err)
	}
	s := verification.Standing{Level: d.TrustLevel, LevelSource: d.LevelSource, LevelRule: d.LevelRule, Blocked: d.Blocked}
	switch verification.DecideQuorum(s, len(votes.Blocking), len(votes.Flagging), quorum) {
	case verification.Block:
		reason := fmt.Sprintf("blocked in the views of %d organizations (quorum %d): %s", len(votes.Blocking), quorum, strings.Join(votes.Blocking, ", "))
		var cited []map[string]any
		for i, org := range votes.Blocking {
			cited = append(cited, map[string]any{"organization_id": org, "block_reason": votes.BlockReasons[i], "change_id": votes.BlockChanges[i]})
		}
		b := domainBlock{Domain: domain, Level: d.TrustLevel, Code: verification.QuorumReason(votes.BlockReasons), Reason: reason,
			ClaimIDs: votes.ClaimIds, EdgeIDs: votes.EdgeIds, Orgs: votes.Blocking, Evidence: map[string]any{"organization_blocks": cited}}
		id, err := q.auditRule(ctx, b, "block", "BLOCKED", b.Code+": "+reason)
		if err != nil {
			return fmt.Errorf("source verification: %w", err)
		}
		err = q.BlockDomain(ctx, BlockDomainParams{Domain: domain, Reason: &reason, BlockReason: &b.Code,
			ClaimIds: orEmpty(b.ClaimIDs), EdgeIds: orEmpty(b.EdgeIDs), CauseChangeID: &id})
		if err != nil {
			return fmt.Errorf("source verification: block %s: %w", domain, err)
		}
	case verification.Flag:
		if d.Flagged {
			return nil
		}
		reason := fmt.Sprintf("blocked or flagged in the views of %d organizations (quorum %d): %s", len(votes.Flagging), quorum, strings.Join(votes.Flagging, ", "))
		if err := q.FlagDomain(ctx, FlagDomainParams{Domain: domain, Reason: &reason}); err != nil {
			return fmt.Errorf("source verification: flag %s: %w", domain, err)
		}
		b := domainBlock{Domain: domain, Level: d.TrustLevel, Orgs: votes.Flagging}
		if _, err := q.auditRule(ctx, b, "flag", d.TrustLevel, "flagged for review: "+reason); err != nil {
			return fmt.Errorf("source verification: %w", err)
		}
	}
	return nil
}

// quarantine marks a page whose text holds a dangerous pattern and blocks
// its domain at once in the view of the organization whose task met it
// (reason dangerous_pattern, cause the page), or flags it there when a
// person or the policy vouched for it (an encyclopedia article about
// prompt injection quotes the very words); fleet-wide only by a quorum of
// organizations (fleetQuorum) or an operator. The page's quarantine is the
// page's, for every task: its text never reaches the claim extractor.
func (q *Queries) quarantine(ctx context.Context, pageID int64, domain, pattern, org string) error {
	if err := q.QuarantinePage(ctx, QuarantinePageParams{ID: pageID, Reason: &pattern}); err != nil {
		return fmt.Errorf("quarantine page %d: %w", pageID, err)
	}
	if org == "" {
		return nil // no task met it (a fixture): the page alone
	}
	if err := q.LockDomains(ctx, []string{domain}); err != nil {
		return fmt.Errorf("quarantine page %d: lock %s: %w", pageID, domain, err)
	}
	if err := q.EnsureOrgDomainRows(ctx, EnsureOrgDomainRowsParams{OrganizationID: org, Domains: []string{domain}}); err != nil {
		return fmt.Errorf("quarantine page %d: %w", pageID, err)
	}
	d, err := q.LockOrgDomain(ctx, LockOrgDomainParams{OrganizationID: org, Domain: domain})
	if err != nil {
		return fmt.Errorf("quarantine page %d: lock %s's view of %s: %w", pageID, org, domain, err)
	}
	s := viewStanding(d.FleetLevel, d.FleetSource, d.FleetRule, d.OrgLevel, d.OrgSource, d.OrgRule)
	reason := fmt.Sprintf("page %d holds %q", pageID, pattern)
	switch verification.DecideDangerous(s) {
	case verification.Block:
		err := q.blockInView(ctx, domainBlock{Org: org, Domain: domain, Level: s.Level, Code: verification.ReasonDangerousPattern,
			Reason: reason, Cause: fmt.Sprintf("page %d", pageID),
			Evidence: map[string]any{"page_id": pageID, "pattern": pattern}})
		if err != nil {
			return err
		}
		return q.fleetQuorum(ctx, domain)
	case verification.Flag:
		if !d.Flagged {
			if err := q.flagInView(ctx, org, domain, s.Level, verification.ReasonDangerousPattern+": "+reason); err != nil {
				return err
			}
			return q.fleetQuorum(ctx, domain)
		}
	}
	return nil
}

func orEmpty(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

func ptr[T any](v T) *T { return &v }
