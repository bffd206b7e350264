package citecheck

import (
	"fmt"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	pages := map[int64]Page{
		1: {Domain: "doi.org", Authors: []string{"A. Turing", "C. Shannon"}},
		2: {Domain: "doi.org", Authors: []string{"c.  shannon"}},
		3: {Domain: "doi.org", Authors: []string{"J. von Neumann"}},
		4: {Domain: "blog.example.org"},
		5: {Domain: "blog.example.org"},
		6: {Domain: "news.example.com"},
	}
	edges := []Edge{
		{1, 2}, {2, 3}, {3, 1}, // a 3-cycle
		{2, 1},         // and a round trip inside it
		{4, 5}, {5, 6}, // same site, then another site
		{6, 6}, // a self-loop is ignored
		{1, 2}, // a duplicate is ignored
	}
	r := Check(edges, pages)
	tests := []struct {
		name, got, want string
	}{
		{"cycles", fmt.Sprint(r.Cycles), "[[1 2 3]]"},
		{"round trips", fmt.Sprint(r.RoundTrips), "[[1 2]]"},
		{"self-citations", fmt.Sprint(r.SelfCitations), "[{1 2 [C. Shannon] } {2 1 [c.  shannon] }]"},
		{"same domain (not the DOI resolver)", fmt.Sprint(r.SameDomain), "[{4 5 [] blog.example.org}]"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, tt.got, tt.want)
		}
	}
	empty := Check(nil, nil)
	if empty.Cycles == nil || empty.RoundTrips == nil || empty.SelfCitations == nil || empty.SameDomain == nil {
		t.Error("empty lists must not be nil (they are JSON arrays)")
	}
}

func TestTwoSeparateCycles(t *testing.T) {
	t.Parallel()
	r := Check([]Edge{{10, 11}, {11, 10}, {20, 21}, {21, 22}, {22, 20}, {11, 20}}, nil)
	if got := fmt.Sprint(r.Cycles); got != "[[10 11] [20 21 22]]" {
		t.Errorf("cycles %s", got)
	}
}
