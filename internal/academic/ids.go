package academic

import (
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/ident"
)

// NormalizeDOI returns doi in the form the graph stores and compares
// (ident.NormalizeDOI, the one normaliser of the codebase): resolver and
// scheme prefixes removed, percent-decoded, lower case; "" when it is not a
// DOI.
func NormalizeDOI(doi string) string { return ident.NormalizeDOI(doi) }

// NormalizePMID returns the bare PubMed id of pmid ("29456894" from
// "https://pubmed.ncbi.nlm.nih.gov/29456894", "PMID:29456894" or
// " 29456894 "), or "" when it is not all digits.
func NormalizePMID(pmid string) string {
	p := strings.TrimSpace(pmid)
	for _, pre := range []string{"https://pubmed.ncbi.nlm.nih.gov/", "http://pubmed.ncbi.nlm.nih.gov/",
		"https://www.ncbi.nlm.nih.gov/pubmed/", "http://www.ncbi.nlm.nih.gov/pubmed/", "pmid:"} {
		if len(p) >= len(pre) && strings.EqualFold(p[:len(pre)], pre) {
			p = strings.TrimSpace(p[len(pre):])
			break
		}
	}
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return ""
	}
	for _, r := range p {
		if r < '0' || r > '9' {
			return ""
		}
	}
	return p
}

// NormalizeArXiv returns the bare arXiv id of id ("2208.04425v2" from
// "arXiv:2208.04425v2" or "https://arxiv.org/abs/2208.04425v2"), trimmed;
// old-style ids keep their archive ("hep-th/9901001"). The version suffix,
// if any, is kept. It returns "" for an empty id.
func NormalizeArXiv(id string) string {
	a := strings.TrimSpace(id)
	for _, pre := range []string{"https://arxiv.org/abs/", "http://arxiv.org/abs/", "https://arxiv.org/pdf/",
		"http://arxiv.org/pdf/", "arxiv.org/abs/", "arxiv:"} {
		if len(a) >= len(pre) && strings.EqualFold(a[:len(pre)], pre) {
			a = strings.TrimSpace(a[len(pre):])
			break
		}
	}
	a = strings.TrimSuffix(a, ".pdf")
	return a
}
