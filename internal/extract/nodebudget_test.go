package extract

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/hostiletest"
	"golang.org/x/net/html"
)

// treeQuarters counts the nodes of a parsed tree in quarters as
// Limits.MaxNodes does for a page that asks for each element, but for the
// bytes: the document and elements 4, other nodes and attributes 2.
func treeQuarters(n *html.Node) int64 {
	var q int64
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode || n.Type == html.DocumentNode {
			q += 4
		} else {
			q += 2
		}
		q += 2 * int64(len(n.Attr))
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return q
}

// structure is the estimate in quarters without the bytes and the
// re-parsed <noscript> text, to compare with treeQuarters.
func (e *buildEstimate) structure() int64 { return e.quarters() - e.bytes/16 - e.reparsed }

// estimateAndParse scans src with no limit and parses what checkBuild
// would hand the parser; ok is false when html.Parse refuses the page.
func estimateAndParse(t *testing.T, src []byte) (s *buildScan, tree int64, ok bool) {
	t.Helper()
	s, err := scanBuild(src, Limits{MaxElements: 1 << 40})
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	out := src
	if s.out != nil {
		out = append(s.out, src[s.copied:]...)
	}
	doc, err := html.Parse(bytes.NewReader(out))
	if err != nil {
		return s, 0, false // deeper than 512: html.Parse fails without building more
	}
	return s, treeQuarters(doc), true
}

// soupTokens is the vocabulary of the random pages: the tags and tokens
// that move the tree builder's stack, its active formatting elements, its
// tables, foreign content and raw text.
var soupTokens = []string{
	"<p>", "</p>", "<div>", "</div>", "<span>", "</span>", "<li>", "</li>", "<ul>", "</ul>",
	"<dd>", "<dt>", "</dl>", "<h1>", "<h2>", "</h1>", "<button>", "</button>", "<pre>\n",
	"<b>", "</b>", "<i>", "</i>", "<b id=1>", "<b id=2>", "<font color=red>", "</font>",
	"<a href=x>", "</a>", "<nobr>", "</nobr>", "<em>", "</em>", "<u>", "</u>", "<code>",
	"<table>", "</table>", "<tr>", "</tr>", "<td>", "</td>", "<th>", "</th>", "<tbody>",
	"<caption>", "</caption>", "<col>", "<colgroup>", "<input type=hidden>", "<form>", "</form>",
	"x", "y z", " ", "\n", "\x00", "<!---->", "<!-- c -->", "<!doctype html>", "</br>", "<br>",
	"<img>", "<hr>", "<select>", "<option>", "</option>", "</select>", "<optgroup>", "<input>",
	"<template>", "</template>", "<svg>", "</svg>", "<math>", "</math>", "<mi>", "<title>",
	"</title>", "<foreignObject>", "</foreignObject>", "<desc>", "<path>", "</path>", "<style>",
	"</style>", "<script>", "</script>", "<textarea>", "</textarea>", "<noscript>", "</noscript>",
	"<![CDATA[", "]]>", "<xmp>", "<object>", "</object>", "<marquee>", "<html lang=en>",
	"<body class=x>", "</body>", "</html>", "<frameset>", "<image>", "<my-tag>", "</my-tag>",
	"<ruby>", "<rt>", "<rp>", "<applet>", "</applet>", "<listing>", "<iframe>", "</iframe>",
}

// soup returns a random page of n tokens.
func soup(r *rand.Rand, n int) []byte {
	var b strings.Builder
	for range n {
		tok := soupTokens[r.IntN(len(soupTokens))]
		if tok == "<frameset>" && r.IntN(8) != 0 {
			continue // rarely: it ends most of the page
		}
		b.WriteString(tok)
	}
	return []byte(b.String())
}

// TestBuildEstimateBoundsTheParser: on random tag soup and on the real
// pages of the replay corpus, checkBuild's estimate is never below what
// html.Parse builds from the page it hands over.
func TestBuildEstimateBoundsTheParser(t *testing.T) {
	hostiletest.SkipUnderRace(t)
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	pages, worst := 0, 0.0
	for i := range 20_000 {
		src := soup(r, 10+r.IntN(200))
		s, tree, ok := estimateAndParse(t, src)
		if !ok {
			continue
		}
		pages++
		est := s.est.structure()
		if est < tree {
			t.Fatalf("page %d: estimate %d quarter nodes, html.Parse built %d (%s)\n%q", i, est, tree, s.est.parts(), src)
		}
		worst = max(worst, float64(est)/float64(tree))
	}
	t.Logf("%d random pages: the estimate is at most %.1f times what the parser builds", pages, worst)
}

// TestBuildEstimateOfRealPages: the estimate of the replay corpus's pages
// bounds what the parser builds, within a fifth, and is far under the
// budget of the default limits.
func TestBuildEstimateOfRealPages(t *testing.T) {
	t.Parallel()
	for _, p := range replayPages(t) {
		if !strings.Contains(p.ContentType, "html") {
			continue
		}
		src, err := decodeHTML(p.Body, p.ContentType)
		if err != nil {
			t.Fatal(err)
		}
		s, tree, ok := estimateAndParse(t, src)
		if !ok {
			t.Fatalf("%s: html.Parse failed", p.URL)
		}
		est := s.est.structure()
		if est < tree || est > tree*6/5 {
			t.Errorf("%s: estimate %d quarter nodes, the parser builds %d", p.URL, est, tree)
		}
		if _, err := checkBuild(src, Limits{MaxElements: 50_000}); err != nil {
			t.Errorf("%s: %v", p.URL, err)
		}
		t.Logf("%-50s %6d bytes: %5d nodes estimated (%d with its bytes), %5d built", filepath.Base(p.URL), len(p.Body), est/4, s.est.quarters()/4, tree/4)
	}
}

// TestOrdinaryLargeTablesPass: a table of 12,000 indented rows, white
// space between every tag, is no join bomb.
func TestOrdinaryLargeTablesPass(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("<table>\n  <tbody>\n")
	for i := range 12_000 {
		fmt.Fprintf(&b, "    <tr>\n      <td>%d</td>\n      <td><b>row</b> %d</td>\n    </tr>\n", i, i)
	}
	b.WriteString("  </tbody>\n</table>\n")
	s, err := scanBuild([]byte(b.String()), defaultLimits)
	if err == nil {
		err = s.verdict()
	}
	if err != nil || s.est.joined > 1<<20 {
		t.Errorf("%v, %s bytes joined; want the table through, joining little", err, thousands(s.est.joined))
	}
}

// TestTagGuardCountsAsTheTokenizer: attrSlots finds the attributes
// html.Tokenizer reads, and the guard follows the tokenizer's position.
func TestTagGuardCountsAsTheTokenizer(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	parts := []string{" a", " b=1", " c='x y>'", ` d="p>q"`, " e = f", "/", " /", "=", " =g", " h=>", "\n", " i='", ` j="`, " k=l/m", "\t"}
	for i := range 5_000 {
		var tag strings.Builder
		tag.WriteString("<div")
		for range r.IntN(12) {
			tag.WriteString(parts[r.IntN(len(parts))])
		}
		if r.IntN(10) != 0 {
			tag.WriteString(">")
		}
		src := []byte(tag.String() + "<p>after")
		z := html.NewTokenizer(bytes.NewReader(src))
		z.Next()
		want := 0
		if _, more := z.TagName(); more {
			for more {
				_, _, more = z.TagAttr()
				want++
			}
		}
		if got := attrSlots(src, 100); got < want {
			t.Fatalf("tag %d %q: %d attributes counted, the tokenizer read %d", i, src, got, want)
		}
	}
	src := []byte("<p a=1>x</p><script>if (a<b) {}</script><!-- c --><title></title><br/>&amp;<svg><style>x</style></svg>")
	z := html.NewTokenizer(bytes.NewReader(src))
	g := tagGuard{src: src}
	var raw []byte
	for {
		tt, err := g.next(z)
		if err != nil || tt == html.ErrorToken {
			break
		}
		raw = append(raw, z.Raw()...)
		if g.off != len(raw) {
			t.Fatalf("guard at %d, tokenizer at %d", g.off, len(raw))
		}
	}
	if !bytes.Equal(raw, src) {
		t.Errorf("tokens cover %q, want %q", raw, src)
	}
}

// TestHugeTagIsRefusedBeforeTheTokenizerReadsIt: a tag of more than
// maxTagAttrs attributes fails the page with its name and offset.
func TestHugeTagIsRefusedBeforeTheTokenizerReadsIt(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("<p>x</p><div")
	for i := range maxTagAttrs + 1 {
		fmt.Fprintf(&b, " a%d", i)
	}
	b.WriteString(">")
	_, err := checkBuild([]byte(b.String()), Limits{MaxElements: 50_000})
	if !errors.Is(err, ErrTooManyElements) || !strings.Contains(err.Error(), "<div> tag at byte 8 has more than 10,000 attributes") {
		t.Errorf("%v, want the tag refused", err)
	}
	// readability parses <noscript> text: the tag is refused there too.
	_, err = checkBuild([]byte("<noscript>"+b.String()+"</noscript>"), Limits{MaxElements: 50_000})
	if !errors.Is(err, ErrTooManyElements) || !strings.Contains(err.Error(), "in <noscript> text") {
		t.Errorf("%v, want the tag in <noscript> refused", err)
	}
}

// FuzzBuildEstimateBoundsTheParser looks for a page whose estimate is
// below what html.Parse builds from it (go test -fuzz=FuzzBuildEstimate).
func FuzzBuildEstimateBoundsTheParser(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 20 {
		f.Add(soup(r, 40))
	}
	f.Add([]byte("<p><b id=1><b id=2><i><p>x</p><p>y</b></i><table><tr><td><font color=red>z</td></table>"))
	f.Add([]byte("<svg><style><p><b>x</style><![CDATA[<p>]]></svg><noscript><p><b><p>x</noscript>"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 4096 {
			return
		}
		s, tree, ok := estimateAndParse(t, src)
		if ok && s.est.structure() < tree {
			t.Fatalf("estimate %d quarter nodes, html.Parse built %d (%s)", s.est.structure(), tree, s.est.parts())
		}
	})
}
