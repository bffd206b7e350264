package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/evidencefleet/evidencefleet/internal/domainpolicy"
	"github.com/evidencefleet/evidencefleet/internal/ident"
	"github.com/evidencefleet/evidencefleet/internal/verification"
)

// DomainLevelEdit is a person's change of a domain's level of record.
type DomainLevelEdit struct {
	Domain  string // as the domains table keys it (ident.HostDomain)
	Level   string // the new level; BLOCKED blocks the domain
	Unblock bool   // instead of Level: give back the level the block replaced
	// Clear, instead of Level: forget every level a person or the fleet
	// set, and give the domain the policy's (PolicyLevel by PolicyRule);
	// a block and a flag go too.
	Clear       bool
	PolicyLevel string
	PolicyRule  string
	Reason      string
	By          string
	// Org, when set, changes that organization's view only (its tasks see
	// and stamp it; a block there is one vote toward the fleet's quorum);
	// empty, the fleet's level of record, an operator's change. TokenID is
	// the API token it came through (0: the CLI, database credentials).
	Org     string
	TokenID int64
}

// DomainLevelChanged is what a change did.
type DomainLevelChanged struct {
	Domain   string `json:"domain"`
	OldLevel string `json:"old_level"`
	Level    string `json:"level"`
	Changed  bool   `json:"changed"` // false: the domain already had this level from a person
}

// reviewerSource is the level_source of a person's level.
const reviewerSource = verification.SourceReviewer

// ChangeDomainLevel applies a person's change of a domain's level in one
// transaction, with its audit row (domain_level_changes): the domain's row
// is made if it has none and locked; a block keeps the level it replaces
// for the unblock. What depends on the level is recomputed in the same
// transaction: the posteriors and statuses of the claims extracted from
// the domain's pages or confidently judged from its fragments (locked
// first, in the order verify_nli's writes lock them). Repeating a change
// records nothing.
func (s *Store) ChangeDomainLevel(ctx context.Context, c DomainLevelEdit) (DomainLevelChanged, error) {
	out := DomainLevelChanged{Domain: c.Domain}
	err := s.InTx(ctx, func(_ pgx.Tx, q *Queries) error {
		site := ident.Site(c.Domain)
		if err := q.CreateDomainRow(ctx, CreateDomainRowParams{Domain: c.Domain, Site: &site}); err != nil {
			return err
		}
		// Every supports or refutes edge, not only the confident ones that
		// source verification reads: the log-odds belief leaves out a
		// BLOCKED domain's edges of any confidence (§5.8). A view's change
		// touches its organization's claims only.
		touched, err := q.ClaimsTouchingDomain(ctx, ClaimsTouchingDomainParams{Domain: c.Domain, MinConfidence: 0, OrganizationID: nonEmpty(c.Org)})
		if err != nil {
			return err
		}
		if len(touched) > 0 {
			// their tasks' rows, then the claims with those downstream of
			// them, as RecomputePosteriors locks them
			if _, _, _, err := q.lockBeliefScope(ctx, touched, nil); err != nil {
				return err
			}
		}
		change := q.changeDomainLevel
		if c.Org != "" {
			change = q.changeOrgDomainLevel
		}
		if err := change(ctx, c, &out); err != nil || !out.Changed {
			return err
		}
		_, err = q.RecomputePosteriors(ctx, touched)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("change the level of %s: %w", c.Domain, err)
	}
	return out, nil
}

// changeDomainLevel is ChangeDomainLevel's change of the level itself, on
// the domain's row locked.
func (q *Queries) changeDomainLevel(ctx context.Context, c DomainLevelEdit, out *DomainLevelChanged) error {
	old, err := q.LockDomain(ctx, c.Domain)
	if err != nil {
		return err
	}
	out.OldLevel, out.Level = old.TrustLevel, c.Level
	if c.Clear {
		return q.clearDomainLevel(ctx, c, old, out)
	}
	blockReason, original := "", old.OriginalTrustLevel
	switch {
	case c.Unblock && !old.Blocked:
		// not blocked fleet-wide: the rules' blocks in organizations'
		// views are what an operator lifts
		out.Level = old.TrustLevel
		lifted, err := q.liftViewBlocks(ctx, c, out.Level)
		out.Changed = lifted
		return err
	case c.Unblock:
		out.Level = old.OriginalTrustLevel
		if out.Level == "" {
			out.Level = "UNVERIFIED"
		}
	case c.Level == "BLOCKED":
		blockReason = "manual"
		if !old.Blocked {
			original = old.TrustLevel
		}
	}
	if out.Level == old.TrustLevel && old.LevelSource == reviewerSource {
		return nil
	}
	if err := q.SetDomainLevel(ctx, SetDomainLevelParams{Domain: c.Domain, TrustLevel: out.Level, LevelSource: reviewerSource,
		Reason: &c.Reason, SetBy: &c.By, BlockReason: blockReason, OriginalTrustLevel: original}); err != nil {
		return err
	}
	out.Changed = true
	action := "set"
	switch {
	case c.Unblock:
		action = "unblock"
	case c.Level == "BLOCKED":
		action = "block"
	}
	if _, err = q.RecordDomainLevelChange(ctx, personChange(c, RecordDomainLevelChangeParams{Domain: c.Domain, OldLevel: nonEmpty(old.TrustLevel),
		NewLevel: out.Level, Source: reviewerSource, Reason: c.Reason, SetBy: c.By, Action: action})); err != nil {
		return err
	}
	if !c.Unblock {
		return nil
	}
	// the rules' blocks in organizations' views were the votes behind a
	// quorum block: an operator's unblock lifts them too
	_, err = q.liftViewBlocks(ctx, c, out.Level)
	return err
}

// liftViewBlocks is an operator's unblock of the blocks the rules made in
// organizations' views (LiftRuleViewBlocks), with an audit row each;
// whether there were any.
func (q *Queries) liftViewBlocks(ctx context.Context, c DomainLevelEdit, level string) (bool, error) {
	orgs, err := q.LiftRuleViewBlocks(ctx, c.Domain)
	if err != nil || len(orgs) == 0 {
		return false, err
	}
	err = q.RecordViewUnblocks(ctx, RecordViewUnblocksParams{Domain: c.Domain, NewLevel: level, Reason: c.Reason,
		SetBy: c.By, Organizations: orgs, ActorTokenID: nonZero(c.TokenID)})
	return true, err
}

// personChange fills in an audit row's scope and actor: an operator's
// change of the fleet's level, or an organization's of its view.
func personChange(c DomainLevelEdit, p RecordDomainLevelChangeParams) RecordDomainLevelChangeParams {
	p.Scope, p.ActorKind, p.ActorTokenID = "fleet", "operator", nonZero(c.TokenID)
	if c.Org != "" {
		p.Scope, p.OrganizationID, p.ActorKind, p.ActorOrganizationID = "organization", &c.Org, "organization", &c.Org
	}
	return p
}

// changeOrgDomainLevel is ChangeDomainLevel's change of one organization's
// view: its own level (BLOCKED blocks the domain for its tasks), an
// unblock of its own block, or a clear (its view follows the fleet's level
// again). A fleet-wide block is not its to lift. A block in its view is
// one vote toward the fleet's quorum (fleetQuorum).
func (q *Queries) changeOrgDomainLevel(ctx context.Context, c DomainLevelEdit, out *DomainLevelChanged) error {
	if err := q.LockDomains(ctx, []string{c.Domain}); err != nil {
		return err
	}
	if err := q.EnsureOrgDomainRows(ctx, EnsureOrgDomainRowsParams{OrganizationID: c.Org, Domains: []string{c.Domain}}); err != nil {
		return err
	}
	old, err := q.LockOrgDomain(ctx, LockOrgDomainParams{OrganizationID: c.Org, Domain: c.Domain})
	if err != nil {
		return err
	}
	view := viewStanding(old.FleetLevel, old.FleetSource, old.FleetRule, old.OrgLevel, old.OrgSource, old.OrgRule)
	out.OldLevel = view.Level
	var level *string // nil: the fleet's level again
	action, blockReason := "set", ""
	switch {
	case c.Clear:
		action = "clear"
	case c.Unblock:
		if old.OrgLevel != "BLOCKED" {
			out.Level = view.Level // nothing of its own to lift
			return nil
		}
		action = "unblock"
		if old.OrgOriginal != "" && old.OrgOriginal != old.FleetLevel {
			level = &old.OrgOriginal
		}
	default:
		level = &c.Level
		if c.Level == "BLOCKED" {
			action, blockReason = "block", verification.ReasonManual
		}
	}
	out.Level = old.FleetLevel
	if level != nil {
		out.Level = *level
	}
	if old.FleetLevel == "BLOCKED" {
		out.Level = "BLOCKED"
	}
	if (level == nil && old.OrgLevel == "") || (level != nil && *level == old.OrgLevel && old.OrgSource == reviewerSource) {
		return nil
	}
	var source *string
	if level != nil {
		source = ptr(reviewerSource)
	}
	original := old.OrgOriginal
	if blockReason != "" && old.OrgLevel != "BLOCKED" {
		original = view.Level
	}
	p := personChange(c, RecordDomainLevelChangeParams{Domain: c.Domain, OldLevel: nonEmpty(view.Level), NewLevel: out.Level,
		Source: reviewerSource, Reason: c.Reason, SetBy: c.By, Action: action})
	id, err := q.RecordDomainLevelChange(ctx, p)
	if err != nil {
		return err
	}
	if err := q.SetOrgDomainLevel(ctx, SetOrgDomainLevelParams{OrganizationID: c.Org, Domain: c.Domain, TrustLevel: level,
		LevelSource: source, LevelRule: &c.Reason, SetBy: &c.By, BlockReason: nonEmpty(blockReason), OriginalTrustLevel: nonEmpty(original),
		CauseChangeID: &id, ClaimIds: []int64{}, EdgeIds: []int64{}}); err != nil {
		return err
	}
	out.Changed = true
	if blockReason != "" {
		return q.fleetQuorum(ctx, c.Domain)
	}
	return nil
}

// clearDomainLevel gives a locked domain the policy's level, by the policy's
// rule, with its audit row; a denied domain's block is the denylist's.
func (q *Queries) clearDomainLevel(ctx context.Context, c DomainLevelEdit, old LockDomainRow, out *DomainLevelChanged) error {
	out.Level = c.PolicyLevel
	if old.LevelSource == verification.SourcePolicy && old.TrustLevel == c.PolicyLevel && old.LevelRule == c.PolicyRule && !old.Flagged {
		return nil
	}
	blockReason, original := "", ""
	if c.PolicyLevel == domainpolicy.Blocked {
		blockReason, original = verification.ReasonDenylist, old.TrustLevel
	}
	if err := q.SetDomainLevel(ctx, SetDomainLevelParams{Domain: c.Domain, TrustLevel: c.PolicyLevel, LevelSource: verification.SourcePolicy,
		Reason: &c.PolicyRule, SetBy: &c.By, BlockReason: blockReason, OriginalTrustLevel: original}); err != nil {
		return err
	}
	out.Changed = true
	_, err := q.RecordDomainLevelChange(ctx, personChange(c, RecordDomainLevelChangeParams{Domain: c.Domain, OldLevel: nonEmpty(old.TrustLevel),
		NewLevel: c.PolicyLevel, Source: verification.SourcePolicy, Reason: c.Reason + " (policy: " + c.PolicyRule + ")", SetBy: c.By, Action: "clear"}))
	return err
}

// PolicyLevel is a domain policy's answer for a domain: its level and the
// rule that decided.
type PolicyLevel struct{ Level, Rule string }

// ApplyPolicy is a policy reload: every domain whose level the policy set on
// first sight, or nobody set, gets the level decide gives it now, where it
// differs, with an audit row each (action policy); levels set by a person
// or by source verification stay. It walks the domains in pages of batch,
// one transaction each, and returns how many changed. Processes starting
// with the same policy at once share the work (rows another holds are
// skipped; it applies the same levels).
func (s *Store) ApplyPolicy(ctx context.Context, decide func(domain string) PolicyLevel, batch int) (int, error) {
	changed, after := 0, ""
	for {
		rows, err := s.PolicyLevelDomains(ctx, PolicyLevelDomainsParams{After: after, MaxRows: int32(batch)})
		if err != nil {
			return changed, fmt.Errorf("policy reload: read domains: %w", err)
		}
		if len(rows) == 0 {
			return changed, nil
		}
		after = rows[len(rows)-1].Domain
		var p ApplyPolicyLevelsParams
		for _, r := range rows {
			if d := decide(r.Domain); d.Level != r.TrustLevel {
				p.Domains, p.Levels, p.Rules = append(p.Domains, r.Domain), append(p.Levels, d.Level), append(p.Rules, d.Rule)
			}
		}
		if len(p.Domains) == 0 {
			continue
		}
		err = s.InTx(ctx, func(_ pgx.Tx, q *Queries) error {
			done, err := q.ApplyPolicyLevels(ctx, p)
			if err != nil || len(done) == 0 {
				return err
			}
			var rec RecordPolicyChangesParams
			for _, d := range done {
				rec.Domains, rec.OldLevels, rec.NewLevels = append(rec.Domains, d.Domain), append(rec.OldLevels, d.OldLevel), append(rec.NewLevels, d.NewLevel)
				rec.Reasons = append(rec.Reasons, "policy reload: "+d.Rule)
			}
			changed += len(done)
			return q.RecordPolicyChanges(ctx, rec)
		})
		if err != nil {
			return changed, fmt.Errorf("policy reload: %w", err)
		}
	}
}
