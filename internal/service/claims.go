package service

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/evidence"
	"github.com/evidencefleet/evidencefleet/internal/verification"
	"github.com/evidencefleet/evidencefleet/store"
)

// ClaimFilter narrows ListClaims: a verdict and a verification status, ""
// for any.
type ClaimFilter struct {
	Verdict      string // well_supported, supported, unverified, likely_false or contested
	Verification string // pending, verified or rejected
}

// The values ClaimFilter takes (claims' CHECK constraints).
var (
	claimVerdicts = []string{evidence.VerdictWellSupported, evidence.VerdictSupported, evidence.VerdictUnverified,
		evidence.VerdictLikelyFalse, evidence.VerdictContested}
	claimVerifications = []string{verification.Pending, verification.Verified, verification.Rejected}
)

// ClaimRow is one claim as a reviewer lists it: its posterior, belief,
// status and counts, and the domain it was quoted from.
type ClaimRow struct {
	ID                 int64   `json:"id"`
	EvidenceNo         string  `json:"evidence_no"` // "E7"
	Text               string  `json:"text"`
	Kind               string  `json:"kind"` // hypothesis | extracted
	Verdict            string  `json:"verdict"`
	Confidence         float64 `json:"confidence"` // the posterior mean
	Alpha              float64 `json:"alpha"`
	Beta               float64 `json:"beta"`
	Uncertainty        float64 `json:"uncertainty"`
	Controversy        float64 `json:"controversy"`
	Belief             float64 `json:"belief"`
	PropagatedBelief   float64 `json:"propagated_belief"`
	Verification       string  `json:"verification_status"`
	VerificationReason string  `json:"verification_reason"`
	Adoption           string  `json:"adoption_status"`
	Supporting         int32   `json:"supporting_count"`
	Refuting           int32   `json:"refuting_count"`
	Neutral            int32   `json:"neutral_count"`
	// Domain is the origin page's domain and OriginLevel its level in the
	// organization's view now; both "" for the hypothesis.
	Domain      string `json:"domain"`
	OriginLevel string `json:"origin_level"`
}

// ClaimListPage is one page of ListClaims: NextAfter is the E-number to
// go on after (0 at the end), Total how many claims match the filter.
type ClaimListPage struct {
	Items     []ClaimRow `json:"items"`
	NextAfter int        `json:"next_after"`
	Total     int        `json:"total"`
}

// ListClaims' page sizes.
const (
	DefaultClaimLimit = 100
	MaxClaimLimit     = 500
)

// ListClaims lists the organization's task's claims that match f, in
// E-number order after E<after> (0: from the start), limit at a time (0:
// DefaultClaimLimit, at most MaxClaimLimit).
func (s *Service) ListClaims(ctx context.Context, org string, taskID int64, f ClaimFilter, after, limit int) (ClaimListPage, error) {
	out := ClaimListPage{Items: []ClaimRow{}}
	switch {
	case f.Verdict != "" && !slices.Contains(claimVerdicts, f.Verdict):
		return out, badInput("verdict %q: want one of %s", f.Verdict, strings.Join(claimVerdicts, ", "))
	case f.Verification != "" && !slices.Contains(claimVerifications, f.Verification):
		return out, badInput("verification_status %q: want one of %s", f.Verification, strings.Join(claimVerifications, ", "))
	case after < 0 || after > maxEvidenceNo:
		return out, badInput("after %d: want an E-number, or 0 from the start", after)
	}
	limit, err := pageLimit(limit, DefaultClaimLimit, MaxClaimLimit)
	if err != nil {
		return out, err
	}
	if _, err := s.Task(ctx, org, taskID); err != nil {
		return out, err
	}
	total, err := s.st.ConsoleClaimCount(ctx, store.ConsoleClaimCountParams{TaskID: taskID, Verdict: f.Verdict, Verification: f.Verification})
	if err != nil {
		return out, fmt.Errorf("count claims of task %d: %w", taskID, err)
	}
	out.Total = int(total)
	rows, err := s.st.ConsoleClaims(ctx, store.ConsoleClaimsParams{OrganizationID: org, TaskID: taskID, AfterNo: int32(after),
		Verdict: f.Verdict, Verification: f.Verification, MaxRows: int32(limit + 1)})
	if err != nil {
		return out, fmt.Errorf("list claims of task %d: %w", taskID, err)
	}
	for i, r := range rows {
		if i == limit {
			out.NextAfter = int(rows[limit-1].Claim.EvidenceNo)
			break
		}
		out.Items = append(out.Items, claimRow(r.Claim, r.Domain, r.OriginLevel))
	}
	return out, nil
}

func claimRow(c store.Claim, domain, level string) ClaimRow {
	r := ClaimRow{ID: c.ID, EvidenceNo: fmt.Sprintf("E%d", c.EvidenceNo), Text: c.Text, Kind: c.Kind, Verdict: c.Verdict,
		Confidence: c.Confidence, Alpha: c.Alpha, Beta: c.Beta, Uncertainty: c.Uncertainty, Controversy: c.Controversy,
		Belief: c.Belief, PropagatedBelief: c.PropagatedBelief, Verification: c.VerificationStatus, Adoption: c.AdoptionStatus,
		Supporting: c.SupportingCount, Refuting: c.RefutingCount, Neutral: c.NeutralCount, Domain: domain, OriginLevel: level}
	if c.VerificationReason != nil {
		r.VerificationReason = *c.VerificationReason
	}
	return r
}

// EvidenceRow is one NLI edge into a claim with the span of its premise:
// the page, the exact version, [StartChar, EndChar) and the version's text
// there.
type EvidenceRow struct {
	EdgeID        int64    `json:"edge_id"`
	Relation      string   `json:"relation"` // supports | refutes | neutral
	Confidence    *float64 `json:"confidence"`
	Model         string   `json:"model"`
	CorrectedBy   string   `json:"corrected_by"` // "" unless a person corrected it
	PageID        int64    `json:"page_id"`
	PageVersionID int64    `json:"page_version_id"`
	URL           string   `json:"url"`
	Domain        string   `json:"domain"`
	Level         string   `json:"level"` // the domain's level in the organization's view now
	StartChar     int32    `json:"start_char"`
	EndChar       int32    `json:"end_char"`
	Text          string   `json:"text"`
}

// ClaimView is one claim of the organization's with its task's hypothesis
// and its evidence by relation, strongest first, at most
// MaxEvidencePerRelation of each.
type ClaimView struct {
	Claim      ClaimRow      `json:"claim"`
	TaskID     int64         `json:"task_id"`
	Hypothesis string        `json:"hypothesis"`
	Supporting []EvidenceRow `json:"supporting"`
	Refuting   []EvidenceRow `json:"refuting"`
	Neutral    []EvidenceRow `json:"neutral"`
}

// MaxEvidencePerRelation bounds each relation's evidence in a ClaimView.
const MaxEvidencePerRelation = 200

// ClaimView reads one claim of the organization's with its evidence;
// another organization's claim, like a missing one, is
// errs.ErrClaimNotFound.
func (s *Service) ClaimView(ctx context.Context, org string, claimID int64) (ClaimView, error) {
	out := ClaimView{Supporting: []EvidenceRow{}, Refuting: []EvidenceRow{}, Neutral: []EvidenceRow{}}
	c, err := s.st.ConsoleClaim(ctx, store.ConsoleClaimParams{ID: claimID, OrganizationID: org})
	if store.IsNotFound(err) {
		return out, fmt.Errorf("claim %d: %w", claimID, errs.ErrClaimNotFound)
	}
	if err != nil {
		return out, fmt.Errorf("read claim %d: %w", claimID, err)
	}
	out.Claim, out.TaskID, out.Hypothesis = claimRow(c.Claim, c.Domain, c.OriginLevel), c.Claim.TaskID, c.Hypothesis
	rows, err := s.st.ConsoleClaimEvidence(ctx, store.ConsoleClaimEvidenceParams{ClaimID: claimID, OrganizationID: org,
		PerRelation: MaxEvidencePerRelation})
	if err != nil {
		return out, fmt.Errorf("evidence of claim %d: %w", claimID, err)
	}
	for _, r := range rows {
		e := EvidenceRow{EdgeID: r.ID, Relation: r.Relation, Confidence: r.Confidence, Model: r.Model, CorrectedBy: r.CorrectedBy,
			PageID: r.PageID, PageVersionID: r.PageVersionID, URL: r.Url, Domain: r.Domain, Level: r.Level,
			StartChar: r.StartChar, EndChar: r.EndChar, Text: r.Text}
		switch r.Relation {
		case "supports":
			out.Supporting = append(out.Supporting, e)
		case "refutes":
			out.Refuting = append(out.Refuting, e)
		default:
			out.Neutral = append(out.Neutral, e)
		}
	}
	return out, nil
}

// maxEvidenceNo is the largest E-number (claims.evidence_no is an int4).
const maxEvidenceNo = 1<<31 - 1

// badInput is an errs.ErrBadInput whose text names the field.
func badInput(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errs.ErrBadInput, fmt.Sprintf(format, args...))
}

// pageLimit checks a page size: 0 is def, 1 to most are kept, anything else
// is bad input naming limit.
func pageLimit(limit, def, most int) (int, error) {
	switch {
	case limit < 0 || limit > most:
		return 0, badInput("limit %d: want 1 to %d", limit, most)
	case limit == 0:
		return def, nil
	}
	return limit, nil
}
