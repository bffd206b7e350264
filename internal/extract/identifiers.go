package extract

import (
	"bytes"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/net/html"

	"github.com/evidencefleet/evidencefleet/internal/ident"
)

// Identifier types.
const (
	IDDOI   = ident.DOI
	IDPMID  = ident.PMID
	IDArXiv = ident.ArXiv
)

// Identifier is an academic identifier found in a page.
type Identifier struct {
	// Type is "doi", "pmid" or "arxiv".
	Type string
	// Value is normalised: a DOI lowercased without resolver prefix or "doi:";
	// an arXiv id without "arXiv:" and without version suffix; a PMID as digits.
	Value string
}

var (
	rxDOI       = regexp.MustCompile(`10\.\d{4,9}/[^\s"'<>“”‘’«»]+`)
	rxPMIDText  = regexp.MustCompile(`(?i)\bPMID:?\s*(\d{1,9})\b`)
	rxPubMedURL = regexp.MustCompile(`(?i)(?:pubmed\.ncbi\.nlm\.nih\.gov/|ncbi\.nlm\.nih\.gov/pubmed/)(\d{1,9})\b`)
	arxivID     = `(\d{4}\.\d{4,5}(?:v\d+)?|[a-z][a-z\-]*(?:\.[A-Za-z]{2})?/\d{7}(?:v\d+)?)`
	rxArxivText = regexp.MustCompile(`(?i)(?:\barxiv:\s*|arxiv\.org/(?:abs|pdf)/)` + arxivID)
)

// Identifiers finds DOI, PMID and arXiv identifiers in an HTML page and its
// text: meta tags (citation_doi, dc.identifier and its variants, prism.doi,
// citation_pmid, citation_arxiv_id), links (<a>/<link> href) to doi.org,
// dx.doi.org, pubmed.ncbi.nlm.nih.gov/NNN, ncbi.nlm.nih.gov/pubmed/NNN,
// arxiv.org/abs/ID and arxiv.org/pdf/ID, and mentions in text (DOIs
// "10.NNNN/…", "PMID: NNN", "arXiv:ID", PubMed/arXiv URLs). The result is
// deduplicated and sorted by Type then Value. Note that links and text also
// yield the identifiers of cited works; MetaIdentifiers returns only the ids
// the page declares for itself.
func Identifiers(htmlBody []byte, text string) []Identifier {
	set := map[Identifier]bool{}
	scanHTMLIdentifiers(htmlBody, true, set)
	textIdentifiers(text, set)
	return sortedIDs(set)
}

// MetaIdentifiers returns only the identifiers declared in the page's meta
// tags (the page's own DOI/PMID/arXiv id), deduplicated and sorted.
func MetaIdentifiers(htmlBody []byte) []Identifier {
	set := map[Identifier]bool{}
	scanHTMLIdentifiers(htmlBody, false, set)
	return sortedIDs(set)
}

func sortedIDs(set map[Identifier]bool) []Identifier {
	out := make([]Identifier, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	slices.SortFunc(out, func(a, b Identifier) int {
		if c := strings.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		return strings.Compare(a.Value, b.Value)
	})
	return out
}

func add(set map[Identifier]bool, typ, v string) {
	if v != "" {
		set[Identifier{Type: typ, Value: v}] = true
	}
}

func scanHTMLIdentifiers(body []byte, links bool, set map[Identifier]bool) {
	if len(body) == 0 {
		return
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if !hasAttr {
			continue
		}
		switch string(name) {
		case "meta":
			var key, content, scheme string
			for more := true; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "name", "property":
					if key == "" {
						key = strings.ToLower(strings.TrimSpace(string(v)))
					}
				case "content":
					content = string(v)
				case "scheme":
					scheme = strings.ToLower(string(v))
				}
			}
			metaIdentifier(key, scheme, content, set)
		case "a", "link":
			if !links {
				continue
			}
			for more := true; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				if string(k) == "href" {
					linkIdentifier(string(v), set)
				}
			}
		}
	}
}

func metaIdentifier(key, scheme, content string, set map[Identifier]bool) {
	switch key {
	case "citation_doi", "prism.doi", "bepress_citation_doi", "dc.identifier.doi", "doi":
		add(set, IDDOI, ident.NormalizeDOI(content))
	case "dc.identifier", "dcterms.identifier", "dc.identifier.uri", "citation_id":
		if m := rxDOI.FindString(content); m != "" {
			add(set, IDDOI, ident.NormalizeDOI(m))
		} else if strings.Contains(scheme, "pmid") {
			add(set, IDPMID, ident.NormalizePMID(content))
		}
	case "citation_pmid", "dc.identifier.pmid", "pmid":
		add(set, IDPMID, ident.NormalizePMID(content))
	case "citation_arxiv_id", "arxiv_id":
		add(set, IDArXiv, ident.NormalizeArXiv(content))
	}
}

func linkIdentifier(href string, set map[Identifier]bool) {
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil || u.Host == "" {
		return
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	p := strings.TrimPrefix(u.Path, "/")
	switch host {
	case "doi.org", "dx.doi.org":
		add(set, IDDOI, ident.NormalizeDOI(p))
	case "pubmed.ncbi.nlm.nih.gov":
		add(set, IDPMID, ident.NormalizePMID(strings.TrimSuffix(p, "/")))
	case "ncbi.nlm.nih.gov":
		if rest, ok := strings.CutPrefix(p, "pubmed/"); ok {
			add(set, IDPMID, ident.NormalizePMID(strings.TrimSuffix(rest, "/")))
		}
	case "arxiv.org", "export.arxiv.org":
		if rest, ok := strings.CutPrefix(p, "abs/"); ok {
			add(set, IDArXiv, ident.NormalizeArXiv(rest))
		} else if rest, ok := strings.CutPrefix(p, "pdf/"); ok {
			add(set, IDArXiv, ident.NormalizeArXiv(strings.TrimSuffix(rest, ".pdf")))
		}
	}
}

func textIdentifiers(text string, set map[Identifier]bool) {
	if text == "" {
		return
	}
	if strings.Contains(text, "10.") {
		for _, m := range rxDOI.FindAllString(text, -1) {
			add(set, IDDOI, ident.NormalizeDOI(m))
		}
	}
	if strings.Contains(text, "PMID") || strings.Contains(text, "pmid") || strings.Contains(text, "ncbi") {
		for _, m := range rxPMIDText.FindAllStringSubmatch(text, -1) {
			add(set, IDPMID, ident.NormalizePMID(m[1]))
		}
		for _, m := range rxPubMedURL.FindAllStringSubmatch(text, -1) {
			add(set, IDPMID, ident.NormalizePMID(m[1]))
		}
	}
	if strings.Contains(strings.ToLower(text), "arxiv") {
		for _, m := range rxArxivText.FindAllStringSubmatch(text, -1) {
			add(set, IDArXiv, ident.NormalizeArXiv(m[1]))
		}
	}
}
