package extract

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"
)

// Document is the readable content of a page.
type Document struct {
	// Title is the page title (readability's choice, else <title>), whitespace collapsed.
	Title string
	// Text is the canonical version text (see the package documentation).
	Text string
	// Lang is the declared language (<html lang>, else Content-Language meta), as written.
	Lang string
}

// ErrNoText is returned by FromHTML when neither readability nor the
// <body> fallback yields any text. The Document still carries Title and Lang.
var ErrNoText = errors.New("extract: no readable text")

// FromHTML extracts the main readable text of an HTML page with go-readability
// v2 and falls back to a plain-text walk of the page (its <main> or single
// <article> if present, else <body>, skipping navigation, scripts and hidden
// elements) when readability finds nothing. Page chrome is removed before
// either runs: navigation, site header and footer, asides, search and other
// forms, dialogs, skip links, hidden elements and widgets such as dropdowns
// (see pruneChrome). Paragraph, heading, list-item, label and table-row
// blocks are separated by "\n\n" (text never runs across a block
// boundary); whitespace runs inside a block collapse to one space (a <br> is
// a space); headings are their own block as plain text. The charset is taken
// from a BOM or <meta charset>, except that a body that is entirely valid
// UTF-8 is read as UTF-8; otherwise windows-1252.
// Use FromHTMLWithContentType when the HTTP Content-Type header is known.
func FromHTML(body []byte, pageURL *url.URL) (Document, error) {
	return FromHTMLWithContentType(body, "", pageURL)
}

// FromHTMLWithContentType is FromHTML with the HTTP Content-Type header value,
// whose charset parameter, when present and known, decides the decoding.
// It sets no limit on what parsing the page may build; the worker uses
// FromHTMLWithLimits.
func FromHTMLWithContentType(body []byte, contentType string, pageURL *url.URL) (Document, error) {
	return FromHTMLWithLimits(body, contentType, pageURL, Limits{})
}

// FromHTMLWithLimits is FromHTMLWithContentType for a page that must stay
// within lim: the decoded page is first read with a tokenizer, holding no
// tree, and a page over a limit fails with an error wrapping
// ErrTooManyElements, unparsed (see checkBuild). Zero Limits: no limit.
func FromHTMLWithLimits(body []byte, contentType string, pageURL *url.URL, lim Limits) (Document, error) {
	if lim == (Limits{}) {
		src, err := decodeHTML(body, contentType)
		if err != nil {
			return Document{}, err
		}
		return fromSource(src, pageURL)
	}
	p, err := PrepareHTML(body, contentType, lim)
	if err != nil {
		return Document{}, err
	}
	return p.Extract(pageURL)
}

// HeapPerNode is the heap extracting a page may hold per node of the token
// pass's estimate (Limits.MaxNodes, weighed by memory): 64 MiB over
// 150,000 nodes. The largest page of each shape the default limits let
// through held at most 414 bytes a node at its peak (59 MiB, the
// formatting bomb; TestPagesJustUnderTheLimitsStayUnderTheHeapBound).
const HeapPerNode = 448

// minHeap is the heap estimate of the smallest page: the parser's and
// readability's own (a 10 KB page peaks near 1 MiB).
const minHeap = 1 << 20

// Prepared is an HTML page decoded to UTF-8 and read by the token pass,
// ready to parse: what extracting it may hold on the heap is known before
// any tree is built (HeapEstimate).
type Prepared struct {
	src   []byte
	nodes int64 // the token pass's estimate, in nodes weighed by memory
}

// PrepareHTML decodes body (as FromHTMLWithContentType) and reads it with
// the token pass, holding no tree: a page over lim fails with an error
// wrapping ErrTooManyElements, unparsed; zero Limits refuse nothing, but
// the pass still runs for the estimate.
func PrepareHTML(body []byte, contentType string, lim Limits) (*Prepared, error) {
	src, err := decodeHTML(body, contentType)
	if err != nil {
		return nil, err
	}
	src, quarters, err := scanChecked(src, lim)
	if err != nil {
		return nil, err
	}
	return &Prepared{src: src, nodes: nodesOf(quarters)}, nil
}

// HeapEstimate is an upper bound of the heap extracting the page holds
// beyond its body: HeapPerNode bytes a node the parser would build, at
// least minHeap.
func (p *Prepared) HeapEstimate() int64 { return heapEstimate(p.nodes) }

// nodesOf is a node estimate in quarters (buildEstimate.quarters) in
// nodes, rounded up.
func nodesOf(quarters int64) int64 { return (quarters + 3) / 4 }

func heapEstimate(nodes int64) int64 { return max(nodes*HeapPerNode, minHeap) }

// Extract parses the page and extracts its Document (see FromHTML).
func (p *Prepared) Extract(pageURL *url.URL) (Document, error) {
	return fromSource(p.src, pageURL)
}

// fromSource extracts the Document of a decoded page (see FromHTML):
// readability on the pruned page, checked by the article guard (guard.go),
// else the fallback walk.
func fromSource(src []byte, pageURL *url.URL) (Document, error) {
	d, first, lead, htmlTitle, err := readPruned(src, pageURL)
	if err != nil {
		return Document{}, err
	}
	// Only first's text is kept: the tree readability read is garbage
	// before the guard parses the page again.
	c, err := guardArticle(first, lead, pageAlternatives(src, pageURL, htmlTitle))
	if err != nil {
		return d, err
	}
	text := c.text
	if text == "" {
		// readability mutated its tree; parse again for the fallback walk.
		doc, err := parsePruned(src, pageURL, htmlTitle)
		if err != nil {
			return Document{}, fmt.Errorf("extract: parse html: %w", err)
		}
		text = nodeText(contentRoot(doc), true)
	}
	if d.Text = text; d.Text == "" {
		return d, ErrNoText
	}
	return d, nil
}

// readPruned parses the page, prunes its chrome and runs readability: the
// Document's title and language, readability's extraction, the page's lead
// (see the article guard) and its <title>.
func readPruned(src []byte, pageURL *url.URL) (d Document, first candidate, lead, htmlTitle string, err error) {
	doc, err := html.Parse(bytes.NewReader(src))
	if err != nil {
		return d, first, "", "", fmt.Errorf("extract: parse html: %w", err)
	}
	htmlTitle, lang := docMeta(doc)
	lead = articleLead(doc, htmlTitle)
	pruneChrome(doc, pageURL, htmlTitle)
	if headline(doc, htmlTitle) != nil {
		lead = articleLead(doc, htmlTitle) // the lead of what pruning kept
	}
	if article, rerr := readable(doc, pageURL); rerr == nil {
		d.Title = collapseSpace(article.Title())
		d.Lang = strings.TrimSpace(article.Language())
		first = newCandidate(article.Node, pageURL)
	}
	d.Title = cmp.Or(d.Title, htmlTitle)
	d.Lang = cmp.Or(d.Lang, lang)
	return d, first, lead, htmlTitle, nil
}

// readable runs go-readability on doc (mutating it), turning a panic inside
// the library into an error so that the fallback walk still runs.
func readable(doc *html.Node, pageURL *url.URL) (a readability.Article, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("extract: readability panic: %v", r)
		}
	}()
	parser := readability.NewParser()
	parser.KeepClasses = true // nodeText drops some elements by class (see skipByClass)
	return parser.ParseAndMutate(doc, pageURL)
}

// decodeHTML converts body to UTF-8.
func decodeHTML(body []byte, contentType string) ([]byte, error) {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if !certain && utf8.Valid(body) {
		// DetermineEncoding only looks at the first 1024 bytes and trusts
		// <meta charset>; a body that is valid UTF-8 throughout is UTF-8.
		return body, nil
	}
	if enc == nil || enc == encoding.Nop || name == "utf-8" {
		return body, nil
	}
	out, err := decodeExact(enc, body)
	if err != nil {
		return nil, fmt.Errorf("extract: decode %s: %w", name, err)
	}
	return out, nil
}

// decodeExact transcodes body into a buffer of the exact size, measured by
// a first pass: decoding into a growing buffer holds up to three times the
// page's bytes at once (12.5 MiB for a 5 MiB windows-1252 page).
func decodeExact(enc encoding.Encoding, body []byte) ([]byte, error) {
	n, err := io.Copy(io.Discard, transform.NewReader(bytes.NewReader(body), enc.NewDecoder()))
	if err != nil {
		return nil, err
	}
	out := bytes.NewBuffer(make([]byte, 0, n+bytes.MinRead))
	if _, err := out.ReadFrom(transform.NewReader(bytes.NewReader(body), enc.NewDecoder())); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// docMeta returns the <title> text and the declared language of doc.
func docMeta(doc *html.Node) (title, lang string) {
	var contentLang string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Html:
				if v, ok := attr(n, "lang"); ok && lang == "" {
					lang = strings.TrimSpace(v)
				}
			case atom.Title:
				if title == "" {
					title = collapseSpace(textContent(n))
				}
				return
			case atom.Meta:
				if strings.EqualFold(attrOr(n, "http-equiv"), "content-language") && contentLang == "" {
					contentLang = strings.TrimSpace(attrOr(n, "content"))
				}
				return
			case atom.Body:
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if lang == "" {
		lang = contentLang
	}
	return title, lang
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func attrOr(n *html.Node, key string) string {
	v, _ := attr(n, key)
	return v
}

func textContent(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// contentRoot picks the subtree for the fallback walk: the first <main> or
// role=main element, else the only <article>, else <body>, else doc.
func contentRoot(doc *html.Node) *html.Node {
	var body, main *html.Node
	var articles []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch {
			case n.DataAtom == atom.Body && body == nil:
				body = n
			case (n.DataAtom == atom.Main || strings.EqualFold(attrOr(n, "role"), "main")) && main == nil:
				main = n
			case n.DataAtom == atom.Article:
				articles = append(articles, n)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	switch {
	case main != nil && nodeText(main, true) != "":
		return main
	case len(articles) == 1 && nodeText(articles[0], true) != "":
		return articles[0]
	case body != nil:
		return body
	}
	return doc
}

// skipElem lists elements whose content is never readable text.
var skipElem = map[atom.Atom]bool{
	atom.Head: true, atom.Script: true, atom.Style: true, atom.Noscript: true,
	atom.Template: true, atom.Svg: true, atom.Math: true, atom.Canvas: true,
	atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Audio: true,
	atom.Video: true, atom.Select: true, atom.Option: true, atom.Button: true,
	atom.Input: true, atom.Textarea: true, atom.Datalist: true, atom.Title: true,
}

// boilerElem lists page chrome skipped by the fallback walk.
var boilerElem = map[atom.Atom]bool{
	atom.Nav: true, atom.Footer: true, atom.Aside: true,
	atom.Dialog: true, atom.Menu: true,
}

var boilerRole = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true,
	"menu": true, "menubar": true, "search": true, "dialog": true, "alertdialog": true,
}

// blockElem lists elements that start and end a block.
var blockElem = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true,
	atom.Body: true, atom.Caption: true, atom.Center: true, atom.Dd: true,
	atom.Details: true, atom.Dialog: true, atom.Div: true, atom.Dl: true,
	atom.Dt: true, atom.Fieldset: true, atom.Figcaption: true, atom.Figure: true,
	atom.Footer: true, atom.Form: true, atom.H1: true, atom.H2: true, atom.H3: true,
	atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true, atom.Hgroup: true,
	atom.Hr: true, atom.Html: true, atom.Label: true, atom.Legend: true, atom.Li: true, atom.Main: true,
	atom.Menu: true, atom.Nav: true, atom.Ol: true, atom.P: true, atom.Pre: true,
	atom.Section: true, atom.Summary: true, atom.Table: true, atom.Tbody: true,
	atom.Tfoot: true, atom.Thead: true, atom.Tr: true, atom.Ul: true,
}

// skipClass lists classes of elements that are not part of the prose:
// MediaWiki edit links, reference markers, print-hidden maintenance tags and
// tables of contents, screen-reader-only text, and elements hidden when the
// page is printed (site chrome: menus, share buttons, banners).
var skipClass = map[string]bool{
	"mw-editsection": true, "noprint": true, "toc": true, "mw-cite-backlink": true,
	"sr-only": true, "visually-hidden": true, "screen-reader-text": true,
	"no-print": true, "hidden-print": true, "d-print-none": true, "print-hidden": true,
	"skip-link": true, "skiplink": true, "skip-links": true,
}

// chromeWord lists words that, as a "-" or "_" separated part of a class or
// id, name a page-chrome widget: dropdown menus and their labels
// ("vector-dropdown-label"), breadcrumbs, navigation bars and boxes, print
// footers ("Retrieved from …"), category links, and photo galleries,
// carousels, slideshows and lightboxes, whose text is their controls and
// counters ("Image 1 of 8", "Caption", "Close") repeated for every slide.
var chromeWord = map[string]bool{
	"dropdown": true, "breadcrumb": true, "breadcrumbs": true, "navbar": true,
	"navbox": true, "printfooter": true, "catlinks": true,
	"gallery": true, "carousel": true, "slideshow": true, "lightbox": true,
}

// chromeName reports a class or id token that names page chrome.
func chromeName(tok string) bool {
	tok = strings.ToLower(tok)
	if skipClass[tok] {
		return true
	}
	for _, w := range strings.FieldsFunc(tok, func(r rune) bool { return r == '-' || r == '_' }) {
		if chromeWord[w] {
			return true
		}
	}
	return false
}

// skipByClass reports elements dropped because of their class or id:
// skipClass members, tokens containing a chromeWord, <sup class="reference">
// citation markers and id="toc".
func skipByClass(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Namespace != "" {
			continue
		}
		switch a.Key {
		case "class":
			for _, c := range strings.Fields(a.Val) {
				if chromeName(c) || (c == "reference" && n.DataAtom == atom.Sup) {
					return true
				}
			}
		case "id":
			if id := strings.TrimSpace(a.Val); id == "toc" || chromeName(id) {
				return true
			}
		}
	}
	return false
}

// hidden reports elements that are not rendered.
func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			// hidden="until-found" content is collapsed but findable.
			if !strings.EqualFold(strings.TrimSpace(a.Val), "until-found") {
				return true
			}
		case "aria-hidden":
			if a.Val == "" || strings.EqualFold(a.Val, "true") {
				return true
			}
		case "style":
			s := strings.ToLower(a.Val)
			s = strings.ReplaceAll(s, " ", "")
			if strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden") {
				return true
			}
		}
	}
	return false
}

// nodeText renders n as canonical text. fallback additionally skips page
// chrome (navigation, footers, asides, forms).
func nodeText(n *html.Node, fallback bool) string {
	var w blockWriter
	var walk func(n *html.Node, pre bool)
	walk = func(n *html.Node, pre bool) {
		switch n.Type {
		case html.TextNode:
			if pre {
				writePre(&w, n.Data)
			} else {
				w.write(n.Data)
			}
			return
		case html.ElementNode:
			if skipElem[n.DataAtom] || hidden(n) || chromeByClass(n) {
				return
			}
			if fallback && (boilerElem[n.DataAtom] || boilerRole[strings.ToLower(attrOr(n, "role"))]) {
				return
			}
			switch n.DataAtom {
			case atom.Br, atom.Td, atom.Th, atom.Img:
				w.space()
			case atom.Pre:
				pre = true
			}
		case html.DocumentNode:
		default:
			return
		}
		block := n.Type == html.ElementNode && blockElem[n.DataAtom]
		if block {
			w.endBlock()
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, pre)
		}
		if block {
			w.endBlock()
		} else if n.Type == html.ElementNode && (n.DataAtom == atom.Td || n.DataAtom == atom.Th) {
			w.space()
		}
	}
	walk(n, false)
	return w.String()
}

// writePre writes preformatted text: blank lines separate blocks, other
// whitespace collapses.
func writePre(w *blockWriter, s string) {
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			w.write(s)
			return
		}
		w.write(s[:i])
		w.space()
		s = s[i+1:]
		// A following line that is blank ends the block.
		j := 0
		for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r') {
			j++
		}
		if j < len(s) && s[j] == '\n' {
			w.endBlock()
		}
	}
}
