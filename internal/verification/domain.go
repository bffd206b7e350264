package verification

import (
	"fmt"
	"slices"

	"github.com/evidencefleet/evidencefleet/internal/domainpolicy"
)

// Where a domain's level of record came from (domains.level_source).
const (
	SourceDefault      = "default"      // nobody set it
	SourcePolicy       = "policy"       // the domain policy on first sight (level_rule names the rule)
	SourceReviewer     = "reviewer"     // a person, through enqueue domain
	SourceVerification = "verification" // source verification (a promotion or a block)
)

// Standing is a domain's record as the block rule reads it.
type Standing struct {
	Level       string
	LevelSource string
	LevelRule   string // the policy rule, "default" for the policy's default
	Blocked     bool
	Rejected    int // its claims rejected (by source verification or a person)
	Total       int // its claims
}

// Vouched reports whether a person or the policy vouched for the domain's
// level: a reviewer's level, or a policy rule other than the default. A
// level reached by promotion, or nobody's, is not vouched for.
func (s Standing) Vouched() bool {
	switch s.LevelSource {
	case SourceReviewer:
		return true
	case SourcePolicy:
		return s.LevelRule != "default"
	}
	return false
}

// RejectionRate is the share of the domain's claims that are rejected.
func (s Standing) RejectionRate() float64 {
	if s.Total <= 0 {
		return 0
	}
	return float64(s.Rejected) / float64(s.Total)
}

// OverTheLine reports whether the domain's claims are rejected often
// enough to act on: more than BlockRejectionRate of them, and at least
// BlockMinRejected.
func (s Standing) OverTheLine() bool {
	return s.Rejected >= BlockMinRejected && s.RejectionRate() > BlockRejectionRate
}

// Domain actions.
const (
	Keep  = ""      // nothing to do
	Block = "block" // block it (reason high_rejection_rate)
	Flag  = "flag"  // show it to a person; a machine does not block it
)

// DecideDomain applies the block rule: a domain over the line is blocked
// only when nobody vouched for it and its level is below TRUSTED; a vouched
// domain over the line is flagged for review, and TRUSTED and above are
// never demoted by a machine. The reason gives the numbers.
func DecideDomain(s Standing) (action, reason string) {
	if s.Blocked || !s.OverTheLine() {
		return Keep, ""
	}
	reason = fmt.Sprintf("%d of %d claims rejected (%.0f%% > %.0f%%, at least %d)",
		s.Rejected, s.Total, 100*s.RejectionRate(), 100*BlockRejectionRate, BlockMinRejected)
	if s.Vouched() || rank(s.Level) <= rank(domainpolicy.Trusted) {
		return Flag, reason
	}
	return Block, reason
}

// DecideDangerous is the rule for a domain one of whose pages holds a
// dangerous pattern: blocked at once, unless a person or the policy vouched
// for it or its level is TRUSTED or above, when it is flagged.
func DecideDangerous(s Standing) string {
	switch {
	case s.Blocked:
		return Keep
	case s.Vouched() || rank(s.Level) <= rank(domainpolicy.Trusted):
		return Flag
	}
	return Block
}

func rank(level string) int {
	if i := slices.Index(domainpolicy.Levels, level); i >= 0 {
		return i
	}
	return slices.Index(domainpolicy.Levels, domainpolicy.Unverified)
}

// Block reason codes (domains.block_reason).
const (
	ReasonHighRejectionRate = "high_rejection_rate"
	ReasonDangerousPattern  = "dangerous_pattern"
	ReasonDenylist          = "denylist"
	ReasonManual            = "manual"
)

// Restore is how a block can be undone and what undoing it risks.
type Restore struct {
	CanRestore bool   `json:"can_restore"`
	Risk       string `json:"unblock_risk"` // low, medium or high
	RiskReason string `json:"unblock_risk_reason"`
	Via        string `json:"restore_via"`
}

// RestoreFor says how to undo a block of domain with this reason code.
func RestoreFor(domain, reason string) Restore {
	unblock := "enqueue domain unblock " + domain + " --reason ..."
	switch reason {
	case ReasonDenylist:
		return Restore{CanRestore: false, Risk: "high", RiskReason: "the domain policy denies it",
			Via: "remove the deny rule from the policy file (EVF_DOMAIN_POLICY) and restart the workers"}
	case ReasonDangerousPattern:
		return Restore{CanRestore: true, Risk: "high",
			RiskReason: "its pages tried to instruct a model; after an unblock their text reaches the claim extractor again", Via: unblock}
	case ReasonHighRejectionRate:
		return Restore{CanRestore: true, Risk: "medium",
			RiskReason: "higher-level sources refuted many of its claims; its pages return to candidate sets and rankings", Via: unblock}
	}
	return Restore{CanRestore: true, Risk: "low", RiskReason: "a person blocked it; an unblock gives back the level it had", Via: unblock}
}

// DefaultQuorum is how many organizations' views must agree before a rule
// changes the fleet-wide level of a domain (EVF_TRUST_QUORUM_ORGS).
const DefaultQuorum = 3

// DecideQuorum is the rule for the fleet-wide level of a domain from
// organizations' views, each organization counted once whatever its
// volume: blocks is how many views block it, flags how many block or flag
// it. A domain nobody vouched for, below TRUSTED, is blocked fleet-wide
// once blocks reaches the quorum; one a person or the policy vouched for,
// or at TRUSTED and above, is flagged for a person once flags does — never
// blocked by a machine.
func DecideQuorum(fleet Standing, blocks, flags, quorum int) string {
	quorum = max(quorum, 1)
	switch {
	case fleet.Blocked:
		return Keep
	case fleet.Vouched() || rank(fleet.Level) <= rank(domainpolicy.Trusted):
		if flags >= quorum {
			return Flag
		}
	case blocks >= quorum:
		return Block
	}
	return Keep
}

// QuorumReason is the reason code of a fleet-wide block by a quorum of
// organizations' blocks with these codes: the riskiest to undo among them
// (a dangerous pattern, then a high rejection rate, else a person's).
func QuorumReason(codes []string) string {
	for _, c := range []string{ReasonDangerousPattern, ReasonHighRejectionRate} {
		if slices.Contains(codes, c) {
			return c
		}
	}
	return ReasonManual
}
