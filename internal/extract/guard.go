package extract

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The article guard.
//
// Readability picks the block of the page with the best paragraph score. On
// a page with a short article that choice can fall on something else: a
// list of teasers for other posts, or, once chrome pruning has removed an
// author box, a comment form and a sidebar, whatever prose is left beside a
// consent banner. The guard checks the choice against two things the page
// says about itself and replaces it when they disagree:
//
//   - The page's headline (its <h1> or <h2> that is the <title>, see
//     headline) is followed by the article's lead: the first paragraph of
//     prose after it (see leadParagraph), on the pruned page when its
//     headline survived pruning, else on the unpruned page. An
//     extraction that lacks the lead is compared with readability run on
//     the headline's section alone (the lowest ancestor of the headline
//     holding the lead and another paragraph, on the pruned page, else on
//     the unpruned one): the section replaces it when it is not already
//     mostly in it, has at least tinyWords words, and either the
//     extraction looks suspect (a link listing, or under suspectWords
//     words) or the section is an article of its own, at least half as
//     long (not a header whose standfirst readability rightly left out).
//   - The page without chrome pruning: an extraction that collapsed to a
//     few words (under tinyWords: a consent banner's buttons) is replaced by
//     readability on the unpruned page when that holds the lead, or has at
//     least collapseRatio times as many words and is not a link listing.
//
// What is left after both is an extraction the fleet does not store when it
// is still a few words while the page's paragraphs hold collapseRatio times
// as many (and at least suspectWords): that page fails with ErrArticleLost.
//
// The figures are round numbers, not fitted: a lead is a real paragraph
// (two lines of text), a suspect extraction is shorter than a paragraph or
// two, a collapsed one shorter than a sentence or two, and 4× is a
// difference no near-tie reaches.
const (
	leadRunes     = 80
	suspectWords  = 100
	tinyWords     = 25
	collapseRatio = 4
	// listingShare is the share of an extraction's blocks that are all
	// link text (headlines of other pages) from which it is a listing.
	listingShare = 0.3
)

// ErrArticleLost is returned by FromHTML when the page holds an article
// that extraction could not isolate (see the article guard above): storing
// what it found instead (a teaser list, a consent banner) would make
// evidence of page chrome. Its text is the target failure reason.
var ErrArticleLost = errors.New("article_lost")

// candidate is one extraction of the page: its canonical text and shape.
type candidate struct {
	text    string
	words   int
	listing bool // a list of links to other pages, not prose
}

func newCandidate(n *html.Node, pageURL *url.URL) candidate {
	if n == nil {
		return candidate{}
	}
	leaves := leafBlocks(n)
	listing := linkListing(leaves)
	dropTail(leaves, pageURL)
	t := nodeText(n, false)
	return candidate{text: t, words: countWords(t), listing: listing}
}

// hasLead reports whether c holds the lead ("" holds nothing).
func hasLead(c candidate, lead string) bool {
	return lead != "" && strings.Contains(collapseSpace(c.text), lead)
}

func (c candidate) suspect() bool { return c.listing || c.words < suspectWords }

// alternatives computes, on demand, what the article guard compares an
// extraction with.
type alternatives struct {
	section        func() candidate // readability on the headline's section alone
	unpruned       func() candidate // readability on the page without chrome pruning
	paragraphWords func() int       // the words of the pruned page's <p> elements
}

// pageAlternatives are the alternatives for the decoded page src (re-parsed
// for each, since readability mutates its tree).
func pageAlternatives(src []byte, pageURL *url.URL, title string) alternatives {
	return alternatives{
		section: func() candidate {
			// The pruned page's section, else the unpruned page's: pruning
			// may have taken the headline with it (a page inside a form).
			for _, prune := range []bool{true, false} {
				doc, err := html.Parse(bytes.NewReader(src))
				if err != nil {
					return candidate{}
				}
				if prune {
					pruneChrome(doc, pageURL, title)
				}
				if sec := titleSection(doc, title); sec != nil {
					return readableSection(sec, pageURL, title)
				}
			}
			return candidate{}
		},
		unpruned: func() candidate {
			doc, err := html.Parse(bytes.NewReader(src))
			if err != nil {
				return candidate{}
			}
			art, err := readable(doc, pageURL)
			if err != nil {
				return candidate{}
			}
			return newCandidate(art.Node, pageURL)
		},
		paragraphWords: func() int {
			doc, err := parsePruned(src, pageURL, title)
			if err != nil {
				return 0
			}
			return paragraphWords(doc)
		},
	}
}

// guardArticle applies the article guard to p, readability's extraction of
// the pruned page whose lead is lead ("" when it has none).
func guardArticle(p candidate, lead string, alt alternatives) (candidate, error) {
	if lead != "" && !hasLead(p, lead) {
		// A suspect extraction gives way to any real section; a sound one
		// only to a section that is an article of its own (half its
		// length or more), not to a header holding the standfirst.
		if a := alt.section(); a.words >= tinyWords && containedShare(a.text, p.text) < 0.5 &&
			(p.suspect() || 2*a.words >= p.words) {
			p = a
		}
	}
	if p.words < tinyWords {
		r := alt.unpruned()
		if (hasLead(r, lead) && !hasLead(p, lead)) || (!r.listing && r.words >= collapseRatio*max(p.words, 1)) {
			p = r
		}
	}
	if p.words > 0 && p.words < tinyWords {
		if pw := alt.paragraphWords(); pw >= suspectWords && p.words*collapseRatio < pw {
			return p, fmt.Errorf("%w: the extraction holds %d words, the page's paragraphs %d", ErrArticleLost, p.words, pw)
		}
	}
	return p, nil
}

// parsePruned parses src and prunes its chrome, as fromSource does.
func parsePruned(src []byte, pageURL *url.URL, title string) (*html.Node, error) {
	doc, err := html.Parse(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	pruneChrome(doc, pageURL, title)
	return doc, nil
}

// articleLead returns the start of the page's lead (see the article guard),
// whitespace collapsed, or "" when the page has no headline or no paragraph
// after it.
func articleLead(doc *html.Node, title string) string {
	h := headline(doc, title)
	if h == nil {
		return ""
	}
	if p := leadParagraph(h); p != nil {
		return firstRunes(collapseSpace(nodeText(p, false)), leadRunes)
	}
	return ""
}

// leadParagraph returns the first <p> after the headline h, in document
// order, that reads as prose: at least leadRunes characters, one of them a
// sentence terminator ("." "?" "!" "。" …; a date line or a "Cite this
// article" line has none). It returns nil when there is none.
func leadParagraph(h *html.Node) *html.Node {
	for n := nextInOrder(h, true); n != nil; n = nextInOrder(n, false) {
		if n.Type != html.ElementNode || n.DataAtom != atom.P {
			continue
		}
		t := collapseSpace(nodeText(n, false))
		if utf8.RuneCountInString(t) >= leadRunes && strings.ContainsFunc(t, sentenceEnd) {
			return n
		}
	}
	return nil
}

// headline returns the first <h1>, else <h2>, whose text is the page title
// (isPageTitle), else the page's only <h1>, or nil.
func headline(doc *html.Node, title string) *html.Node {
	var h1s []*html.Node
	for _, a := range []atom.Atom{atom.H1, atom.H2} {
		var found *html.Node
		walkElems(doc, func(n *html.Node) bool {
			if n.DataAtom == atom.H1 && a == atom.H1 && !hidden(n) {
				h1s = append(h1s, n)
			}
			if found == nil && n.DataAtom == a && isPageTitle(collapseSpace(textContent(n)), title) {
				found = n
			}
			return true
		})
		if found != nil {
			return found
		}
	}
	if len(h1s) == 1 && collapseSpace(textContent(h1s[0])) != "" {
		return h1s[0]
	}
	return nil
}

// titleSection returns the lowest ancestor of the headline, at most
// sectionLevels up, that holds its lead paragraph and one more paragraph,
// or nil. (The cap bounds the walks on a page nested hundreds deep.)
func titleSection(doc *html.Node, title string) *html.Node {
	h := headline(doc, title)
	if h == nil {
		return nil
	}
	lead := leadParagraph(h)
	if lead == nil {
		return nil
	}
	n := h.Parent
	for range sectionLevels {
		if n == nil || n.Type != html.ElementNode || n.DataAtom == atom.Body {
			return nil
		}
		paras, hasLead := 0, false
		walkElems(n, func(c *html.Node) bool {
			if c.DataAtom == atom.P && strings.TrimSpace(textContent(c)) != "" {
				paras++
				hasLead = hasLead || c == lead
				return false
			}
			return true
		})
		if hasLead && paras >= 2 {
			return n
		}
		n = n.Parent
	}
	return nil
}

// sectionLevels is how far above the headline its section may start: a
// headline sits in a header, an article, a main part, a column.
const sectionLevels = 8

// readableSection runs readability on a page holding only sec (detached
// from its tree).
func readableSection(sec *html.Node, pageURL *url.URL, title string) candidate {
	doc, err := html.Parse(strings.NewReader("<html><head><title></title></head><body></body></html>"))
	if err != nil {
		return candidate{}
	}
	firstElem(doc, atom.Title).AppendChild(&html.Node{Type: html.TextNode, Data: title})
	sec.Parent.RemoveChild(sec)
	firstElem(doc, atom.Body).AppendChild(sec)
	art, err := readable(doc, pageURL)
	if err != nil {
		return candidate{}
	}
	return newCandidate(art.Node, pageURL)
}

// leafBlock is a block element of an extraction that holds no other
// block, with its word counts (see linkWords).
type leafBlock struct {
	n            *html.Node
	words, links int
}

// leafBlocks lists n's leaf blocks that hold any word, in document order.
func leafBlocks(n *html.Node) []leafBlock {
	var out []leafBlock
	walkElems(n, func(c *html.Node) bool {
		if !blockElem[c.DataAtom] || hasBlockChild(c) {
			return true
		}
		if w, l := linkWords(c); w > 0 {
			out = append(out, leafBlock{c, w, l})
		}
		return false
	})
	return out
}

// linkListing reports an extraction whose leaf blocks are for at least
// listingShare (and at least three of them) nothing but link text: the
// headlines of a list of other pages.
func linkListing(leaves []leafBlock) bool {
	links := 0
	for _, b := range leaves {
		if b.words == b.links {
			links++
		}
	}
	return links >= 3 && float64(links) >= listingShare*float64(len(leaves))
}

// The tail. After an article's last line of prose, readability often keeps
// what its container holds below it: related stories, "Read more" links,
// "Share this:", "Tags: …", "Posted in …". dropTail removes that run of
// tail lines that ends an extraction. A tail line is a leaf block that is
// either a link line (at most linkLineWords words, at least half of them
// link text, with a link that leaves the page) or a label (at most
// labelWords words and no sentence terminator). The same lines between
// paragraphs stay: in the middle of an article they are as often its
// content (a list of changes, each linking to its bug; a sub-heading).
const (
	linkLineWords = 30
	labelWords    = 8
)

// dropTail removes the trailing tail lines among an extraction's leaves
// (see above) from their tree; an extraction without a line of prose keeps
// them all.
func dropTail(leaves []leafBlock, pageURL *url.URL) {
	tail := make([]bool, len(leaves))
	for i, b := range leaves {
		link := b.words <= linkLineWords && 2*b.links >= b.words && linksElsewhere(b.n, pageURL)
		label := b.words <= labelWords && !strings.ContainsFunc(textContent(b.n), sentenceEnd)
		tail[i] = link || label
	}
	prose := slices.Index(tail, false) >= 0
	for i := len(leaves) - 1; prose && tail[i]; i-- {
		leaves[i].n.Parent.RemoveChild(leaves[i].n)
	}
}

func sentenceEnd(r rune) bool { return unicode.Is(unicode.Sentence_Terminal, r) }

// linksElsewhere reports an <a> in n whose href leaves the page.
func linksElsewhere(n *html.Node, pageURL *url.URL) bool {
	found := false
	walkElems(n, func(c *html.Node) bool {
		if c.DataAtom == atom.A {
			if href := attrOr(c, "href"); strings.TrimSpace(href) != "" && !samePageFragment(href, pageURL) {
				found = true
			}
		}
		return !found
	})
	return found
}

// linkWords counts the words of n's text and those inside <a> elements
// (a word split by a tag counts twice), holding no copy of the text.
func linkWords(n *html.Node) (all, inLinks int) {
	var walk func(*html.Node, bool)
	walk = func(n *html.Node, link bool) {
		if n.Type == html.TextNode {
			w := countWords(n.Data)
			all += w
			if link {
				inLinks += w
			}
			return
		}
		if n.Type == html.ElementNode && (skipElem[n.DataAtom] || hidden(n)) {
			return
		}
		link = link || n.DataAtom == atom.A
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, link)
		}
	}
	walk(n, false)
	return all, inLinks
}

// countWords is len(strings.Fields(s)) without the slice.
func countWords(s string) int {
	n, in := 0, false
	for _, r := range s {
		if unicode.IsSpace(r) {
			in = false
		} else if !in {
			in = true
			n++
		}
	}
	return n
}

func hasBlockChild(n *html.Node) bool {
	found := false
	walkElems(n, func(c *html.Node) bool {
		if c != n && blockElem[c.DataAtom] {
			found = true
		}
		return !found
	})
	return found
}

// paragraphWords counts the words of the <p> elements of doc's <body>.
func paragraphWords(doc *html.Node) int {
	words := 0
	walkElems(doc, func(n *html.Node) bool {
		if n.DataAtom == atom.P {
			words += countWords(nodeText(n, false))
			return false
		}
		return true
	})
	return words
}

// containedShare is the share of a's characters in blocks that b has too
// (block for block: a set lookup, so that comparing two long extractions
// stays linear in their length).
func containedShare(a, b string) float64 {
	have := make(map[string]bool)
	for _, blk := range strings.Split(b, blockSep) {
		have[blk] = true
	}
	in, all := 0, 0
	for _, blk := range strings.Split(a, blockSep) {
		n := utf8.RuneCountInString(blk)
		all += n
		if have[blk] {
			in += n
		}
	}
	if all == 0 {
		return 0
	}
	return float64(in) / float64(all)
}

// walkElems calls fn on every element of n's subtree (n included) in
// document order; fn returns false to skip the element's children.
func walkElems(n *html.Node, fn func(*html.Node) bool) {
	if n.Type == html.ElementNode && !fn(n) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walkElems(c, fn)
	}
}

// nextInOrder returns the node after n in document order; skipChildren
// steps over n's subtree.
func nextInOrder(n *html.Node, skipChildren bool) *html.Node {
	if !skipChildren && n.FirstChild != nil {
		return n.FirstChild
	}
	for ; n != nil; n = n.Parent {
		if n.NextSibling != nil {
			return n.NextSibling
		}
	}
	return nil
}

func firstRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
