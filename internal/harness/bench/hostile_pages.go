package bench

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
)

// HostilePage is one page of the hostile replay archive and what it tests.
type HostilePage struct {
	Name  string `json:"name"`  // short label, also its host name
	Shape string `json:"shape"` // what the page holds
	// Ordinary marks a page of the demo corpus, the run's ordinary work.
	Ordinary bool        `json:"ordinary,omitempty"`
	Page     corpus.Page `json:"-"`
}

// hostileMargin keeps every body this far under the body limit.
const hostileMargin = 64

// hostileURL is the address of the hostile page name: each on a host of its
// own, so that the fetcher's per-host spacing does not serialise them.
func hostileURL(name string) string {
	return "https://" + name + ".hostile.example.org/page"
}

// HostilePages builds the hostile pages, each just under the worker's limits:
// bodies of at most maxBytes - 64 bytes (EVF_FETCH_MAX_BYTES) and HTML of at
// most maxElements - 1 start tags (EVF_PAGE_MAX_ELEMENTS), so that none is
// refused before it is parsed, except the gzip bomb, which decodes far past
// maxBytes by design. The same limits give the same pages, byte for byte.
func HostilePages(maxBytes int64, maxElements int) []HostilePage {
	budget := int(maxBytes) - hostileMargin
	tags := maxElements - 1
	endTags := endTagFlood(budget, 1_200_000)
	pages := []HostilePage{
		{Name: "formatting-bomb", Shape: "250 nested <b id=N> in a paragraph, then 20,000 <p>x</p>",
			Page: htmlPage("formatting-bomb", formattingBomb(min(20000, tags-docStartTags-1-250, (budget-len(formattingBomb(0, 0)))/len("<p>x</p>")), 0))},
		{Name: "formatting-bomb-max", Shape: "the formatting bomb scaled up: 250 <b>, then paragraphs of text up to both limits",
			Page: htmlPage("formatting-bomb-max", formattingBombMax(budget, tags))},
		{Name: "end-tag-flood", Shape: "up to 1.2 million </p> end tags with no start tag",
			Page: htmlPage("end-tag-flood", endTags)},
		{Name: "comment-flood", Shape: "up to 650,000 empty comments <!---->",
			Page: htmlPage("comment-flood", commentFlood(budget, 650_000))},
		{Name: "deep-divs", Shape: "45,000 nested <div>, never closed",
			Page: htmlPage("deep-divs", deepDivs(min(45_000, tags-8)))},
		{Name: "attribute-flood", Shape: "one <div> with as many attributes as the body limit holds",
			Page: htmlPage("attribute-flood", attributeFlood(budget))},
		{Name: "text-node", Shape: "one paragraph holding a single text node up to the body limit",
			Page: htmlPage("text-node", textNode(budget))},
		{Name: "foster-table", Shape: "a <table> whose content is all foster-parented <i> elements with text",
			Page: htmlPage("foster-table", fosterTable(budget, tags))},
		{Name: "a-nobr", Shape: "alternating nested <a> and <nobr> formatting elements (adoption agency on each)",
			Page: htmlPage("a-nobr", aNobr(tags))},
		{Name: "huge-title", Shape: "a 4 MiB <title>",
			Page: htmlPage("huge-title", hugeTitle(min(4<<20, budget-1024)))},
		{Name: "gzip-bomb", Shape: "Content-Encoding: gzip, 200 MiB of zeros from about 200 KiB",
			Page: gzipPage("gzip-bomb", gzipBomb())},
		{Name: "gzip-end-tag-flood", Shape: "the end-tag flood served gzipped (decodes under the body limit)",
			Page: gzipPage("gzip-end-tag-flood", gzipOf(endTags))},
		{Name: "meta-dois", Shape: "20,000 <meta name=citation_doi> DOIs the page declares for itself",
			Page: htmlPage("meta-dois", metaDOIs(min(20_000, tags-8)))},
		{Name: "linked-dois", Shape: "100,000 distinct DOIs linked: doi.org <a> links up to the element limit, the rest doi.org URLs in text",
			Page: htmlPage("linked-dois", linkedDOIs(100_000, budget, tags))},
		{Name: "redirect-to-bomb", Shape: "a 301 redirect to the gzip bomb",
			Page: redirect("redirect-to-bomb", 301, hostileURL("gzip-bomb"))},
		{Name: "long-location", Shape: "a 302 redirect to a 1 MiB URL",
			Page: redirect("long-location", 302, "https://long-location-target.hostile.example.org/"+strings.Repeat("a", 1<<20))},
		{Name: "misnested", Shape: misnestedShape, Page: htmlPage("misnested", misnested(budget, tags))},
	}
	return pages
}

// atOnceEach is how many copies of the misnested page and of the 5 MB
// page of paragraphs the at-once run works together.
const atOnceEach = 4

const misnestedShape = "3.4 MB of paragraphs opened inside <b> and closed out of order (<b><p>…</b>…</p>): the adoption agency at every </b>"

// AtOncePages are the pages of the at-once run: atOnceEach copies of the
// misnested page (refused too_many_elements) and atOnceEach ordinary pages
// of 49,000 paragraphs (about 5.1 MB, at the node budget: the heaviest an
// ordinary page may be), each on a host of its own, alternating, so that
// a worker of 4 target jobs holds several of each at once.
func AtOncePages(maxBytes int64, maxElements int) []HostilePage {
	budget := int(maxBytes) - hostileMargin
	tags := maxElements - 1
	hostile := misnested(budget, tags)
	var out []HostilePage
	for i := 1; i <= atOnceEach; i++ {
		h := fmt.Sprintf("misnested-%d", i)
		o := fmt.Sprintf("paragraphs-5mb-%d", i)
		out = append(out,
			HostilePage{Name: o, Ordinary: true, Shape: "49,000 paragraphs of prose, about 5.1 MB: at the node budget",
				Page: htmlPage(o, paragraphs5MB(budget, maxElements, uint64(i)))},
			HostilePage{Name: h, Shape: misnestedShape, Page: htmlPage(h, hostile)})
	}
	return out
}

func htmlPage(name string, body []byte) corpus.Page {
	return corpus.Page{URL: hostileURL(name), ContentType: corpus.HTMLContentType, Body: body}
}

func gzipPage(name string, body []byte) corpus.Page {
	return corpus.Page{URL: hostileURL(name), ContentType: corpus.HTMLContentType, Body: body,
		Headers: map[string]string{"Content-Encoding": "gzip"}}
}

func redirect(name string, status int, location string) corpus.Page {
	return corpus.Page{URL: hostileURL(name), ContentType: "text/plain; charset=utf-8", Status: status,
		Headers: map[string]string{"Location": location}}
}

// docStart opens a document: 4 start tags (html, head, title, body) and a
// paragraph of ordinary text (1 more), so that a parser that survives the
// page finds something to extract.
func docStart(b *bytes.Buffer, title string) {
	fmt.Fprintf(b, "<!DOCTYPE html><html><head><title>%s</title></head><body><p>%s</p>\n", title, prose(1, 400))
}

const docEnd = "\n</body></html>\n"

// docStartTags are the start tags docStart writes.
const docStartTags = 5

func formattingBomb(paragraphs, textBytes int) []byte {
	var b bytes.Buffer
	docStart(&b, "Formatting bomb")
	b.WriteString("<p>")
	for i := range 250 {
		fmt.Fprintf(&b, "<b id=%d>", i)
	}
	for i := range paragraphs {
		if textBytes == 0 {
			b.WriteString("<p>x</p>")
			continue
		}
		b.WriteString("<p>")
		b.WriteString(prose(uint64(i)+2, textBytes))
		b.WriteString("</p>")
	}
	b.WriteString(docEnd)
	return b.Bytes()
}

// formattingBombMax is the formatting bomb with as many paragraphs as the
// element limit allows, each holding text so the body ends near budget.
func formattingBombMax(budget, tags int) []byte {
	paragraphs := tags - docStartTags - 1 - 250
	head := len(formattingBomb(0, 0))
	per := (budget-head)/paragraphs - len("<p></p>")
	return formattingBomb(paragraphs, max(per, 1))
}

func endTagFlood(budget, want int) []byte {
	var b bytes.Buffer
	docStart(&b, "End tags")
	n := min(want, (budget-b.Len()-len(docEnd))/len("</p>"))
	b.WriteString(strings.Repeat("</p>", n))
	b.WriteString(docEnd)
	return b.Bytes()
}

func commentFlood(budget, want int) []byte {
	var b bytes.Buffer
	docStart(&b, "Comments")
	n := min(want, (budget-b.Len()-len(docEnd))/len("<!---->"))
	b.WriteString(strings.Repeat("<!---->", n))
	b.WriteString(docEnd)
	return b.Bytes()
}

func deepDivs(n int) []byte {
	var b bytes.Buffer
	docStart(&b, "Deep divs")
	b.WriteString(strings.Repeat("<div>", n))
	b.WriteString(prose(3, 200))
	b.WriteString(docEnd)
	return b.Bytes()
}

func attributeFlood(budget int) []byte {
	var b bytes.Buffer
	docStart(&b, "Attributes")
	b.WriteString("<div")
	closing := ">" + prose(4, 200) + "</div>" + docEnd
	for i := 0; ; i++ {
		attr := fmt.Sprintf(" a%d=x", i)
		if b.Len()+len(attr)+len(closing) > budget {
			break
		}
		b.WriteString(attr)
	}
	b.WriteString(closing)
	return b.Bytes()
}

func textNode(budget int) []byte {
	var b bytes.Buffer
	docStart(&b, "One text node")
	b.WriteString("<p>")
	b.WriteString(prose(5, budget-b.Len()-len("</p>")-len(docEnd)))
	b.WriteString("</p>")
	b.WriteString(docEnd)
	return b.Bytes()
}

func fosterTable(budget, tags int) []byte {
	var b bytes.Buffer
	docStart(&b, "Foster parenting")
	b.WriteString("<table>")
	n := tags - docStartTags - 1
	per := (budget-b.Len()-len("</table>")-len(docEnd))/n - len("<i></i>")
	for i := range n {
		b.WriteString("<i>")
		b.WriteString(prose(uint64(i)+6, max(per, 1)))
		b.WriteString("</i>")
	}
	b.WriteString("</table>")
	b.WriteString(docEnd)
	return b.Bytes()
}

// misnested is paragraphs opened inside <b> and closed out of order, up to
// 3.4 MB and the element limit: at each </b> the adoption agency moves the
// paragraph out of the <b> and clones it, and the next <b> is re-opened.
func misnested(budget, tags int) []byte {
	var b bytes.Buffer
	docStart(&b, "Misnested")
	size := min(3_400_000, budget)
	n := (tags - docStartTags) / 2
	per := (size-b.Len()-len(docEnd))/n - len("<b><p></b></p>")
	for i := range n {
		fmt.Fprintf(&b, "<b><p>%s</b>%s</p>", prose(uint64(i)+8, max(per/2, 1)), prose(uint64(i)+9, max(per-per/2, 1)))
	}
	b.WriteString(docEnd)
	return b.Bytes()
}

// paragraphs5MB is an ordinary page of 49,000 paragraphs of prose (fewer
// under a lower element limit), about 5.1 MB: as much text as the node
// budget (NodesPerElement × maxElements, a text byte weighing 1/64 of a
// node) lets through after the paragraphs' elements and text nodes.
func paragraphs5MB(budget, maxElements int, seed uint64) []byte {
	var b bytes.Buffer
	docStart(&b, "Paragraphs")
	n := min(49_000, maxElements-docStartTags-10)
	// In quarters of a node: an element 4, a text node 2, 16 bytes 1; the
	// budget less the document's elements and a margin of 1%.
	quarters := 4*3*maxElements*99/100 - 4*(docStartTags+4) - 6*n
	text := min(16*quarters, budget-b.Len()-len(docEnd)-len("<p></p>")*n, 5_100_000)
	per := max(text/n, 1)
	for i := range n {
		b.WriteString("<p>")
		b.WriteString(prose(seed<<32+uint64(i), per))
		b.WriteString("</p>")
	}
	b.WriteString(docEnd)
	return b.Bytes()
}

func aNobr(tags int) []byte {
	var b bytes.Buffer
	docStart(&b, "Nested a and nobr")
	b.WriteString("<p>")
	pairs := (tags - docStartTags - 1) / 2
	b.WriteString(strings.Repeat("<a href=#>x<nobr>y", pairs))
	b.WriteString(docEnd)
	return b.Bytes()
}

func hugeTitle(n int) []byte {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html><html><head><title>")
	b.WriteString(prose(7, n))
	fmt.Fprintf(&b, "</title></head><body><p>%s</p>%s", prose(1, 400), docEnd)
	return b.Bytes()
}

func metaDOIs(n int) []byte {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html><html><head><title>Declared DOIs</title>\n")
	for i := range n {
		fmt.Fprintf(&b, "<meta name=\"citation_doi\" content=\"10.5555/evf.m%06d\">\n", i)
	}
	fmt.Fprintf(&b, "</head><body><p>%s</p>%s", prose(1, 400), docEnd)
	return b.Bytes()
}

// linkedDOIs links up to n distinct DOIs: as many <a href=https://doi.org/…>
// as the element limit allows, the rest as doi.org URLs in a paragraph's
// text, as many as the body limit holds.
func linkedDOIs(n, budget, tags int) []byte {
	var b bytes.Buffer
	docStart(&b, "Linked DOIs")
	tail := "</p>" + docEnd
	links := min(n, tags-docStartTags-2) // and the two <p>
	var anchors, text bytes.Buffer
	for i := range n {
		entry := fmt.Sprintf("https://doi.org/10.5555/evf.l%06d\n", i)
		to := &text
		if i < links {
			entry = fmt.Sprintf("<a href=\"https://doi.org/10.5555/evf.l%06d\">ref</a>\n", i)
			to = &anchors
		}
		if b.Len()+len("<p></p><p>")+anchors.Len()+text.Len()+len(entry)+len(tail) > budget {
			break
		}
		to.WriteString(entry)
	}
	fmt.Fprintf(&b, "<p>%s</p><p>%s%s", anchors.Bytes(), text.Bytes(), tail)
	return b.Bytes()
}

// gzipBomb is 200 gzip members of 1 MiB of zeros each: about 200 KiB, 200
// MiB decoded (as the crawl package's own bomb tests).
func gzipBomb() []byte {
	member := gzipOf(make([]byte, 1<<20))
	return bytes.Repeat(member, 200)
}

func gzipOf(data []byte) []byte {
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		panic(err) // only for an invalid level
	}
	_, _ = zw.Write(data) // a bytes.Buffer does not fail
	_ = zw.Close()
	return b.Bytes()
}

var proseWords = strings.Fields(`the sea level rose by about three millimetres a year over the last
	century and the rate is increasing according to tide gauges and satellite altimetry while ice
	sheets glaciers and warming oceans add water mass loss from Greenland and Antarctica contributes
	most of the recent acceleration coastal cities plan defences against storm surges and floods`)

// prose returns exactly n bytes of plain sentences (ASCII, no markup), the
// same for the same seed and n.
func prose(seed uint64, n int) string {
	var b strings.Builder
	b.Grow(n + 16)
	s := seed*0x9E3779B97F4A7C15 + 1
	next := func() uint64 { // xorshift64
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		return s
	}
	for b.Len() < n {
		words := 8 + int(next()%8)
		for w := range words {
			word := proseWords[next()%uint64(len(proseWords))]
			if w == 0 {
				word = strings.ToUpper(word[:1]) + word[1:]
			}
			b.WriteString(word)
			if w < words-1 {
				b.WriteByte(' ')
			}
		}
		b.WriteString(". ")
	}
	return b.String()[:n]
}
