package service

import (
	"context"
	"fmt"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/store"
)

// ContextRunes is how many characters of a page version are shown on each
// side of a span.
const ContextRunes = 1500

// SpanContext is one span of evidence shown inside the exact page version
// it points into (the version that was cited, never the page's newest):
// whose evidence it is, the page, and the version's text before, at and
// after [StartChar, EndChar).
type SpanContext struct {
	ClaimID    int64  `json:"claim_id"`
	EvidenceNo string `json:"evidence_no"`
	TaskID     int64  `json:"task_id"`
	EdgeID     int64  `json:"edge_id"`  // 0 for a claim's origin quote
	Relation   string `json:"relation"` // origin, or the edge's supports | refutes | neutral
	// Confidence is the edge's NLI confidence, or the extractor's for an
	// origin; nil when none was given. Model made the judgement or the
	// extraction.
	Confidence    *float64  `json:"confidence"`
	Model         string    `json:"model"`
	PageID        int64     `json:"page_id"`
	PageVersionID int64     `json:"page_version_id"`
	URL           string    `json:"url"`
	Domain        string    `json:"domain"`
	Title         string    `json:"title"`
	Level         string    `json:"level"`      // the domain's level in the organization's view now
	FetchedAt     time.Time `json:"fetched_at"` // the cited version's fetch
	// StartChar and EndChar are character offsets [start, end) into the
	// version's content, as fragments and claims store them.
	StartChar int32 `json:"start_char"`
	EndChar   int32 `json:"end_char"`
	// Before, Text and After are up to ContextRunes characters of the
	// version before the span, the span (the version's text there), and up
	// to ContextRunes after it; Before starts at BeforeStart.
	Before          string `json:"before"`
	Text            string `json:"text"`
	After           string `json:"after"`
	BeforeStart     int32  `json:"before_start"`
	VersionRunes    int    `json:"version_runes"`     // the version's length in characters
	NewestVersionID int64  `json:"newest_version_id"` // the page's newest version; PageVersionID when the cited one is
	// Recheck is the span's latest recheck for its task (nil until one).
	Recheck *CitationRecheck `json:"recheck,omitempty"`
}

// ErrNoSourceSpan: the claim is a hypothesis, quoted from no page, so it
// has no origin span. It is also an errs.ErrClaimNotFound (the span asked
// for does not exist; the API answers 404).
var ErrNoSourceSpan error = noSourceSpan{}

type noSourceSpan struct{}

func (noSourceSpan) Error() string        { return "a hypothesis has no source span" }
func (noSourceSpan) Is(target error) bool { return target == errs.ErrClaimNotFound }

// ClaimOrigin shows the quote a claim of the organization's was extracted
// from inside its page version. Another organization's claim, like a
// missing one, is errs.ErrClaimNotFound; a hypothesis is ErrNoSourceSpan.
func (s *Service) ClaimOrigin(ctx context.Context, org string, claimID int64) (SpanContext, error) {
	c, err := s.st.ConsoleClaimOrigin(ctx, store.ConsoleClaimOriginParams{ID: claimID, OrganizationID: org})
	if store.IsNotFound(err) {
		return SpanContext{}, fmt.Errorf("claim %d: %w", claimID, errs.ErrClaimNotFound)
	}
	if err != nil {
		return SpanContext{}, fmt.Errorf("read claim %d: %w", claimID, err)
	}
	if c.PageVersionID == nil || c.QuoteStart == nil || c.QuoteEnd == nil {
		return SpanContext{}, fmt.Errorf("claim %d: %w", claimID, ErrNoSourceSpan)
	}
	out := SpanContext{ClaimID: c.ID, EvidenceNo: fmt.Sprintf("E%d", c.EvidenceNo), TaskID: c.TaskID, Relation: "origin",
		Confidence: c.Confidence, Model: c.Model, PageVersionID: *c.PageVersionID, StartChar: *c.QuoteStart, EndChar: *c.QuoteEnd}
	err = s.spanInVersion(ctx, org, &out)
	return out, err
}

// EdgeSource shows the premise of an NLI edge into a claim of the
// organization's inside its page version. Another organization's edge,
// like a missing one or one that is not an NLI edge, is
// errs.ErrEdgeNotFound.
func (s *Service) EdgeSource(ctx context.Context, org string, edgeID int64) (SpanContext, error) {
	e, err := s.st.ConsoleEdgeSource(ctx, store.ConsoleEdgeSourceParams{ID: edgeID, OrganizationID: org})
	if store.IsNotFound(err) {
		return SpanContext{}, fmt.Errorf("edge %d: %w", edgeID, errs.ErrEdgeNotFound)
	}
	if err != nil {
		return SpanContext{}, fmt.Errorf("read edge %d: %w", edgeID, err)
	}
	out := SpanContext{ClaimID: e.ClaimID, EvidenceNo: fmt.Sprintf("E%d", e.EvidenceNo), TaskID: e.TaskID, EdgeID: e.ID,
		Relation: e.Relation, Confidence: e.Confidence, Model: e.Model, PageVersionID: e.PageVersionID,
		StartChar: e.StartChar, EndChar: e.EndChar}
	err = s.spanInVersion(ctx, org, &out)
	return out, err
}

// spanInVersion fills in the page and the text around sc's span of its
// version, cut in the database.
func (s *Service) spanInVersion(ctx context.Context, org string, sc *SpanContext) error {
	sc.BeforeStart = max(sc.StartChar-ContextRunes, 0)
	r, err := s.st.VersionSpanContext(ctx, store.VersionSpanContextParams{BeforeStart: sc.BeforeStart, StartChar: sc.StartChar,
		EndChar: sc.EndChar, AfterRunes: ContextRunes, OrganizationID: org, PageVersionID: sc.PageVersionID})
	if err != nil {
		return fmt.Errorf("read page version %d at [%d, %d): %w", sc.PageVersionID, sc.StartChar, sc.EndChar, err)
	}
	sc.PageID, sc.URL, sc.Domain, sc.Title, sc.Level, sc.FetchedAt = r.PageID, r.Url, r.Domain, r.Title, r.Level, r.FetchedAt
	sc.Before, sc.Text, sc.After = r.Before, r.Text, r.After
	sc.VersionRunes, sc.NewestVersionID = int(r.VersionRunes), r.NewestVersionID
	key := spanKey{sc.PageVersionID, sc.StartChar, sc.EndChar}
	checks, err := citationChecks(ctx, s.st, sc.TaskID, key)
	if err != nil {
		return fmt.Errorf("page version %d at [%d, %d): %w", sc.PageVersionID, sc.StartChar, sc.EndChar, err)
	}
	sc.Recheck = checks[key]
	return nil
}
