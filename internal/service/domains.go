package service

import (
	"context"
	"fmt"

	"github.com/evidencefleet/evidencefleet/internal/domainpolicy"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/store"
)

// DomainView is a domain as one organization sees it (ARCHITECTURE.md
// §5.5): what its tasks see and stamp, the fleet's level of record beside
// it, and the block or flag that holds for it.
type DomainView struct {
	Domain string `json:"domain"`
	// Level is what the organization's tasks see: a fleet-wide block,
	// else its view's own level, else the fleet's.
	Level      string `json:"level"`
	FleetLevel string `json:"fleet_level"` // "" before any page of it was stored
	OwnLevel   string `json:"own_level"`   // the view's own level; "" follows the fleet's
	// BlockedIn says whose block holds: fleet (only an operator or the
	// quorum lifts it) or organization (its own view's).
	BlockedIn      string `json:"blocked_in,omitempty"`
	BlockReason    string `json:"block_reason,omitempty"`
	FlagReason     string `json:"flag_reason,omitempty"`
	RejectedClaims int    `json:"rejected_claims"` // the organization's own claims from the domain
	TotalClaims    int    `json:"total_claims"`
}

// DomainView reads the organization's view of a domain.
func (s *Service) DomainView(ctx context.Context, org, domain string) (DomainView, error) {
	d, err := domainpolicy.NormalizeDomain(domain)
	if err != nil {
		return DomainView{}, fmt.Errorf("%w: domain: %v", errs.ErrBadInput, err)
	}
	r, err := s.st.DomainViewOf(ctx, store.DomainViewOfParams{Domain: d, OrganizationID: org})
	if err != nil {
		return DomainView{}, fmt.Errorf("read %s's view of %s: %w", org, d, err)
	}
	return DomainView{Domain: d, Level: r.Level, FleetLevel: r.FleetLevel, OwnLevel: r.OwnLevel, BlockedIn: r.BlockedIn,
		BlockReason: r.BlockReason, FlagReason: r.FlagReason, RejectedClaims: int(r.RejectedClaims), TotalClaims: int(r.TotalClaims)}, nil
}

// DomainViewChange is a reviewer's change of the organization's view of a
// domain: Action set (Level), block, unblock or clear (the view follows
// the fleet's level again).
type DomainViewChange struct {
	Action, Level, Reason, By string
	TokenID                   int64
}

// DomainLevelChanged is what a change of a domain's level did.
type DomainLevelChanged struct {
	Domain   string `json:"domain"`
	OldLevel string `json:"old_level"`
	Level    string `json:"level"`
	Changed  bool   `json:"changed"` // false: the domain already had this level from a person
}

// ChangeDomainView changes the organization's own view of a domain
// (store.ChangeDomainLevel with Org): its tasks see it at once; the
// fleet's level of record moves only by an operator or a quorum of
// organizations, and a fleet-wide block is not a view's to lift.
func (s *Service) ChangeDomainView(ctx context.Context, org, domain string, c DomainViewChange) (DomainLevelChanged, error) {
	d, err := domainpolicy.NormalizeDomain(domain)
	if err != nil {
		return DomainLevelChanged{}, fmt.Errorf("%w: domain: %v", errs.ErrBadInput, err)
	}
	edit := store.DomainLevelEdit{Domain: d, Reason: c.Reason, By: c.By, Org: org, TokenID: c.TokenID}
	switch c.Action {
	case "set":
		if !domainpolicy.IsLevel(c.Level) || c.Level == domainpolicy.Blocked {
			return DomainLevelChanged{}, fmt.Errorf("%w: level %q: want PRIMARY, GOVERNMENT, ACADEMIC, TRUSTED, LOW or UNVERIFIED (block with action block)", errs.ErrBadInput, c.Level)
		}
		edit.Level = c.Level
	case "block":
		edit.Level = domainpolicy.Blocked
	case "unblock":
		edit.Unblock = true
	case "clear":
		edit.Clear = true
	default:
		return DomainLevelChanged{}, fmt.Errorf("%w: action %q: want set, block, unblock or clear", errs.ErrBadInput, c.Action)
	}
	r, err := s.st.ChangeDomainLevel(ctx, edit)
	if err != nil {
		// store's error names the domain already; its text is the API's answer
		return DomainLevelChanged{Domain: d}, err
	}
	return DomainLevelChanged{Domain: r.Domain, OldLevel: r.OldLevel, Level: r.Level, Changed: r.Changed}, nil
}
