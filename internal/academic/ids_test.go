package academic

import "testing"

func TestNormalizeDOI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"bare", "10.7717/peerj.4375", "10.7717/peerj.4375"},
		{"upper case", "10.1093/MIND/LIX.236.433", "10.1093/mind/lix.236.433"},
		{"https resolver", "https://doi.org/10.7717/peerj.4375", "10.7717/peerj.4375"},
		{"http resolver", "http://doi.org/10.7717/PEERJ.4375", "10.7717/peerj.4375"},
		{"dx resolver", "https://dx.doi.org/10.1000/182", "10.1000/182"},
		{"resolver upper case", "HTTPS://DOI.ORG/10.1000/182", "10.1000/182"},
		{"resolver without scheme", "doi.org/10.1000/182", "10.1000/182"},
		{"doi scheme", "doi:10.1000/182", "10.1000/182"},
		{"DOI scheme with space", "DOI: 10.1000/182", "10.1000/182"},
		{"info uri", "info:doi/10.1000/182", "10.1000/182"},
		{"surrounding space", "  10.1000/182 \n", "10.1000/182"},
		{"scheme then resolver", "doi:https://doi.org/10.1000/182", "10.1000/182"},
		{"percent-encoded URL", "https://doi.org/10.1002/%28SICI%291097-4636", "10.1002/(sici)1097-4636"},
		{"suffix keeps its slashes", "10.48550/arXiv.2208.04425/v2", "10.48550/arxiv.2208.04425/v2"},
		{"sici characters kept", "10.1002/(SICI)1097-4636(199706)35:4<451::AID-JBM5>3.0.CO;2-K",
			"10.1002/(sici)1097-4636(199706)35:4<451::aid-jbm5>3.0.co;2-k"},
		{"empty", "", ""},
		{"only a prefix", "https://doi.org/", ""},
		{"no suffix", "10.1000/", ""},
		{"no slash", "10.1000", ""},
		{"not a DOI", "https://example.org/paper", ""},
		{"registrant missing", "10./abc", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := NormalizeDOI(tt.in); got != tt.want {
				t.Errorf("NormalizeDOI(%q) = %q, want %q", tt.in, got, tt.want)
			}
			// Normalising is idempotent.
			if got := NormalizeDOI(NormalizeDOI(tt.in)); got != tt.want {
				t.Errorf("NormalizeDOI twice on %q = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormalizePMID(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"29456894", "29456894"},
		{" 29456894 ", "29456894"},
		{"https://pubmed.ncbi.nlm.nih.gov/29456894", "29456894"},
		{"https://pubmed.ncbi.nlm.nih.gov/29456894/", "29456894"},
		{"PMID:29456894", "29456894"},
		{"pmid: 29456894", "29456894"},
		{"https://www.ncbi.nlm.nih.gov/pubmed/29456894", "29456894"},
		{"PMC5815332", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := NormalizePMID(tt.in); got != tt.want {
			t.Errorf("NormalizePMID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNormalizeArXiv(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"2208.04425", "2208.04425"},
		{"arXiv:2208.04425v2", "2208.04425v2"},
		{"ARXIV:2208.04425", "2208.04425"},
		{"https://arxiv.org/abs/2208.04425", "2208.04425"},
		{"https://arxiv.org/pdf/2208.04425.pdf", "2208.04425"},
		{"hep-th/9901001", "hep-th/9901001"},
		{" ", ""},
	}
	for _, tt := range tests {
		if got := NormalizeArXiv(tt.in); got != tt.want {
			t.Errorf("NormalizeArXiv(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLimitDefaults(t *testing.T) {
	t.Parallel()
	if got := (Limit{}).Items(); got != DefaultMaxItems {
		t.Errorf("zero Limit Items() = %d, want %d", got, DefaultMaxItems)
	}
	if got := (Limit{}).Pages(); got != DefaultMaxPages {
		t.Errorf("zero Limit Pages() = %d, want %d", got, DefaultMaxPages)
	}
	if got := (Limit{MaxItems: 7, MaxPages: 2}); got.Items() != 7 || got.Pages() != 2 {
		t.Errorf("Limit{7, 2} = %d items, %d pages", got.Items(), got.Pages())
	}
}
