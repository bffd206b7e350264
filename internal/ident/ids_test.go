package ident

import "testing"

func TestNormalize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://doi.org/10.1000/ABC.def": "10.1000/abc.def",
		"DOI:10.1000/x)":                  "10.1000/x",
		"10.1000/a(b)":                    "10.1000/a(b)",
		"info:doi/10.1000/xyz.":           "10.1000/xyz",
		"10.1/short":                      "",
		"not a doi":                       "",
	} {
		if got := NormalizeDOI(in); got != want {
			t.Errorf("NormalizeDOI(%q) = %q want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"arXiv:2101.01234v12": "2101.01234",
		"1706.03762":          "1706.03762",
		"HEP-TH/9901001v1":    "hep-th/9901001",
		"math.ag/0101001":     "math.AG/0101001",
		"2101.1":              "",
		"arxiv.org":           "",
	} {
		if got := NormalizeArXiv(in); got != want {
			t.Errorf("NormalizeArXiv(%q) = %q want %q", in, got, want)
		}
	}
}
