// Package verification is source verification (ARCHITECTURE.md §5.5): the
// rules that decide, from a claim's NLI edges and the trust levels of the
// sites behind them, whether the claim is verified, pending or rejected,
// which conflicts it stands in, and whether a domain whose claims keep being
// rejected is blocked or only flagged for a person. It is pure: the store
// gathers the inputs in the transaction that wrote the edges and applies the
// answers there.
//
// Source verification never touches a claim's probability: the Beta
// posterior is computed from the edges alone (internal/evidence); the
// statuses decided here say which claims the evidence of record adopts and
// which sources the fleet keeps using.
package verification

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/evidencefleet/evidencefleet/internal/domainpolicy"
)

// The rules' numbers (seed 002's, as defaults).
const (
	// MinConfidence is the confidence an edge needs to count: built-in
	// models are weak judges, and their edges must not verify a claim,
	// reject it or block a real site on noise.
	MinConfidence = 0.7
	// VerifiedFromSites independent sites supporting a claim verify it.
	VerifiedFromSites = 2
	// A domain nobody vouched for is blocked when more than
	// BlockRejectionRate of its claims are rejected and at least
	// BlockMinRejected are.
	BlockRejectionRate = 0.30
	BlockMinRejected   = 3
)

// Claim statuses (claims.verification_status).
const (
	Verified = "verified"
	Pending  = "pending"
	Rejected = "rejected"
)

// A person's word on a claim (claims.reviewer_status).
const (
	ReviewerRejected = "rejected" // claim-reject: rejected whatever the evidence
	ReviewerRestored = "restored" // claim-restore: source verification's rejection no longer applies
)

// WithReviewer is a claim's status after a person's word: a person's
// rejection stands, and a restored claim is not rejected by the rules
// again (it is pending unless verified).
func WithReviewer(status, reviewer string) string {
	switch {
	case reviewer == ReviewerRejected:
		return Rejected
	case reviewer == ReviewerRestored && status == Rejected:
		return Pending
	}
	return status
}

// Conflict kinds: a confident refutation between two sites, named by the
// levels on each side (high = PRIMARY, GOVERNMENT, ACADEMIC).
const (
	// ScientificControversy: high refutes high. Both are kept; the claim is
	// pending.
	ScientificControversy = "scientific_controversy"
	// RefutedByHigher: high refutes low. The low side's claim is rejected.
	RefutedByHigher = "refuted_by_higher"
	// RefutedByLower: low refutes high. The claim keeps its status; the
	// conflict is recorded.
	RefutedByLower = "refuted_by_lower"
	// LowConflict: low refutes low. The claim is pending and the conflict
	// recorded; seed 002 rejects both sides, but with weak built-in judges
	// that would reject much of Wikipedia on noise.
	LowConflict = "low_conflict"
)

// IsHigh reports whether a level is high for the conflict rules.
func IsHigh(level string) bool {
	return level == domainpolicy.Primary || level == domainpolicy.Government || level == domainpolicy.Academic
}

// Edge is one supports or refutes NLI edge into a claim, with the level of
// record of its fragment's domain.
type Edge struct {
	ID         int64
	Relation   string // "supports" or "refutes"; anything else is ignored
	Confidence float64
	Domain     string // the fragment's page's domain (host)
	Site       string // its registrable domain: the unit of independence
	Level      string
}

// Claim is what the rules read about one claim: where it came from and
// the edges into it. A hypothesis claim (the task's own) has no origin.
type Claim struct {
	OriginDomain string // "" for a hypothesis claim
	OriginSite   string
	OriginLevel  string
	Edges        []Edge
}

// Conflict is one confident refutation between two sites.
type Conflict struct {
	EdgeID        int64
	Kind          string
	RefuterDomain string
	RefuterLevel  string
	Confidence    float64
}

// Outcome is what the rules decide for a claim.
type Outcome struct {
	Status          string // Verified, Pending or Rejected
	SupportingSites int    // independent sites supporting it confidently
	RefutingSites   int    // independent sites refuting it confidently
	Conflicts       []Conflict
	Reason          string // why the status, in words
}

// counts reports whether an edge takes part in source verification: a
// confident supports or refutes from a site other than the claim's own and
// not blocked.
func (c Claim) counts(e Edge) bool {
	if e.Relation != "supports" && e.Relation != "refutes" {
		return false
	}
	if !(e.Confidence >= MinConfidence) || e.Level == domainpolicy.Blocked {
		return false
	}
	return c.OriginSite == "" || e.Site != c.OriginSite
}

// Decide applies the claim rules:
//
//   - only confident edges (MinConfidence) from other sites count, and a
//     site counts once however many of its pages or subdomains speak;
//   - a refutation by a high site of a claim from a low site rejects it;
//   - high against high is a scientific controversy, low against low a
//     recorded conflict: both leave the claim pending;
//   - otherwise VerifiedFromSites supporting sites verify the claim.
//
// A hypothesis claim has no origin site to judge: it is never rejected, and
// a confident refutation from a high site keeps it pending.
func Decide(c Claim) Outcome {
	var out Outcome
	supporting, refuting := map[string]bool{}, map[string]bool{}
	var highRefuter string
	for _, e := range c.Edges {
		if !c.counts(e) {
			continue
		}
		if e.Relation == "supports" {
			supporting[e.Site] = true
			continue
		}
		refuting[e.Site] = true
		if IsHigh(e.Level) && highRefuter == "" {
			highRefuter = e.Domain
		}
		if c.OriginDomain == "" {
			continue
		}
		out.Conflicts = append(out.Conflicts, Conflict{EdgeID: e.ID, Kind: conflictKind(e.Level, c.OriginLevel),
			RefuterDomain: e.Domain, RefuterLevel: e.Level, Confidence: e.Confidence})
	}
	slices.SortFunc(out.Conflicts, func(a, b Conflict) int { return cmp.Compare(a.EdgeID, b.EdgeID) })
	out.SupportingSites, out.RefutingSites = len(supporting), len(refuting)
	out.Status, out.Reason = status(out, highRefuter, c.OriginDomain == "")
	return out
}

func conflictKind(refuter, origin string) string {
	switch {
	case IsHigh(refuter) && IsHigh(origin):
		return ScientificControversy
	case IsHigh(refuter):
		return RefutedByHigher
	case IsHigh(origin):
		return RefutedByLower
	}
	return LowConflict
}

// status orders the rules: a rejection first, then what keeps a claim
// pending, then verification.
func status(o Outcome, highRefuter string, hypothesis bool) (string, string) {
	kinds := map[string]int{}
	for _, c := range o.Conflicts {
		kinds[c.Kind]++
	}
	switch {
	case kinds[RefutedByHigher] > 0:
		return Rejected, fmt.Sprintf("refuted by a higher-level source (%d edge(s))", kinds[RefutedByHigher])
	case kinds[ScientificControversy] > 0:
		return Pending, "scientific controversy: high-level sources disagree"
	case kinds[LowConflict] > 0:
		return Pending, "conflict between low-level sources"
	case hypothesis && highRefuter != "":
		return Pending, "refuted by " + highRefuter
	case o.SupportingSites >= VerifiedFromSites:
		return Verified, fmt.Sprintf("supported by %d independent sites", o.SupportingSites)
	}
	return Pending, fmt.Sprintf("supported by %d independent site(s), %d needed", o.SupportingSites, VerifiedFromSites)
}
