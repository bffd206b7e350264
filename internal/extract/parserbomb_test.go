package extract

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/hostiletest"
)

// bodyLimit is the worker's default body limit (EVF_FETCH_MAX_BYTES).
const bodyLimit = 5 << 20

// heapBound is the documented bound of what extracting one page may hold
// on the heap above the worker's own.
const heapBound = 64 << 20

// defaultLimits are the worker's defaults (EVF_PAGE_MAX_ELEMENTS).
var defaultLimits = Limits{MaxElements: 50_000}

// fill repeats unit after head n times, or (n < 0) until the page would
// pass limit bytes, at most that, then appends tail.
func fill(head, unit, tail string, n, limit int) []byte {
	if max := (limit - len(head) - len(tail)) / len(unit); n < 0 || n > max {
		n = max
	}
	return []byte(head + strings.Repeat(unit, n) + tail)
}

// formattingBomb is issue 24's page: a paragraph holding 250 nested <b
// id=N>, then paragraphs the parser re-opens all 250 in.
func formattingBomb(prefix, paragraph string, n int) []byte {
	var b strings.Builder
	b.WriteString(prefix + "<p>")
	for i := range 250 {
		fmt.Fprintf(&b, "<b id=%d>", i)
	}
	return fill(b.String(), paragraph, "", n, bodyLimit-64)
}

// attributeFlood is one <div> with as many attributes as the body limit
// holds.
func attributeFlood() []byte {
	var b strings.Builder
	b.WriteString("<div")
	for i := 0; b.Len() < bodyLimit-200; i++ {
		fmt.Fprintf(&b, " a%d", i)
	}
	b.WriteString(">x</div>")
	return []byte(b.String())
}

// htmlAttributes is as many <html aN> as the element limit allows: the
// parser copies the attributes of each into the first, building a map of
// all it holds each time (3.4 minutes).
func htmlAttributes() []byte {
	var b strings.Builder
	for i := range defaultLimits.MaxElements - 10 {
		fmt.Fprintf(&b, "<html a%d>", i)
	}
	return []byte(b.String() + "<p>x")
}

// parserBomb is a page whose tree costs far more than its bytes.
type parserBomb struct {
	name string
	body []byte
}

func parserBombs() []parserBomb {
	bomb := formattingBomb("", "<p>x</p>", 20_000)
	return []parserBomb{
		{"formatting-bomb", bomb},
		{"formatting-bomb-5MiB", formattingBomb("", "<p>"+strings.Repeat("y", 96)+"</p>", 49_700)},
		{"end-tag-flood", fill("<body>", "</p>", "", 1_200_000, bodyLimit)},
		{"comment-flood", fill("<body>", "<!---->", "", 650_000, bodyLimit)},
		// Under the node budget, but the parser copies the text node
		// before each token: 230,000²/2 bytes; 40,000²/2 × 100.
		{"text-joined-over-ignored-end-tags", fill("<body>", "x</x>", "", 230_000, bodyLimit)},
		{"text-foster-parented-before-a-table", fill("<table>", "<tr>"+strings.Repeat("z", 100), "", 40_000, bodyLimit)},
		{"white-space-joined-in-a-table", fill("<table>", strings.Repeat("\n", 100)+"<span></span>", "", 30_000, bodyLimit)},
		{"html-attributes-merged", htmlAttributes()},
		{"attribute-flood", attributeFlood()},
		{"noscript-re-parsed-by-readability", []byte("<p>text</p><noscript>" + string(bomb) + "</noscript>")},
		{"formatting-bomb-in-template", append([]byte("<template>"), bomb...)},
		{"formatting-bomb-foster-parented", formattingBomb("<table>", "<tr>x", 20_000)},
	}
}

// TestParserBombsFailUnparsed: pages of a few bytes per node that the tree
// builder multiplies (issue 24's three, and the others found since) fail
// too_many_elements with their figures, having allocated a small part of
// heapBound. Before, each built millions of nodes (up to 1.85 GB of heap),
// copied gigabytes or ran for minutes. Not parallel: it measures the
// process's allocations.
func TestParserBombsFailUnparsed(t *testing.T) {
	hostiletest.SkipUnderRace(t)
	u, _ := url.Parse("https://bombs.example.org/")
	for _, b := range parserBombs() {
		t.Run(fmt.Sprintf("%s-%dKB", b.name, len(b.body)/1000), func(t *testing.T) {
			var err error
			n, took := hostiletest.AllocatedBy(func() { _, err = FromHTMLWithLimits(b.body, "text/html", u, defaultLimits) })
			t.Logf("%d bytes: %s allocated in %v: %v", len(b.body), hostiletest.MiB(n), took.Round(time.Millisecond), err)
			if !errors.Is(err, ErrTooManyElements) {
				t.Errorf("%v, want too_many_elements", err)
			}
			if n > heapBound {
				t.Errorf("%s allocated, want at most %s", hostiletest.MiB(n), hostiletest.MiB(heapBound))
			}
		})
	}
}

// TestParserBombsHiddenFromTheTokenizer: content a tokenizer reads as text
// but the parser reads as markup (in <svg>, <style> is not raw text and
// <![CDATA[ opens text) is escaped, so the parser reads the same text: the
// page is extracted with a small part of heapBound. Before, the tokenizer
// counted one element and the parser built five million.
func TestParserBombsHiddenFromTheTokenizer(t *testing.T) {
	hostiletest.SkipUnderRace(t)
	u, _ := url.Parse("https://hidden.example.org/")
	bomb := string(formattingBomb("", "<p>x</p>", 20_000))
	for _, b := range []parserBomb{
		{"svg-style", []byte("<p>Some text to read.</p><svg><style>" + bomb + "</style></svg>")},
		{"svg-cdata", []byte(`<p>Some text to read.</p><svg><![CDATA[ > <x a="]]>` + bomb + `"></svg>`)},
	} {
		t.Run(fmt.Sprintf("%s-%dKB", b.name, len(b.body)/1000), func(t *testing.T) {
			var doc Document
			var err error
			n, took := hostiletest.AllocatedBy(func() { doc, err = FromHTMLWithLimits(b.body, "text/html", u, defaultLimits) })
			t.Logf("%d bytes: %s allocated in %v: %v", len(b.body), hostiletest.MiB(n), took.Round(time.Millisecond), err)
			if err != nil || !strings.Contains(doc.Text, "Some text to read.") {
				t.Errorf("%q, %v; want the page's text", doc.Text, err)
			}
			if n > heapBound {
				t.Errorf("%s allocated, want at most %s", hostiletest.MiB(n), hostiletest.MiB(heapBound))
			}
		})
	}
}

// largestPassing returns the page page(n) for an n within 1% of the largest
// n up to max that the default limits let through (and the body limit
// holds): a closer search costs a scan of a 5 MiB page a step.
func largestPassing(t *testing.T, page func(n int) []byte, max int) []byte {
	t.Helper()
	passes := func(n int) bool {
		b := page(n)
		if len(b) > bodyLimit {
			return false
		}
		src, err := decodeHTML(b, "text/html")
		if err != nil {
			t.Fatal(err)
		}
		_, err = checkBuild(src, defaultLimits)
		return err == nil
	}
	lo, hi := 0, max
	if !passes(lo) {
		t.Fatal("the smallest page does not pass")
	}
	for hi-lo > lo/100 {
		mid := (lo + hi + 1) / 2
		if passes(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return page(lo)
}

// TestPagesJustUnderTheLimitsStayUnderTheHeapBound: the largest page of
// each shape that the limits let through (at the node budget, the element
// cap or the body limit) is extracted within heapBound, and within the
// heap estimate of its token pass (Prepared.HeapEstimate), by which the
// worker admits it.
func TestPagesJustUnderTheLimitsStayUnderTheHeapBound(t *testing.T) {
	hostiletest.SkipUnderRace(t)
	u, _ := url.Parse("https://large.example.org/")
	paragraphs := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "<p>Sentence %d of a long page, with <a href=\"/w/%d\">a link</a> and <b>bold words</b>.</p>\n", i, i)
		}
		return b.String()
	}
	manyAttrs := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, " a%d=%d", i, i)
		}
		return b.String()
	}
	attrTag := "<div" + manyAttrs(maxTagAttrs-1) + ">x</div>"
	wiki := paragraphs(defaultLimits.MaxElements/3 - 10)
	for _, sh := range []struct {
		name string
		page func(n int) []byte
		max  int
	}{
		{"paragraphs", func(n int) []byte { return []byte(paragraphs(n)) }, defaultLimits.MaxElements / 3},
		{"formatting-bomb", func(n int) []byte { return formattingBomb("", "<p>x</p>", n) }, 20_000},
		{"end-tags", func(n int) []byte { return []byte("<body><p>Text.</p>" + strings.Repeat("</p>", n)) }, 1_200_000},
		{"comments", func(n int) []byte { return []byte("<body><p>Text.</p>" + strings.Repeat("<!---->", n)) }, 650_000},
		{"attributes", func(n int) []byte { return []byte(strings.Repeat(attrTag, n)) }, 1000},
		{"one-text-node", func(n int) []byte { return []byte("<p>" + strings.Repeat("word ", n)) }, bodyLimit / 5},
		{"one-text-node-windows-1252", func(n int) []byte {
			return []byte("<meta charset=windows-1252><p>" + strings.Repeat("caf\xe9 ", n))
		}, bodyLimit / 5},
		{"paragraphs-and-text", func(n int) []byte { return []byte(wiki + "<p>" + strings.Repeat("word ", n)) }, bodyLimit / 5},
		{"end-tags-and-text", func(n int) []byte {
			return []byte("<body>" + strings.Repeat("</p>", 60_000) + "<p>" + strings.Repeat("word ", n))
		}, bodyLimit / 5},
	} {
		body := largestPassing(t, sh.page, sh.max)
		t.Run(fmt.Sprintf("%s-%dKB", sh.name, len(body)/1000), func(t *testing.T) {
			var err error
			var took time.Duration
			peak := hostiletest.PeakHeap(func() {
				start := time.Now()
				_, err = FromHTMLWithLimits(body, "text/html", u, defaultLimits)
				took = time.Since(start)
			})
			src, _ := decodeHTML(body, "text/html")
			s, _ := scanBuild(src, defaultLimits)
			estimate := uint64(heapEstimate(nodesOf(s.est.quarters()))) // Prepared.HeapEstimate
			t.Logf("%d bytes, %s nodes estimated: peak heap %s (estimate %s) in %v: %v", len(body), thousands(s.est.quarters()/4),
				hostiletest.MiB(peak), hostiletest.MiB(estimate), took.Round(time.Millisecond), err)
			if err != nil && !errors.Is(err, ErrNoText) {
				t.Errorf("%v, want the page extracted", err)
			}
			if peak > heapBound {
				t.Errorf("peak heap %s, want at most %s", hostiletest.MiB(peak), hostiletest.MiB(heapBound))
			}
			if peak > estimate {
				t.Errorf("peak heap %s over the page's heap estimate %s", hostiletest.MiB(peak), hostiletest.MiB(estimate))
			}
		})
	}
}
