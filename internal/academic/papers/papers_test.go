package papers

import (
	"fmt"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/academic"
)

func TestLooksAcademic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		q    string
		want bool
	}{
		{"polar bears", false},
		{"sea level rise 2024", false},
		{"randomized controlled trial vitamin D", true},
		{"meta-analysis of sea ice decline", true},
		{"effect of ocean warming on coral", true},
		{"10.1093/mind/lix.236.433", true},
		{"Turing et al machines", true},
		{"", false},
	}
	for _, tt := range tests {
		if got := LooksAcademic(tt.q); got != tt.want {
			t.Errorf("LooksAcademic(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

func TestMergeDOIsAndLinks(t *testing.T) {
	t.Parallel()
	s2 := []academic.Paper{{DOI: "10.1000/A"}, {Title: "no doi"}, {DOI: "10.1000/b"}}
	oa := []academic.Paper{{DOI: "https://doi.org/10.1000/a"}, {DOI: "10.1000/c"}}
	if got := fmt.Sprint(MergeDOIs(10, s2, oa)); got != "[10.1000/a 10.1000/b 10.1000/c]" {
		t.Errorf("merged %s", got)
	}
	if got := fmt.Sprint(MergeDOIs(2, s2, oa)); got != "[10.1000/a 10.1000/b]" {
		t.Errorf("limited %s", got)
	}
	n := MergeLinks(nil, []academic.Link{
		{Paper: academic.Paper{DOI: "10.1000/x", S2ID: "s1"}, Influential: true, Source: academic.SourceSemanticScholar},
		{Paper: academic.Paper{Title: "no id at all"}, Source: academic.SourceSemanticScholar},
	}, true)
	n = MergeLinks(n, []academic.Link{
		{Paper: academic.Paper{DOI: "10.1000/x", OpenAlexID: "W1", Abstract: "from OpenAlex"}, Source: academic.SourceOpenAlex},
		{Paper: academic.Paper{DOI: "10.1000/y", OpenAlexID: "W2"}, Source: academic.SourceOpenAlex},
	}, true)
	if len(n) != 2 {
		t.Fatalf("%d neighbors, want 2 (merged by DOI, the id-less link dropped)", len(n))
	}
	x := n[0]
	if !x.Influential || x.Paper.OpenAlexID != "W1" || x.Paper.S2ID != "s1" || x.Paper.Abstract != "from OpenAlex" ||
		fmt.Sprint(x.Sources) != "["+academic.SourceOpenAlex+" "+academic.SourceSemanticScholar+"]" {
		t.Errorf("merged neighbor %+v", x)
	}
}
