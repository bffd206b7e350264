package service

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/domainpolicy"
	"github.com/evidencefleet/evidencefleet/store"
)

// DomainCount is one domain of a source review as the organization sees
// it: its level now (and its view's own and the fleet's, "" when none),
// how many pages of it the organization's tasks reached, and how many of
// the organization's claims were extracted from it and are rejected.
type DomainCount struct {
	Domain         string `json:"domain"`
	Level          string `json:"level"`
	OwnLevel       string `json:"own_level"`
	FleetLevel     string `json:"fleet_level"`
	Pages          int    `json:"pages"`
	Claims         int    `json:"claims"`
	RejectedClaims int    `json:"rejected_claims"`
}

// SourceReview is seed 002 §4's source review over all the organization's
// tasks: the domains their pages are from by level, and the blocks and
// flags a person should look at.
type SourceReview struct {
	// Domains are the domains of the pages the organization's tasks
	// reached, by level (BLOCKED first, then best first), then domain; at
	// most the limit asked for.
	Domains []DomainCount  `json:"domains"`
	ByLevel map[string]int `json:"domains_by_level"` // every domain, not only those listed
	// Blocked and Flagged are as Status gives them for one task, over the
	// domains of all the organization's pages and failed URL targets.
	Blocked []BlockedDomain `json:"blocked_domains"`
	Flagged []FlaggedDomain `json:"flagged_domains"`
}

// SourceReview's page sizes.
const (
	DefaultReviewLimit = 200
	MaxReviewLimit     = 1000
)

// SourceReview reviews the sources of all the organization's tasks: at
// most limit domains (0: DefaultReviewLimit, at most MaxReviewLimit).
func (s *Service) SourceReview(ctx context.Context, org string, limit int) (SourceReview, error) {
	out := SourceReview{Domains: []DomainCount{}, ByLevel: map[string]int{}}
	limit, err := pageLimit(limit, DefaultReviewLimit, MaxReviewLimit)
	if err != nil {
		return out, err
	}
	rows, err := s.st.OrgReviewDomains(ctx, org)
	if err != nil {
		return out, fmt.Errorf("review %s's domains: %w", org, err)
	}
	slices.SortStableFunc(rows, func(a, b store.OrgReviewDomainsRow) int {
		return cmp.Or(cmp.Compare(reviewRank(a.Level), reviewRank(b.Level)), strings.Compare(a.Domain, b.Domain))
	})
	domains := make([]string, 0, len(rows))
	for _, r := range rows {
		out.ByLevel[r.Level]++
		domains = append(domains, r.Domain)
		if len(out.Domains) < limit {
			out.Domains = append(out.Domains, DomainCount{Domain: r.Domain, Level: r.Level, OwnLevel: r.OwnLevel, FleetLevel: r.FleetLevel,
				Pages: int(r.Pages), Claims: int(r.Claims), RejectedClaims: int(r.RejectedClaims)})
		}
	}
	failed, err := s.st.OrgFailedURLTargets(ctx, org)
	if err != nil {
		return out, fmt.Errorf("review %s's failed targets: %w", org, err)
	}
	for _, url := range failed {
		domains = appendURLDomain(domains, url)
	}
	if out.Blocked, out.Flagged, err = blockedDomains(ctx, s.st, org, domains); err != nil {
		return out, err
	}
	return out, nil
}

// reviewRank orders levels for review: BLOCKED first, then best first.
func reviewRank(level string) int {
	if level == domainpolicy.Blocked {
		return -1
	}
	if i := slices.Index(domainpolicy.Levels, level); i >= 0 {
		return i
	}
	return len(domainpolicy.Levels)
}

// AuditEntry is one change the organization made, or that was made to
// its view: a domain level change (Action set, block, unblock, clear, or
// a rule's promote or flag), a claim's rejection or restoration, or an
// edge's correction.
type AuditEntry struct {
	ID         string    `json:"id"` // "domain:12", "claim:4", "edge:9": the kind and its audit row
	At         time.Time `json:"at"`
	Kind       string    `json:"kind"` // domain | claim | edge
	Action     string    `json:"action"`
	Domain     string    `json:"domain"` // the domain changed, or the claim's origin or the edge premise's domain
	ClaimID    int64     `json:"claim_id,omitempty"`
	EdgeID     int64     `json:"edge_id,omitempty"`
	TaskID     int64     `json:"task_id,omitempty"`
	EvidenceNo string    `json:"evidence_no,omitempty"`
	Old        string    `json:"old"` // the levels of a domain change, the relations of a correction; "" where none
	New        string    `json:"new"`
	Reason     string    `json:"reason"`
	By         string    `json:"by"`
	TokenID    *int64    `json:"token_id"` // the API token it came through; nil from the CLI or a rule
}

// AuditPage is one page of Audit: Next is the cursor of the next page, ""
// at the end.
type AuditPage struct {
	Items []AuditEntry `json:"items"`
	Next  string       `json:"next_cursor,omitempty"`
}

// Audit's page sizes.
const (
	DefaultAuditLimit = 50
	MaxAuditLimit     = 500
)

// auditKinds are AuditEntry's kinds, by the rank OrgAudit gives them.
var auditKinds = []string{"domain", "claim", "edge"}

// Audit lists the organization's own changes, newest first, limit at a
// time (0: DefaultAuditLimit, at most MaxAuditLimit) from cursor ("" from
// the newest): the changes of its view of domains, whoever made them, and
// the claim feedback and edge corrections recorded as its. Feedback goes
// with its claim or edge when a task is cleaned up; domain changes stay.
func (s *Service) Audit(ctx context.Context, org string, limit int, cursor string) (AuditPage, error) {
	out := AuditPage{Items: []AuditEntry{}}
	limit, err := pageLimit(limit, DefaultAuditLimit, MaxAuditLimit)
	if err != nil {
		return out, err
	}
	p := store.OrgAuditParams{OrganizationID: org, MaxRows: int32(limit + 1)}
	if p.BeforeAt, p.BeforeRank, p.BeforeID, err = parseAuditCursor(cursor); err != nil {
		return out, err
	}
	rows, err := s.st.OrgAudit(ctx, p)
	if err != nil {
		return out, fmt.Errorf("audit of %s: %w", org, err)
	}
	for i, r := range rows {
		if i == limit {
			last := rows[limit-1]
			out.Next = fmt.Sprintf("%d.%d.%d", last.At.UnixMicro(), last.Rank, last.ID)
			break
		}
		kind := auditKinds[r.Rank]
		e := AuditEntry{ID: fmt.Sprintf("%s:%d", kind, r.ID), At: r.At, Kind: kind, Action: r.Action, Domain: r.Domain,
			ClaimID: r.ClaimID, EdgeID: r.EdgeID, TaskID: r.TaskID, Old: r.Old, New: r.New, Reason: r.Reason, By: r.SetBy, TokenID: r.TokenID}
		if r.EvidenceNo > 0 {
			e.EvidenceNo = fmt.Sprintf("E%d", r.EvidenceNo)
		}
		out.Items = append(out.Items, e)
	}
	return out, nil
}

// parseAuditCursor reads a cursor of Audit ("micros.rank.id": the entry
// the previous page ended on); "" is the start.
func parseAuditCursor(c string) (*time.Time, int32, int64, error) {
	if c == "" {
		return nil, 0, 0, nil
	}
	parts := strings.Split(c, ".")
	bad := badInput("cursor %q: not one this service gave", c)
	if len(parts) != 3 {
		return nil, 0, 0, bad
	}
	at, err1 := strconv.ParseInt(parts[0], 10, 64)
	rank, err2 := strconv.ParseInt(parts[1], 10, 32)
	id, err3 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || rank < 0 || int(rank) >= len(auditKinds) || id <= 0 {
		return nil, 0, 0, bad
	}
	t := time.UnixMicro(at)
	return &t, int32(rank), id, nil
}
