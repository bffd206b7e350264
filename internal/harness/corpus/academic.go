package corpus

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/academic/openalex"
)

// OpenAlexWork is the part of an OpenAlex work record the corpus uses.
type OpenAlexWork struct {
	ID                    string           `json:"id"` // https://openalex.org/W…
	DOI                   string           `json:"doi"`
	Title                 string           `json:"title"`
	DisplayName           string           `json:"display_name"`
	PublicationYear       int              `json:"publication_year"`
	PublicationDate       string           `json:"publication_date"`
	AbstractInvertedIndex map[string][]int `json:"abstract_inverted_index"`
	Authorships           []struct {
		Author struct {
			DisplayName string `json:"display_name"`
		} `json:"author"`
	} `json:"authorships"`
	PrimaryLocation *struct {
		LandingPageURL string `json:"landing_page_url"`
		License        string `json:"license"`
		Source         *struct {
			DisplayName string `json:"display_name"`
		} `json:"source"`
	} `json:"primary_location"`
}

// SemanticScholarPaper is the part of a Semantic Scholar Graph API paper
// record the corpus uses.
type SemanticScholarPaper struct {
	PaperID         string `json:"paperId"`
	URL             string `json:"url"`
	Title           string `json:"title"`
	Abstract        string `json:"abstract"`
	Venue           string `json:"venue"`
	Year            int    `json:"year"`
	PublicationDate string `json:"publicationDate"`
	CorpusID        int64  `json:"corpusId"`
	ExternalIDs     struct {
		DOI      string `json:"DOI"`
		CorpusID int64  `json:"CorpusId"`
	} `json:"externalIds"`
	Authors []struct {
		Name string `json:"name"`
	} `json:"authors"`
}

// bareDOI strips a resolver prefix: "https://doi.org/10.1/x" → "10.1/x".
func bareDOI(doi string) string {
	d := strings.TrimSpace(doi)
	for _, p := range []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"} {
		if len(d) >= len(p) && strings.EqualFold(d[:len(p)], p) {
			return d[len(p):]
		}
	}
	return d
}

// ReadOpenAlexWork reads one OpenAlex work JSON file.
func ReadOpenAlexWork(path string) (*OpenAlexWork, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var w OpenAlexWork
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !strings.HasPrefix(w.ID, "https://openalex.org/W") {
		return nil, fmt.Errorf("%s: not an OpenAlex work (id %q)", path, w.ID)
	}
	return &w, nil
}

// OpenAlexPage renders an abstract page for an OpenAlex work at its
// https://openalex.org/W… URL: title, authors, venue, the abstract rebuilt
// from abstract_inverted_index and Highwire citation_* meta tags (citation_doi
// holds the bare DOI).
func OpenAlexPage(w *OpenAlexWork) Page {
	title := w.Title
	if title == "" {
		title = w.DisplayName
	}
	authors := make([]string, 0, len(w.Authorships))
	for _, a := range w.Authorships {
		if a.Author.DisplayName != "" {
			authors = append(authors, a.Author.DisplayName)
		}
	}
	venue, license := "", ""
	if pl := w.PrimaryLocation; pl != nil {
		license = pl.License
		if pl.Source != nil {
			venue = pl.Source.DisplayName
		}
	}
	p := abstractPage{
		URL:       w.ID,
		SiteName:  "OpenAlex",
		Title:     title,
		Authors:   authors,
		Venue:     venue,
		Year:      w.PublicationYear,
		Date:      w.PublicationDate,
		DOI:       bareDOI(w.DOI),
		Abstract:  openalex.RebuildAbstract(w.AbstractInvertedIndex),
		Note:      "Metadata: OpenAlex (CC0). Abstract rebuilt from OpenAlex abstract_inverted_index; article licence: " + orNone(license) + ".",
		IDLabel:   "OpenAlex ID",
		IDValue:   strings.TrimPrefix(w.ID, "https://openalex.org/"),
		NavLinks:  [][2]string{{"https://openalex.org/", "Home"}, {"https://openalex.org/works", "Works"}, {"https://openalex.org/authors", "Authors"}, {"https://docs.openalex.org/", "API docs"}},
		Copyright: "OpenAlex is a project of OurResearch, a nonprofit. Data available under CC0.",
	}
	return Page{URL: w.ID, ContentType: HTMLContentType, Body: []byte(p.render())}
}

// ReadSemanticScholarPaper reads one Semantic Scholar paper JSON file.
func ReadSemanticScholarPaper(path string) (*SemanticScholarPaper, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p SemanticScholarPaper
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if p.PaperID == "" {
		return nil, fmt.Errorf("%s: paper without paperId", path)
	}
	return &p, nil
}

// SemanticScholarPage renders an abstract page for a paper at
// https://www.semanticscholar.org/paper/<paperId> with title, authors,
// abstract and citation_* meta tags (citation_doi when the paper has a DOI).
func SemanticScholarPage(sp *SemanticScholarPaper) Page {
	u := "https://www.semanticscholar.org/paper/" + sp.PaperID
	authors := make([]string, 0, len(sp.Authors))
	for _, a := range sp.Authors {
		if a.Name != "" {
			authors = append(authors, a.Name)
		}
	}
	doi := sp.ExternalIDs.DOI
	corpusID := ""
	if id := max(sp.CorpusID, sp.ExternalIDs.CorpusID); id > 0 {
		corpusID = fmt.Sprint(id)
	}
	p := abstractPage{
		URL:       u,
		SiteName:  "Semantic Scholar",
		Title:     sp.Title,
		Authors:   authors,
		Venue:     sp.Venue,
		Year:      sp.Year,
		Date:      sp.PublicationDate,
		DOI:       doi,
		Abstract:  sp.Abstract,
		Note:      "Metadata and abstract: Semantic Scholar Academic Graph API.",
		IDLabel:   "Corpus ID",
		IDValue:   corpusID,
		NavLinks:  [][2]string{{"https://www.semanticscholar.org/", "Semantic Scholar"}, {"https://www.semanticscholar.org/search", "Search"}, {"https://www.semanticscholar.org/product/api", "API"}, {"https://www.semanticscholar.org/about", "About"}},
		Copyright: "© The Allen Institute for Artificial Intelligence. Semantic Scholar API data under the Semantic Scholar API License Agreement.",
	}
	return Page{URL: u, ContentType: HTMLContentType, Body: []byte(p.render())}
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// abstractPage is the common layout of the academic landing pages.
type abstractPage struct {
	URL, SiteName, Title   string
	Authors                []string
	Venue                  string
	Year                   int
	Date, DOI, Abstract    string
	Note, IDLabel, IDValue string
	NavLinks               [][2]string
	Copyright              string
}

func (p abstractPage) render() string {
	e := html.EscapeString
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<title>%s | %s</title>\n", e(p.Title), e(p.SiteName))
	b.WriteString(`<meta name="viewport" content="width=device-width, initial-scale=1">` + "\n")
	fmt.Fprintf(&b, "<meta name=\"citation_title\" content=\"%s\">\n", e(p.Title))
	for _, a := range p.Authors {
		fmt.Fprintf(&b, "<meta name=\"citation_author\" content=\"%s\">\n", e(a))
	}
	if p.Date != "" {
		fmt.Fprintf(&b, "<meta name=\"citation_publication_date\" content=\"%s\">\n", e(strings.ReplaceAll(p.Date, "-", "/")))
	} else if p.Year != 0 {
		fmt.Fprintf(&b, "<meta name=\"citation_publication_date\" content=\"%d\">\n", p.Year)
	}
	if p.Venue != "" {
		fmt.Fprintf(&b, "<meta name=\"citation_journal_title\" content=\"%s\">\n", e(p.Venue))
	}
	if p.DOI != "" {
		fmt.Fprintf(&b, "<meta name=\"citation_doi\" content=\"%s\">\n", e(p.DOI))
	}
	if p.Abstract != "" {
		fmt.Fprintf(&b, "<meta name=\"description\" content=\"%s\">\n", e(truncateRunes(p.Abstract, 300)))
	}
	fmt.Fprintf(&b, "<meta property=\"og:title\" content=\"%s\">\n", e(p.Title))
	fmt.Fprintf(&b, "<meta property=\"og:site_name\" content=\"%s\">\n", e(p.SiteName))
	fmt.Fprintf(&b, "<link rel=\"canonical\" href=\"%s\">\n", e(p.URL))
	b.WriteString(`<script>window.__APP_CONFIG__={"env":"prod","release":"replay","analytics":true};` +
		`(function(){var s=document.createElement("script");s.async=true;s.src="/static/js/analytics.js";document.head.appendChild(s);})();</script>` + "\n")
	b.WriteString("</head>\n<body>\n")
	fmt.Fprintf(&b, "<!-- evidencefleet replay corpus: rendered from a recorded %s API response. -->\n", e(p.SiteName))
	b.WriteString(`<header class="site-header"><nav class="top-nav" aria-label="Main"><ul>`)
	for _, l := range p.NavLinks {
		fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a></li>", e(l[0]), e(l[1]))
	}
	b.WriteString(`</ul></nav><form class="search" action="/search" role="search"><input type="search" name="q" placeholder="Search papers, authors, topics" aria-label="Search"><button type="submit">Search</button></form>` +
		`<div class="account"><a href="/sign-in">Sign in</a> <a href="/sign-up" class="button">Create free account</a></div></header>` + "\n")
	b.WriteString("<main>\n<article class=\"paper-detail\">\n")
	fmt.Fprintf(&b, "<h1 class=\"paper-title\">%s</h1>\n", e(p.Title))
	if len(p.Authors) > 0 {
		b.WriteString(`<ul class="author-list">`)
		for _, a := range p.Authors {
			fmt.Fprintf(&b, "<li>%s</li>", e(a))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString(`<div class="paper-meta">`)
	if p.Venue != "" {
		fmt.Fprintf(&b, "<span class=\"venue\">%s</span> ", e(p.Venue))
	}
	if p.Year != 0 {
		fmt.Fprintf(&b, "<span class=\"year\">%d</span> ", p.Year)
	}
	if p.DOI != "" {
		fmt.Fprintf(&b, "<span class=\"doi\">DOI: <a href=\"https://doi.org/%s\">%s</a></span> ", e(p.DOI), e(p.DOI))
	}
	if p.IDValue != "" {
		fmt.Fprintf(&b, "<span class=\"ident\">%s: %s</span>", e(p.IDLabel), e(p.IDValue))
	}
	b.WriteString("</div>\n")
	if p.Abstract != "" {
		b.WriteString("<section class=\"abstract\">\n<h2>Abstract</h2>\n")
		fmt.Fprintf(&b, "<p>%s</p>\n", e(p.Abstract))
		b.WriteString("</section>\n")
	}
	b.WriteString("</article>\n")
	b.WriteString(`<aside class="related"><h2>Related</h2><ul><li><a href="#citations">Citations</a></li><li><a href="#references">References</a></li><li><a href="#similar">Similar papers</a></li></ul>` +
		`<button class="cite-button">Cite</button> <button class="save-button">Save to library</button> <button class="alert-button">Create alert</button></aside>` + "\n")
	b.WriteString("</main>\n")
	fmt.Fprintf(&b, "<footer class=\"site-footer\"><p class=\"source-note\">%s</p><p>%s</p><ul><li><a href=\"/about\">About</a></li><li><a href=\"/terms\">Terms of Service</a></li><li><a href=\"/privacy\">Privacy Policy</a></li><li><a href=\"/contact\">Contact</a></li></ul></footer>\n",
		e(p.Note), e(p.Copyright))
	b.WriteString(`<script type="application/ld+json">{"@context":"https://schema.org","@type":"ScholarlyArticle","name":` + jsonString(p.Title) + `,"url":` + jsonString(p.URL))
	if p.DOI != "" {
		b.WriteString(`,"identifier":` + jsonString("https://doi.org/"+p.DOI))
	}
	b.WriteString("}</script>\n</body>\n</html>\n")
	return b.String()
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// jsonString quotes s as a JSON string that is also safe inside <script>.
func jsonString(s string) string {
	b, _ := json.Marshal(s) // escapes <, > and & as \u003c etc.
	return string(b)
}
