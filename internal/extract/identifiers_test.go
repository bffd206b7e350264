package extract

import (
	"reflect"
	"testing"
)

func TestIdentifiers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		html string
		text string
		want []Identifier
	}{
		{"meta tags", `<html><head>
<meta name="citation_doi" content="https://doi.org/10.1038/NCLIMATE2999">
<meta name="DC.Identifier" content="doi:10.5194/ESD-9-1-2018">
<meta name="dc.identifier" content="ISBN 978-3-16-148410-0">
<meta name="citation_pmid" content="PMID: 0029512345">
<meta property="citation_arxiv_id" content="arXiv:2101.01234v3">
</head><body></body></html>`, "",
			[]Identifier{{"arxiv", "2101.01234"}, {"doi", "10.1038/nclimate2999"}, {"doi", "10.5194/esd-9-1-2018"}, {"pmid", "29512345"}}},
		{"links", `<p><a href="https://doi.org/10.1126/science.aaa4019">a</a>
<a href="http://dx.doi.org/10.1002%2Fjoc.1234">b</a>
<a href="https://pubmed.ncbi.nlm.nih.gov/31234567/">c</a>
<a href="https://www.ncbi.nlm.nih.gov/pubmed/7654321">d</a>
<a href="https://arxiv.org/abs/1706.03762v5">e</a>
<a href="https://arxiv.org/pdf/hep-th/9901001v2.pdf">f</a>
<link rel="alternate" href="https://export.arxiv.org/abs/math.AG/0101001">
<a href="https://example.org/10.1234/not-a-doi-link">g</a>
<a href="https://pubmed.ncbi.nlm.nih.gov/?term=climate">h</a></p>`, "",
			[]Identifier{{"arxiv", "1706.03762"}, {"arxiv", "hep-th/9901001"}, {"arxiv", "math.AG/0101001"},
				{"doi", "10.1002/joc.1234"}, {"doi", "10.1126/science.aaa4019"}, {"pmid", "31234567"}, {"pmid", "7654321"}}},
		{"text", "", `As shown by Smith (doi:10.1016/S0140-6736(20)30183-5), warming continues (PMID: 12345678).
See also https://doi.org/10.1038/nature12373. Preprint arXiv:2303.08774v2; older arXiv: cond-mat/0603029.
Listed at pubmed.ncbi.nlm.nih.gov/23456789 too. Not ids: PMC1234567, 10.12/too-short, version 2.10.1.`,
			[]Identifier{{"arxiv", "2303.08774"}, {"arxiv", "cond-mat/0603029"}, {"doi", "10.1016/s0140-6736(20)30183-5"},
				{"doi", "10.1038/nature12373"}, {"pmid", "12345678"}, {"pmid", "23456789"}}},
		{"dedupe across sources", `<meta name="citation_doi" content="10.1038/nature12373"><a href="https://doi.org/10.1038/NATURE12373">x</a>`,
			"doi: 10.1038/nature12373.", []Identifier{{"doi", "10.1038/nature12373"}}},
		{"nothing", `<html><body><p>No identifiers here.</p></body></html>`, "Plain text 2024.", []Identifier{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Identifiers([]byte(tc.html), tc.text)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestMetaIdentifiers(t *testing.T) {
	t.Parallel()
	got := MetaIdentifiers([]byte(articlePage))
	want := []Identifier{{"arxiv", "2101.01234"}, {"doi", "10.1038/nclimate2999"}, {"doi", "10.5194/esd-9-1-2018"}, {"pmid", "29512345"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
	// Identifiers also picks up the cited works linked from the article.
	all := Identifiers([]byte(articlePage), "")
	if len(all) != len(want)+3 {
		t.Fatalf("Identifiers = %v", all)
	}
}
