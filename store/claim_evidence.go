package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// ClaimEvidenceSums reads the claims' edges and origins in one statement
// (ClaimEvidence) and sums them (sumEvidence) into what the posterior, the
// belief and source verification are decided from.
func (q *Queries) ClaimEvidenceSums(ctx context.Context, claimIDs []int64, minConfidence float64) ([]ClaimTalliesRow, []ClaimSiteEdgesRow, error) {
	rows, err := q.ClaimEvidence(ctx, claimIDs)
	if err != nil {
		return nil, nil, fmt.Errorf("read the claims' evidence: %w", err)
	}
	tallies, sites := sumEvidence(rows, minConfidence)
	return tallies, sites, nil
}

// sumEvidence is ClaimTallies and ClaimSiteEdges (verify_nli.sql) of the
// rows of ClaimEvidence, which come in claim then edge id order:
//   - a claim's tally counts its supports and refutes edges of positive
//     confidence (their confidences summed), its neutral edges, and the
//     distinct sites of the former; its belief's inputs are those edges,
//     in edge id order, less the ones whose source is BLOCKED;
//   - its confident edges by site (confidence ≥ minConfidence, source page
//     known) are one per relation and domain, the strongest (the lowest
//     edge id among equals), ordered by relation and domain (byte order),
//     with an unknown level as UNVERIFIED.
func sumEvidence(rows []ClaimEvidenceRow, minConfidence float64) ([]ClaimTalliesRow, []ClaimSiteEdgesRow) {
	var tallies []ClaimTalliesRow
	var sites []ClaimSiteEdgesRow
	sum := evidenceSum{independent: map[string]bool{}, best: map[siteKey]int{}}
	for start := 0; start < len(rows); {
		end := start + 1
		for end < len(rows) && rows[end].ClaimID == rows[start].ClaimID {
			end++
		}
		var t ClaimTalliesRow
		t, sites = sum.claim(rows[start:end], minConfidence, sites)
		tallies = append(tallies, t)
		start = end
	}
	return tallies, sites
}

// evidenceSum holds sumEvidence's scratch maps, cleared for each claim.
type evidenceSum struct {
	independent map[string]bool // sites of the claim's counted edges
	best        map[siteKey]int // a relation and domain's edge, by index into sites
}

type siteKey struct{ relation, domain string }

// claim sums the rows of one claim (sumEvidence), appending its confident
// edges by site to sites.
func (sum *evidenceSum) claim(rows []ClaimEvidenceRow, minConfidence float64, sites []ClaimSiteEdgesRow) (ClaimTalliesRow, []ClaimSiteEdgesRow) {
	c := rows[0]
	t := ClaimTalliesRow{ClaimID: c.ClaimID, OriginDomain: c.OriginDomain, OriginSite: c.OriginSite, OriginLevel: c.OriginLevel,
		HasConflicts: c.HasConflicts, OrganizationID: c.OrganizationID,
		BeliefRelations: make([]string, 0, len(rows)), BeliefStrengths: make([]float64, 0, len(rows)),
		BeliefRelevances: make([]float64, 0, len(rows))}
	clear(sum.independent)
	clear(sum.best)
	independent, best, first := sum.independent, sum.best, len(sites)
	for _, r := range rows {
		if r.EdgeID == 0 {
			continue // a claim without edges
		}
		if r.Relation == "neutral" {
			t.Neutral++
			continue
		}
		if r.Relation != "supports" && r.Relation != "refutes" {
			continue
		}
		if r.Confidence > 0 {
			if r.Relation == "supports" {
				t.SupportSum += r.Confidence
				t.Supporting++
			} else {
				t.RefuteSum += r.Confidence
				t.Refuting++
			}
			if r.HasSource {
				independent[r.Site] = true
			}
			if r.Level != "BLOCKED" {
				t.BeliefRelations = append(t.BeliefRelations, r.Relation)
				t.BeliefStrengths = append(t.BeliefStrengths, r.Confidence)
				t.BeliefRelevances = append(t.BeliefRelevances, r.Relevance)
			}
		}
		if !r.HasSource || r.Confidence < minConfidence {
			continue
		}
		level := r.Level
		if level == "" {
			level = "UNVERIFIED"
		}
		k := siteKey{r.Relation, r.Domain}
		if i, ok := best[k]; !ok {
			best[k] = len(sites)
			sites = append(sites, ClaimSiteEdgesRow{ClaimID: r.ClaimID, Relation: r.Relation, Domain: r.Domain, Site: r.Site,
				Level: level, Confidence: r.Confidence, EdgeID: r.EdgeID})
		} else if r.Confidence > sites[i].Confidence { // rows are in edge id order: the first of equals stays
			sites[i].Confidence, sites[i].EdgeID = r.Confidence, r.EdgeID
		}
	}
	t.IndependentSources = int32(len(independent))
	slices.SortFunc(sites[first:], func(a, b ClaimSiteEdgesRow) int {
		return cmp.Or(cmp.Compare(a.Relation, b.Relation), cmp.Compare(a.Domain, b.Domain))
	})
	return t, sites
}
