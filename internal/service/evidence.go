package service

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/store"
)

// EvidenceFilter names what Evidence.List lists the evidence of: exactly one
// of a claim, a page (reached through one of the organization's tasks) or a
// task.
type EvidenceFilter struct {
	ClaimID, PageID, TaskID int64
}

// EvidenceSpan is one span of evidence of record: the page, the exact page
// version, [StartChar, EndChar) in characters and the version's text there,
// how it is evidence (origin: the quote a claim was extracted from;
// supports, refutes, neutral: an NLI edge's premise) and what made it.
type EvidenceSpan struct {
	PageID        int64      `json:"page_id"`
	PageVersionID int64      `json:"page_version_id"`
	StartChar     int32      `json:"start_char"`
	EndChar       int32      `json:"end_char"`
	Text          string     `json:"text"`
	Confidence    *float64   `json:"confidence"` // the edge's NLI confidence, or the extractor's; null when none was given
	Kind          string     `json:"kind"`       // origin | supports | refutes | neutral
	Source        SpanSource `json:"source"`
}

// SpanSource says whose evidence a span is.
type SpanSource struct {
	ClaimID    int64  `json:"claim_id"`
	EvidenceNo string `json:"evidence_no"` // the claim's E-number, "E17"
	EdgeID     *int64 `json:"edge_id,omitempty"`
	Model      string `json:"model,omitempty"` // the NLI model of an edge, the extractor of an origin
}

// EvidencePage is one page of Evidence.List: Next is the cursor of the next
// page, "" at the end.
type EvidencePage struct {
	Evidence []EvidenceSpan `json:"items"`
	Next     string         `json:"next_cursor,omitempty"`
}

// Evidence.List's page sizes.
const (
	DefaultEvidenceLimit = 100
	MaxEvidenceLimit     = 1000
)

// ErrBadRequest marks a request the caller must change (a filter, a limit,
// a cursor); the message names what.
var ErrBadRequest = errors.New("bad request")

// EvidenceList is Evidence.List (ARCHITECTURE.md §5.7): the evidence spans of
// one claim, page or task of the organization, limit at a time (0: the
// default) from cursor ("" from the start), in a stable order.
func (s *Service) EvidenceList(ctx context.Context, org string, f EvidenceFilter, limit int, cursor string) (EvidencePage, error) {
	out := EvidencePage{Evidence: []EvidenceSpan{}}
	p := store.EvidenceSpansParams{OrganizationID: org}
	n := 0
	for _, id := range []int64{f.ClaimID, f.PageID, f.TaskID} {
		if id > 0 {
			n++
		}
	}
	switch {
	case n != 1:
		return out, fmt.Errorf("%w: give exactly one of a claim, a page or a task", ErrBadRequest)
	case limit < 0 || limit > MaxEvidenceLimit:
		return out, fmt.Errorf("%w: limit %d: want 1 to %d", ErrBadRequest, limit, MaxEvidenceLimit)
	case limit == 0:
		limit = DefaultEvidenceLimit
	}
	var err error
	if p.AfterRank, p.AfterKey, err = parseCursor(cursor); err != nil {
		return out, err
	}
	switch {
	case f.TaskID > 0:
		if _, err := s.Task(ctx, org, f.TaskID); err != nil {
			return out, err
		}
		p.TaskID = &f.TaskID
	case f.ClaimID > 0:
		if err := s.claimOf(ctx, org, f.ClaimID); err != nil {
			return out, err
		}
		p.ClaimID = &f.ClaimID
	default:
		reached, err := s.st.OrgPage(ctx, store.OrgPageParams{PageID: f.PageID, OrganizationID: org})
		if err != nil {
			return out, fmt.Errorf("read page %d: %w", f.PageID, err)
		}
		if !reached {
			return out, fmt.Errorf("page %d: %w", f.PageID, errs.ErrPageNotFound)
		}
		p.PageID = &f.PageID
	}
	p.MaxRows = int32(limit + 1)
	rows, err := s.st.EvidenceList(ctx, p)
	if err != nil {
		return out, fmt.Errorf("evidence: %w", err)
	}
	for i, r := range rows {
		if i == limit {
			last := rows[limit-1]
			out.Next = fmt.Sprintf("%d.%d", last.Rank, last.Key)
			break
		}
		span := EvidenceSpan{PageID: r.PageID, PageVersionID: r.PageVersionID, StartChar: r.StartChar, EndChar: r.EndChar,
			Text: r.Text, Kind: r.Kind,
			Source: SpanSource{ClaimID: r.ClaimID, EvidenceNo: fmt.Sprintf("E%d", r.EvidenceNo), EdgeID: r.EdgeID}}
		if r.HasConfidence {
			c := r.Confidence
			span.Confidence = &c
		}
		if r.Model != nil {
			span.Source.Model = *r.Model
		}
		out.Evidence = append(out.Evidence, span)
	}
	return out, nil
}

// parseCursor reads a cursor of EvidenceList ("rank.key"; "" is the start).
func parseCursor(c string) (int32, int64, error) {
	if c == "" {
		return -1, 0, nil
	}
	r, k, ok := strings.Cut(c, ".")
	rank, err1 := strconv.ParseInt(r, 10, 32)
	key, err2 := strconv.ParseInt(k, 10, 64)
	if !ok || err1 != nil || err2 != nil || rank < 0 || rank > 1 || key < 0 {
		return 0, 0, fmt.Errorf("%w: cursor %q is not one this service gave", ErrBadRequest, c)
	}
	return int32(rank), key, nil
}
