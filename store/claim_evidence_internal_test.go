package store

import (
	"fmt"
	"testing"
)

// BenchmarkSumEvidence sums a verify_nli round's read: 50 claims of 20
// edges each from 12 domains, a third of them supports, refutes and
// neutral, some below source verification's floor.
func BenchmarkSumEvidence(b *testing.B) {
	var rows []ClaimEvidenceRow
	relations := []string{"supports", "refutes", "neutral"}
	for c := range 50 {
		for e := range 20 {
			domain := fmt.Sprintf("site%d.example", (c+e)%12)
			rows = append(rows, ClaimEvidenceRow{ClaimID: int64(c + 1), OrganizationID: "org", OriginDomain: "origin.example",
				OriginSite: "origin.example", OriginLevel: "UNVERIFIED", EdgeID: int64(c*20 + e + 1), Relation: relations[e%3],
				Confidence: 0.5 + float64(e%5)/10, Relevance: 0.6, HasSource: true, Domain: domain, Site: domain, Level: "UNVERIFIED"})
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if t, _ := sumEvidence(rows, 0.7); len(t) != 50 {
			b.Fatalf("%d tallies", len(t))
		}
	}
}
