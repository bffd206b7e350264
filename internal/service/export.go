package service

import (
	"context"
	"fmt"
	"time"

	"github.com/evidencefleet/evidencefleet/store"
)

// ExportItem is one claim of the evidence export (seed 001's atomic
// evidence record, ARCHITECTURE.md §5.7): what it says, where its quote
// stands — the exact span of the exact page version and that version's
// text there — how the page came into the task, what the evidence says of
// it, and which models judged. A hypothesis claim has no source: its
// source fields are null.
type ExportItem struct {
	ID               string     `json:"id"`          // the E-number, "E17": seed 001's record id
	ClaimID          int64      `json:"claim_id"`    // the claim's id (POST /v1/claims/{claim_id}/feedback, evidence spans' source.claim_id)
	EvidenceNo       string     `json:"evidence_no"` // the E-number again, by the name the graph and the spans give it
	Claim            string     `json:"claim"`
	Kind             string     `json:"kind"`   // hypothesis | extracted
	Source           *string    `json:"source"` // the page's title, else its domain
	SourceURL        *string    `json:"source_url"`
	SourceTitle      *string    `json:"source_title"`
	QuoteSpan        *string    `json:"quote_span"`
	RetrievalContext *string    `json:"retrieval_context"` // url_target | doi_target | search_query | citation
	RetrievedVia     *string    `json:"retrieved_via"`     // the URL, DOI, query or citing page it names
	Confidence       float64    `json:"confidence"`        // the posterior's
	Belief           float64    `json:"belief"`            // the log-odds belief's, beside it (§5.8)
	PropagatedBelief float64    `json:"propagated_belief"` // the belief after the claim's links
	Accessed         *time.Time `json:"timestamp_accessed"`
	PageID           *int64     `json:"page_id"`
	PageVersionID    *int64     `json:"page_version_id"`
	StartChar        *int32     `json:"start_char"`
	EndChar          *int32     `json:"end_char"`
	Verdict          string     `json:"verdict"`
	Supporting       int32      `json:"supporting_count"`
	Refuting         int32      `json:"refuting_count"`
	Neutral          int32      `json:"neutral_count"`
	TrustLevel       *string    `json:"trust_level"` // of the source's domain, now
	Verification     string     `json:"verification_status"`
	Adoption         string     `json:"adoption_status"`
	Models           ExportedBy `json:"models"`
	// Recheck is the latest recheck of the quote's page (absent until one,
	// ARCHITECTURE.md §5.10).
	Recheck *CitationRecheck `json:"recheck,omitempty"`
}

// ExportedBy names the models behind an item.
type ExportedBy struct {
	Extractor *string  `json:"extractor"` // the claim extractor (null for a hypothesis)
	NLI       []string `json:"nli"`       // the NLI models of its edges
}

// ExportPage is one page of the export; Next is the E-number to go on
// after (0 at the end).
type ExportPage struct {
	Items []ExportItem `json:"items"`
	Next  int          `json:"next_after,omitempty"`
}

// MaxExportPage bounds one page of the export.
const MaxExportPage = 1000

// Export is the evidence export of the organization's task: its claims in
// E-number order from after after, at most limit (0 or more than
// MaxExportPage: MaxExportPage). The same task exported twice gives the
// same items.
func (s *Service) Export(ctx context.Context, org string, taskID int64, after, limit int) (ExportPage, error) {
	out := ExportPage{Items: []ExportItem{}}
	if _, err := s.Task(ctx, org, taskID); err != nil {
		return out, err
	}
	if limit <= 0 || limit > MaxExportPage {
		limit = MaxExportPage
	}
	rows, err := s.st.TaskExportClaims(ctx, store.TaskExportClaimsParams{TaskID: taskID, AfterNo: int32(after), MaxRows: int32(limit + 1)})
	if err != nil {
		return out, fmt.Errorf("export task %d: %w", taskID, err)
	}
	origins, err := s.st.TaskPageOrigins(ctx, taskID)
	if err != nil {
		return out, fmt.Errorf("export task %d: page origins: %w", taskID, err)
	}
	byPage := make(map[int64]store.TaskPageOriginsRow, len(origins))
	for _, o := range origins {
		byPage[o.PageID] = o
	}
	spans := []spanKey{}
	for _, r := range rows[:min(len(rows), limit)] {
		if r.PageVersionID != nil {
			spans = append(spans, spanKey{*r.PageVersionID, *r.QuoteStart, *r.QuoteEnd})
		}
	}
	checks, err := citationChecks(ctx, s.st, taskID, spans...)
	if err != nil {
		return out, fmt.Errorf("export task %d: %w", taskID, err)
	}
	for i, r := range rows {
		if i == limit {
			out.Next = int(rows[limit-1].EvidenceNo)
			break
		}
		it := exportItem(r, byPage)
		if it.PageVersionID != nil {
			it.Recheck = checks[spanKey{*it.PageVersionID, *it.StartChar, *it.EndChar}]
		}
		out.Items = append(out.Items, it)
	}
	return out, nil
}

func exportItem(r store.TaskExportClaimsRow, origins map[int64]store.TaskPageOriginsRow) ExportItem {
	it := ExportItem{ID: fmt.Sprintf("E%d", r.EvidenceNo), ClaimID: r.ID, EvidenceNo: fmt.Sprintf("E%d", r.EvidenceNo), Claim: r.Text, Kind: r.Kind, Confidence: r.Confidence,
		Belief: r.Belief, PropagatedBelief: r.PropagatedBelief,
		Verdict: r.Verdict, Supporting: r.SupportingCount, Refuting: r.RefutingCount, Neutral: r.NeutralCount,
		Verification: r.VerificationStatus, Adoption: r.AdoptionStatus,
		Models: ExportedBy{Extractor: r.ExtractorModel, NLI: r.NliModels}}
	if r.PageID == nil {
		return it // a hypothesis: no source
	}
	source := r.Title
	if source == "" {
		source = r.Domain
	}
	it.Source, it.SourceURL, it.QuoteSpan = &source, &r.Url, &r.Quote
	if r.Title != "" {
		it.SourceTitle = &r.Title
	}
	if r.TrustLevel != "" {
		it.TrustLevel = &r.TrustLevel
	}
	it.PageID, it.PageVersionID, it.StartChar, it.EndChar, it.Accessed = r.PageID, r.PageVersionID, r.QuoteStart, r.QuoteEnd, r.FetchedAt
	if o, ok := origins[*r.PageID]; ok {
		ctx := o.RetrievalContext
		it.RetrievalContext, it.RetrievedVia = &ctx, o.Source()
	}
	return it
}
