package s2

import (
	"strconv"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/academic"
)

// paperJSON is the Graph API's paper object (the fields this package reads;
// any may be absent or null).
type paperJSON struct {
	PaperID          string         `json:"paperId"`
	CorpusID         int64          `json:"corpusId"`
	ExternalIDs      map[string]any `json:"externalIds"` // strings, CorpusId a number
	URL              string         `json:"url"`
	Title            string         `json:"title"`
	Abstract         string         `json:"abstract"`
	Venue            string         `json:"venue"`
	PublicationVenue *struct {
		Name string `json:"name"`
	} `json:"publicationVenue"`
	Journal *struct {
		Name string `json:"name"`
	} `json:"journal"`
	Year            int    `json:"year"`
	PublicationDate string `json:"publicationDate"`
	Authors         []struct {
		Name string `json:"name"`
	} `json:"authors"`
	CitationCount            int `json:"citationCount"`
	ReferenceCount           int `json:"referenceCount"`
	InfluentialCitationCount int `json:"influentialCitationCount"`
}

// linkJSON is one item of a /references or /citations answer.
type linkJSON struct {
	IsInfluential bool       `json:"isInfluential"`
	Contexts      []string   `json:"contexts"`
	Intents       []string   `json:"intents"`
	CitedPaper    *paperJSON `json:"citedPaper"`  // in /references
	CitingPaper   *paperJSON `json:"citingPaper"` // in /citations
}

// pageJSON is one page of a /references or /citations answer; Next is absent
// on the last page.
type pageJSON struct {
	Offset int        `json:"offset"`
	Next   *int       `json:"next"`
	Data   []linkJSON `json:"data"`
}

// toPaper maps a Graph API paper to the common model.
func toPaper(p *paperJSON) academic.Paper {
	if p == nil {
		return academic.Paper{Source: academic.SourceSemanticScholar}
	}
	out := academic.Paper{
		Title:                    strings.TrimSpace(p.Title),
		Year:                     p.Year,
		Venue:                    strings.TrimSpace(p.Venue),
		S2ID:                     p.PaperID,
		CorpusID:                 p.CorpusID,
		Abstract:                 strings.TrimSpace(p.Abstract),
		PublicationDate:          p.PublicationDate,
		URL:                      p.URL,
		CitationCount:            p.CitationCount,
		ReferenceCount:           p.ReferenceCount,
		InfluentialCitationCount: p.InfluentialCitationCount,
		Source:                   academic.SourceSemanticScholar,
	}
	if out.Venue == "" && p.PublicationVenue != nil {
		out.Venue = strings.TrimSpace(p.PublicationVenue.Name)
	}
	if out.Venue == "" && p.Journal != nil {
		out.Venue = strings.TrimSpace(p.Journal.Name)
	}
	for _, a := range p.Authors {
		if n := strings.TrimSpace(a.Name); n != "" {
			out.Authors = append(out.Authors, n)
		}
	}
	ext := func(k string) string {
		switch v := p.ExternalIDs[k].(type) {
		case string:
			return v
		case float64:
			return strconv.FormatInt(int64(v), 10)
		}
		return ""
	}
	out.DOI = academic.NormalizeDOI(ext("DOI"))
	out.PMID = academic.NormalizePMID(ext("PubMed"))
	out.ArXiv = academic.NormalizeArXiv(ext("ArXiv"))
	if out.CorpusID == 0 {
		if n, err := strconv.ParseInt(ext("CorpusId"), 10, 64); err == nil {
			out.CorpusID = n
		}
	}
	return out
}

// toLink maps one /references (citing=false) or /citations (citing=true)
// item to a Link.
func toLink(l linkJSON, citing bool) academic.Link {
	p := l.CitedPaper
	if citing {
		p = l.CitingPaper
	}
	return academic.Link{
		Paper:       toPaper(p),
		Influential: l.IsInfluential,
		Contexts:    l.Contexts,
		Intents:     l.Intents,
		Source:      academic.SourceSemanticScholar,
	}
}
