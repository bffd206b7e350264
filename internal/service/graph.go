package service

import (
	"context"
	"fmt"
	"sort"

	"github.com/evidencefleet/evidencefleet/internal/citecheck"
)

// Graph is the task's evidence graph as exported by `enqueue graph`.
type Graph struct {
	TaskID       int64  `json:"task_id"`
	Organization string `json:"organization_id"`
	Hypothesis   string `json:"hypothesis"`
	// Notice is the baseline banner when a built-in model made any of the
	// judgements (internal/modelcard); Models names every model behind them.
	Notice         string           `json:"notice,omitempty"`
	Models         []ModelUse       `json:"models"`
	Claims         []GraphClaim     `json:"claims"`
	Edges          []GraphEdge      `json:"edges"`
	Pages          []GraphPage      `json:"pages"`
	EvidenceSource []EvidenceSource `json:"evidence_source"` // derived claim → page, never stored
	Ranking        []RankedMaterial `json:"ranking"`         // the current ranking for the hypothesis (see materials.go)
	Citations      []GraphCitation  `json:"citations"`       // cites edges between the task's pages
	ClaimLinks     []ClaimLink      `json:"claim_links"`     // claim dependencies (the propagated belief's DAG)
	CitationChecks citecheck.Report `json:"citation_checks"` // cycles, round trips, self- and same-domain citations
	Rechecks       RecheckSummary   `json:"rechecks"`        // what the rechecks of the cited pages found (§5.10)
}

type GraphClaim struct {
	ID                 int64   `json:"id"`
	EvidenceNo         string  `json:"evidence_no"`
	Text               string  `json:"text"`
	Kind               string  `json:"kind"`
	Alpha              float64 `json:"alpha"`
	Beta               float64 `json:"beta"`
	Confidence         float64 `json:"confidence"`
	Uncertainty        float64 `json:"uncertainty"`
	Controversy        float64 `json:"controversy"`
	Verdict            string  `json:"verdict"`
	Supporting         int32   `json:"supporting_count"`
	Refuting           int32   `json:"refuting_count"`
	Neutral            int32   `json:"neutral_count"`
	IndependentSources int32   `json:"independent_sources"`
	EvidenceCount      int32   `json:"evidence_count"`
	AdoptionStatus     string  `json:"adoption_status"`
	Verification       string  `json:"verification_status"`
	VerificationReason string  `json:"verification_reason"`
	SupportingSites    int32   `json:"supporting_sites"` // independent sites confidently supporting it
	RefutingSites      int32   `json:"refuting_sites"`
	// The log-odds belief beside the Beta posterior (ARCHITECTURE.md §5.8):
	// the claim's own, and after its claim links.
	BeliefLogOdds     float64  `json:"belief_log_odds"`
	Belief            float64  `json:"belief"`
	PropagatedLogOdds float64  `json:"propagated_log_odds"`
	PropagatedBelief  float64  `json:"propagated_belief"`
	ExtractorScore    *float64 `json:"llm_claim_confidence,omitempty"`
	ExtractorModel    *string  `json:"extractor_model,omitempty"`
	RefusedReason     *string  `json:"refused_reason,omitempty"` // why the fleet does not work this claim
	Origin            *Span    `json:"origin,omitempty"`
}

// Span is an exact character span of one page version; Text is that
// version's text at [StartChar, EndChar), never a claim's own wording.
type Span struct {
	PageID        int64  `json:"page_id"`
	PageVersionID int64  `json:"page_version_id"`
	StartChar     int32  `json:"start_char"`
	EndChar       int32  `json:"end_char"`
	URL           string `json:"url"`
	Text          string `json:"text,omitempty"`
	// Recheck is the span's latest recheck (absent until one, §5.10).
	Recheck *CitationRecheck `json:"recheck,omitempty"`
}

type GraphEdge struct {
	ID                   int64    `json:"id"`
	Relation             string   `json:"relation"`
	ClaimID              int64    `json:"claim_id"`
	EvidenceNo           string   `json:"evidence_no"`
	FragmentID           int64    `json:"fragment_id"`
	NLILabel             *string  `json:"nli_label,omitempty"`
	NLIConfidence        *float64 `json:"nli_edge_confidence,omitempty"`
	NLIModel             *string  `json:"nli_model,omitempty"`
	SourceDomainCategory *string  `json:"source_domain_category,omitempty"`
	SourceTrustLevel     *string  `json:"source_trust_level,omitempty"`
	TargetTrustLevel     *string  `json:"target_trust_level,omitempty"`
	Domain               string   `json:"domain"`
	Source               Span     `json:"source"`
}

type GraphPage struct {
	ID            int64   `json:"id"`
	URL           string  `json:"url"`
	FinalURL      string  `json:"final_url,omitempty"`
	Domain        string  `json:"domain"`
	Title         string  `json:"title,omitempty"`
	DOI           *string `json:"doi,omitempty"`
	AbstractOnly  bool    `json:"abstract_only"`
	PageVersionID *int64  `json:"page_version_id,omitempty"`
	Reason        string  `json:"reason"`
	Depth         int32   `json:"depth"`
	TrustLevel    string  `json:"trust_level"` // the domain's level of record now (edges keep the level they were judged with)
}

type GraphCitation struct {
	Citing int64  `json:"citing_page_id"`
	Cited  int64  `json:"cited_page_id"`
	Source string `json:"citation_source"` // the APIs that reported it
}

type EvidenceSource struct {
	ClaimID    int64    `json:"claim_id"`
	EvidenceNo string   `json:"evidence_no"`
	PageID     int64    `json:"page_id"`
	URL        string   `json:"url"`
	Relations  []string `json:"relations"`
}

// Graph is the organization's task's evidence graph.
func (s *Service) Graph(ctx context.Context, org string, taskID int64) (*Graph, error) {
	st := s.st
	task, err := s.Task(ctx, org, taskID)
	if err != nil {
		return nil, err
	}
	g := &Graph{TaskID: taskID, Organization: task.OrganizationID, Hypothesis: task.Hypothesis,
		Claims: []GraphClaim{}, Edges: []GraphEdge{}, Pages: []GraphPage{}, EvidenceSource: []EvidenceSource{}}
	if g.Models, g.Notice, err = s.models(ctx, taskID); err != nil {
		return nil, err
	}
	claims, err := st.TaskClaims(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("claims: %w", err)
	}
	checks, err := citationChecks(ctx, st, taskID)
	if err != nil {
		return nil, err
	}
	if g.Rechecks, err = rechecks(ctx, st, taskID); err != nil {
		return nil, err
	}
	for _, c := range claims {
		gc := GraphClaim{ID: c.ID, EvidenceNo: fmt.Sprintf("E%d", c.EvidenceNo), Text: c.Text, Kind: c.Kind,
			Alpha: c.Alpha, Beta: c.Beta, Confidence: c.Confidence, Uncertainty: c.Uncertainty, Controversy: c.Controversy,
			Verdict: c.Verdict, Supporting: c.SupportingCount, Refuting: c.RefutingCount, Neutral: c.NeutralCount,
			IndependentSources: c.IndependentSources, EvidenceCount: c.EvidenceCount, AdoptionStatus: c.AdoptionStatus,
			Verification: c.VerificationStatus, VerificationReason: c.VerificationReason,
			SupportingSites: c.SupportingSites, RefutingSites: c.RefutingSites, ExtractorScore: c.LlmClaimConfidence, ExtractorModel: c.ExtractorModel,
			RefusedReason: c.RefusedReason, BeliefLogOdds: c.BeliefLogOdds, Belief: c.Belief,
			PropagatedLogOdds: c.PropagatedLogOdds, PropagatedBelief: c.PropagatedBelief}
		if c.PageVersionID != nil && c.OriginPageID != nil {
			gc.Origin = &Span{PageID: *c.OriginPageID, PageVersionID: *c.PageVersionID, StartChar: *c.QuoteStart,
				EndChar: *c.QuoteEnd, URL: c.OriginUrl, Text: c.QuoteText,
				Recheck: checks[spanKey{*c.PageVersionID, *c.QuoteStart, *c.QuoteEnd}]}
		}
		g.Claims = append(g.Claims, gc)
	}
	if g.ClaimLinks, err = s.ClaimLinks(ctx, org, taskID); err != nil {
		return nil, err
	}
	edges, err := st.TaskEdges(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("edges: %w", err)
	}
	type key struct{ claim, page int64 }
	sources := map[key]*EvidenceSource{}
	var order []key
	for _, e := range edges {
		no := fmt.Sprintf("E%d", e.EvidenceNo)
		g.Edges = append(g.Edges, GraphEdge{ID: e.ID, Relation: e.Relation, ClaimID: e.ClaimID, EvidenceNo: no,
			FragmentID: e.FragmentID, NLILabel: e.NliLabel, NLIConfidence: e.NliEdgeConfidence, NLIModel: e.NliModel,
			SourceDomainCategory: e.SourceDomainCategory, SourceTrustLevel: e.SourceTrustLevel, TargetTrustLevel: e.TargetTrustLevel,
			Domain: e.Domain,
			Source: Span{PageID: e.PageID, PageVersionID: e.PageVersionID, StartChar: e.StartChar, EndChar: e.EndChar,
				URL: e.Url, Text: e.SpanText, Recheck: checks[spanKey{e.PageVersionID, e.StartChar, e.EndChar}]}})
		k := key{e.ClaimID, e.PageID}
		s, ok := sources[k]
		if !ok {
			s = &EvidenceSource{ClaimID: e.ClaimID, EvidenceNo: no, PageID: e.PageID, URL: e.Url}
			sources[k] = s
			order = append(order, k)
		}
		if !containsString(s.Relations, e.Relation) {
			s.Relations = append(s.Relations, e.Relation)
		}
	}
	for _, k := range order {
		s := sources[k]
		sort.Strings(s.Relations)
		g.EvidenceSource = append(g.EvidenceSource, *s)
	}
	pages, err := st.TaskPages(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("pages: %w", err)
	}
	for _, p := range pages {
		g.Pages = append(g.Pages, GraphPage{ID: p.ID, URL: p.Url, FinalURL: p.FinalUrl, Domain: p.Domain, Title: p.Title,
			DOI: p.Doi, AbstractOnly: p.AbstractOnly, PageVersionID: p.PageVersionID, Reason: p.Reason, Depth: p.Depth,
			TrustLevel: p.TrustLevel})
	}
	ranking, err := s.ranking(ctx, task, "")
	if err != nil {
		return nil, err
	}
	g.Ranking = ranking.Ranking
	cites, err := st.TaskCitations(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("citations: %w", err)
	}
	g.Citations = []GraphCitation{}
	var citeEdges []citecheck.Edge
	citePages := map[int64]citecheck.Page{}
	for _, c := range cites {
		g.Citations = append(g.Citations, GraphCitation{Citing: c.CitingPageID, Cited: c.CitedPageID, Source: c.CitationSource})
		citeEdges = append(citeEdges, citecheck.Edge{Citing: c.CitingPageID, Cited: c.CitedPageID})
		citePages[c.CitingPageID] = citecheck.Page{Domain: c.CitingDomain, Authors: c.CitingAuthors}
		citePages[c.CitedPageID] = citecheck.Page{Domain: c.CitedDomain, Authors: c.CitedAuthors}
	}
	g.CitationChecks = citecheck.Check(citeEdges, citePages)
	return g, nil
}

func containsString(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
