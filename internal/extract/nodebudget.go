package extract

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// What the HTML5 tree builder makes of a page is not what the page says:
// it re-opens every active formatting element (<b>, <i>, <a>, <font>, …)
// that a block boundary closed, before each text and most start tags; it
// implies a <p> for each stray </p> and a <br> for each </br>; each text,
// comment and attribute is a node or an object of its own; it joins text
// to a preceding text node by copying it; it copies the attributes of each
// later <html> and <body> tag into the first. 250 nested <b id=N> and then
// 20,000 <p>x</p> (162 KB) make five million elements.
//
// checkBuild reads the page as html.Parse will, token by token, holding no
// tree, and keeps an upper bound of what the tree builder would create
// (buildEstimate). It follows the active formatting elements coarsely:
// every formatting start tag adds one (at most 3 alike, the spec's Noah's
// Ark clause); any token that may pop elements marks them all as possibly
// closed, and the next token that may reconstruct counts them all
// re-opened. It also keeps a superset of the special elements open
// (blockModel), popped only where the parser surely pops them: an end tag
// of a formatting element with none of them open above it retires the
// element, as the adoption agency does; with some, it stays, and the end
// tag counts the most the agency may clone (4 for each, at most 8 rounds).
// Where it cannot tell what the parser does, it counts the larger figure.
// TestBuildEstimateBoundsTheParser compares it with html.Parse on random
// tag soup and on real pages.
//
// A tokenizer reads the content of <script>, <style>, <title>, <noscript>,
// … as raw text, but the parser has it read as markup inside <svg> and
// <math>, where it also reads <![CDATA[…]]> as text. So that the parser
// reads exactly the tokens counted here, wherever an <svg> or <math> may be
// open checkBuild escapes '<' and '&' in raw text (they then read as the
// same text either way) and turns <![CDATA[ into a bogus comment, on a copy.

// NodesPerElement is the node budget of a page per start tag it may have:
// Limits.MaxNodes is this times Limits.MaxElements unless set.
const NodesPerElement = 3

// maxJoinBytes caps the bytes html.Parse may copy joining text to a
// preceding text node ("x</x>" 200,000 times copies 20 GB in 10 s). Real
// pages copy about their text once.
const maxJoinBytes = 64 << 20

// Limits bound what parsing one HTML page may build.
type Limits struct {
	// MaxElements caps the start tags of the page (0: no cap).
	MaxElements int
	// MaxNodes caps the nodes the parser would build, weighed by what
	// they hold on the heap through extraction (parser, readability and
	// text walks; measured on the shapes of parserbomb_test.go): an
	// element of a start tag counts 1 (about 450 bytes); an element the
	// page did not ask for (implied, re-opened or cloned, in bombs deeply
	// nested) 1.5; a text, comment or doctype node and an attribute
	// (stored or copied) 0.5; each 16 bytes of text, comments and
	// attribute values 0.25 (a 5 MiB text node holds 29 MiB). 0:
	// NodesPerElement × MaxElements.
	MaxNodes int
}

// maxNodes resolves MaxNodes (0: no cap).
func (l Limits) maxNodes() int64 {
	if l.MaxNodes > 0 {
		return int64(l.MaxNodes)
	}
	return int64(NodesPerElement) * int64(max(l.MaxElements, 0))
}

// buildEstimate is an upper bound of what html.Parse builds for a page.
type buildEstimate struct {
	startTags int64 // start tags of the page
	implied   int64 // elements no start tag asked for: <p> of </p>, <br> of </br>, table parts
	reopened  int64 // formatting elements re-opened by reconstruction
	adopted   int64 // elements cloned by the adoption agency
	chars     int64 // text, comment and doctype nodes
	attrs     int64 // attributes stored or copied
	bytes     int64 // bytes of text, comments and attribute values
	joined    int64 // bytes copied joining text to a text node
	runs      int64 // text tokens that may join a text node
	reparsed  int64 // quarter nodes readability builds re-parsing <noscript> text
}

// quarters is the node estimate in quarters (see Limits.MaxNodes).
func (e *buildEstimate) quarters() int64 {
	return 4*e.startTags + 6*(e.implied+e.reopened+e.adopted) + 2*(e.chars+e.attrs) + e.bytes/16 + e.reparsed
}

// weights explains quarters in error messages.
const weights = "an element counts 1, one the page did not ask for 1.5, a text, comment or attribute 0.5, 16 bytes of text 0.25"

// buildScan is checkBuild's state: the estimate, the models it needs, and
// the copy of the page it writes when raw text needs escaping.
type buildScan struct {
	lim    Limits
	nested bool // scanning <noscript> text that readability re-parses
	est    buildEstimate

	afe       afeModel
	blocks    blockModel
	pos       int64 // positions on the stack of open elements, in push order
	pOpen     bool  // a <p> is surely open in button scope
	tables    []tableCtx
	run       int64 // bytes of the text node the next text may join
	htmlAttrs int64 // attributes given to <html> tags so far
	bodyAttrs int64 // attributes given to <body> tags so far
	inBody    bool  // the parser may be past the head: it put content in the body
	afterBody bool  // a </body> or </html> was seen: comments may land elsewhere
	frameset  bool  // a <frameset> was seen

	foreign foreignModel

	src    []byte
	out    []byte // the rewritten page, nil while src needs no change
	copied int    // src[:copied] is in out
}

// checkBuild reads src, a decoded HTML page, as html.Parse will and returns
// src, or a copy with ambiguous raw text escaped (see above), for the
// parser; or an error wrapping ErrTooManyElements when the page is over a
// limit of lim, with its figures.
func checkBuild(src []byte, lim Limits) ([]byte, error) {
	out, _, err := scanChecked(src, lim)
	return out, err
}

// scanChecked is checkBuild that also returns the estimate of what the
// parser would build, in quarters of a node (buildEstimate.quarters).
func scanChecked(src []byte, lim Limits) ([]byte, int64, error) {
	s, err := scanBuild(src, lim)
	if err != nil {
		return nil, 0, err
	}
	if err := s.verdict(); err != nil {
		return nil, 0, err
	}
	if s.out == nil {
		return src, s.est.quarters(), nil
	}
	return append(s.out, src[s.copied:]...), s.est.quarters(), nil
}

// scanBuild reads src (see checkBuild) and returns what it found; only a
// tag with too many attributes is an error here.
func scanBuild(src []byte, lim Limits) (*buildScan, error) {
	s := newBuildScan(src, lim, false)
	return s, s.scan()
}

func newBuildScan(src []byte, lim Limits, nested bool) *buildScan {
	s := &buildScan{lim: lim, src: src, nested: nested}
	s.est.implied = 4 // the document, <html>, <head> and <body>
	return s
}

// scan tokenizes the whole of s.src, counting; it stops early only at a
// tag with more than maxTagAttrs attributes.
func (s *buildScan) scan() error {
	z := html.NewTokenizer(bytes.NewReader(s.src))
	g := tagGuard{src: s.src}
	rawTag, rawEscape := "", false
	for {
		start := g.off
		tt, err := g.next(z)
		if err != nil {
			return err
		}
		switch tt {
		case html.ErrorToken:
			return nil // EOF, or malformed input left to the parser
		case html.TextToken:
			if rawTag != "" {
				if err := s.rawText(rawTag, z.Text(), start, g.off, rawEscape); err != nil {
					return err
				}
			} else {
				s.text(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			s.startTag(z, tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			name, _ := z.TagName()
			s.endTag(name)
		case html.CommentToken:
			s.comment(start, g.off)
		case html.DoctypeToken:
			s.est.chars++
		}
		rawTag, rawEscape = g.raw, g.raw != "" && s.foreign.maybe()
		if s.over() {
			s.out, s.copied = nil, 0 // the copy is not needed any more
		}
	}
}

// over reports a page already over a limit.
func (s *buildScan) over() bool {
	maxNodes := s.lim.maxNodes()
	return s.lim.MaxElements > 0 && s.est.startTags > int64(s.lim.MaxElements) ||
		maxNodes > 0 && s.est.quarters() > 4*maxNodes ||
		(s.lim.MaxElements > 0 || maxNodes > 0) && s.est.joined > maxJoinBytes
}

// verdict returns the error for a page over a limit, with its figures
// (of every limit it is over).
func (s *buildScan) verdict() error {
	e, maxNodes := &s.est, s.lim.maxNodes()
	var over []string
	if s.lim.MaxElements > 0 && e.startTags > int64(s.lim.MaxElements) {
		over = append(over, fmt.Sprintf("%s start tags, more than %s", thousands(e.startTags), thousands(int64(s.lim.MaxElements))))
	}
	if maxNodes > 0 && e.quarters() > 4*maxNodes {
		over = append(over, fmt.Sprintf("the parser would build %s nodes, more than %s (%s): %s",
			thousands((e.quarters()+3)/4), thousands(maxNodes), weights, e.parts()))
	}
	if s.over() && e.joined > maxJoinBytes {
		over = append(over, fmt.Sprintf("the parser would copy %s bytes joining %s text runs to the text before them, more than %s",
			thousands(e.joined), thousands(e.runs), thousands(maxJoinBytes)))
	}
	if len(over) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrTooManyElements, strings.Join(over, "; "))
}

// parts lists the figures of an estimate that are not zero.
func (e *buildEstimate) parts() string {
	var out []string
	for _, p := range []struct {
		n    int64
		what string
	}{
		{e.startTags, "tags"}, {e.implied, "implied elements"}, {e.reopened, "re-opened formatting elements"},
		{e.adopted, "elements cloned by the adoption agency"}, {e.chars, "text, comment and doctype nodes"},
		{e.attrs, "attributes"}, {e.bytes, "bytes of text"}, {(e.reparsed + 3) / 4, "nodes of <noscript> text re-parsed"},
	} {
		if p.n > 0 {
			out = append(out, thousands(p.n)+" "+p.what)
		}
	}
	return strings.Join(out, ", ")
}

// startTag counts a start tag and follows its effects.
func (s *buildScan) startTag(z *html.Tokenizer, selfClosing bool) {
	name, hasAttr := z.TagName()
	a := atom.Lookup(name)
	var nattr, nbytes int64
	var sig uint64
	if hasAttr {
		nattr, nbytes, sig = tagAttrs(z)
	}
	e := &s.est
	e.bytes += nbytes
	e.startTags++
	e.attrs += nattr
	if !headTag(a) {
		s.inBody = true
	}
	switch a {
	case atom.Html:
		e.attrs, s.htmlAttrs = e.attrs+mergeCost(s.htmlAttrs, nattr), s.htmlAttrs+nattr
	case atom.Body:
		e.attrs, s.bodyAttrs = e.attrs+mergeCost(s.bodyAttrs, nattr), s.bodyAttrs+nattr
	case atom.Frameset:
		s.frameset = true
	}
	foreign := s.foreign.maybe()
	sure := !s.frameset && (!foreign || breakout(a))
	if blockTag(a) {
		s.afe.dirty = true // it may pop elements before it reconstructs (<xmp>, <button>, <input>)
	}
	if formatting(a) {
		s.formattingStart(a, nattr, sig, sure)
	} else if reconstructs(a) {
		s.reconstruct(sure && a != atom.Select && a != atom.Input)
	}
	s.startJoin(a)
	if blockTag(a) {
		s.pOpen = false
		s.blockStart(a, selfClosing)
	}
	s.tableStart(a)
	if a == atom.P {
		s.pOpen = true
	}
	s.foreign.start(a, name, selfClosing)
}

// nextPos returns the next position on the stack of open elements.
func (s *buildScan) nextPos() int64 {
	s.pos++
	return s.pos
}

// mergeCost is what copying n more attributes into an <html> or <body>
// holding had costs: html.Parse builds a map of all it holds each time.
func mergeCost(had, n int64) int64 {
	if n == 0 {
		return 0
	}
	return had
}

// endTag counts an end tag and follows its effects.
func (s *buildScan) endTag(name []byte) {
	a := atom.Lookup(name)
	switch {
	case a == atom.Br: // </br> is a <br>
		s.est.implied++
		foreign := s.foreign.maybe()
		s.reconstruct(!s.frameset && !foreign)
		s.startJoin(a)
		return
	case a == atom.P:
		if !s.pOpen {
			s.est.implied++ // a <p> is inserted to be closed
		}
		s.startJoin(a) // either way a <p> is now the last child
	case formatting(a):
		s.formattingEnd(a)
	case a == atom.Body || a == atom.Html:
		s.afterBody, s.inBody = true, true
	}
	s.afe.dirty = true
	if special(a) {
		s.pOpen = false
	}
	s.blockEnd(a)
	s.tableEnd(a)
	s.foreign.end(name)
}

// text counts a text token of markup (not raw text).
func (s *buildScan) text(data []byte) {
	s.est.chars++
	s.est.bytes += int64(len(data))
	rest := bytes.TrimLeft(data, " \t\n\f\r")
	blank := len(bytes.Trim(rest, " \t\n\f\r\x00")) == 0
	if !blank && len(rest) < len(data) {
		// In the head or a column group, leading white space is a text
		// node of its own, and the rest goes elsewhere.
		if t := s.topTable(); !s.inBody || t != nil && !t.inCell {
			s.est.chars++
		}
	}
	if !blank {
		s.inBody = true
	}
	s.reconstruct(!blank && !s.frameset && !s.foreign.maybe())
	s.join(int64(len(data)), blank)
}

// rawText counts the content of a raw-text element, src[from:to], and
// escapes it in the copy when escape (an <svg> or <math> may be open, where
// the parser reads it as markup). readability re-parses <noscript> text:
// a tag of too many attributes there fails the page too.
func (s *buildScan) rawText(tag string, data []byte, from, to int, escape bool) error {
	s.est.chars++
	s.est.bytes += int64(len(data))
	// The only child of the element just opened: it joins nothing.
	if tag == "noscript" && !s.nested {
		sub := newBuildScan(data, Limits{}, true)
		if err := sub.scan(); err != nil {
			return fmt.Errorf("%w (in <noscript> text, which readability parses)", err)
		}
		s.est.reparsed += sub.est.quarters()
		s.est.joined += sub.est.joined
	}
	if escape && !s.nested && !s.over() {
		s.escapeRaw(tag, from, to)
	}
	return nil
}

// comment counts a comment (or a bogus one) at src[from:to].
func (s *buildScan) comment(from, to int) {
	s.est.chars++
	s.est.bytes += int64(to - from)
	if t := s.topTable(); (t == nil || t.inCell) && !s.afterBody && !s.frameset {
		s.run = 0 // appended where the next text goes
	}
	if s.foreign.maybe() && !s.nested && !s.over() && bytes.HasPrefix(s.src[from:to], []byte("<![CDATA[")) {
		s.rewrite(from, from+len("<!["), []byte("<!-")) // a bogus comment either way
	}
}

// join counts text of n bytes that html.Parse may append to the text node
// before it by copying that node.
func (s *buildScan) join(n int64, blank bool) {
	run := &s.run
	if t := s.topTable(); t != nil && !t.inCell {
		// In a table's own content, white space goes into the table (or
		// the row or body it is in); other text is foster-parented before
		// the table, joining the text there.
		run = &t.foster
		if blank {
			run = &t.blank
		}
	}
	if *run > 0 {
		s.est.joined += *run
		s.est.runs++
	}
	*run += n
}

// startJoin follows where text goes after the element a is inserted: text
// that follows cannot join the text before it, unless a is a tag the
// parser may ignore or put into a table while text goes before it.
func (s *buildScan) startJoin(a atom.Atom) {
	if s.frameset {
		return
	}
	if t := s.topTable(); t != nil && !t.inCell {
		switch {
		case !tableInternal(a):
			t.foster, s.run = 0, 0 // foster-parented before the table
		case tablePart(a):
			t.blank = 0 // inserted where the white space went
		}
		return
	}
	if !ignorable(a) {
		s.run = 0
	}
}

// escapeRaw writes the raw text src[from:to] of tag to the copy with '<'
// that may open markup escaped, and '&' that may open a character reference
// too unless the element decodes them anyway (<title>, <textarea>).
func (s *buildScan) escapeRaw(tag string, from, to int) {
	rcdata := tag == "title" || tag == "textarea"
	span := s.src[from:to]
	needs := false
	for i, c := range span {
		if (c == '<' || c == '&' && !rcdata) && i+1 < len(span) && opensMarkup(c, span[i+1]) {
			needs = true
			break
		}
	}
	if !needs {
		return
	}
	var b bytes.Buffer
	for i, c := range span {
		switch {
		case c == '<' && i+1 < len(span) && opensMarkup(c, span[i+1]):
			b.WriteString("&lt;")
		case c == '&' && !rcdata && i+1 < len(span) && opensMarkup(c, span[i+1]):
			b.WriteString("&amp;")
		default:
			b.WriteByte(c)
		}
	}
	s.rewrite(from, to, b.Bytes())
}

// opensMarkup reports whether c followed by next may start a tag, comment
// or character reference.
func opensMarkup(c, next byte) bool {
	alnum := 'a' <= next && next <= 'z' || 'A' <= next && next <= 'Z' || '0' <= next && next <= '9'
	if c == '<' {
		return alnum || next == '/' || next == '!' || next == '?'
	}
	return alnum || next == '#'
}

// rewrite replaces src[from:to] by with in the copy of the page.
func (s *buildScan) rewrite(from, to int, with []byte) {
	if s.out == nil {
		s.out = make([]byte, 0, len(s.src)+len(with))
	}
	s.out = append(s.out, s.src[s.copied:from]...)
	s.out = append(s.out, with...)
	s.copied = to
}

// attrSeed keys the hash of attribute lists, so that a page cannot choose
// attributes that collide.
var attrSeed = maphash.MakeSeed()

// tagAttrs returns the number of attributes of the tokenizer's current tag,
// their bytes and a hash of them that does not depend on their order.
func tagAttrs(z *html.Tokenizer) (n, size int64, sig uint64) {
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		size += int64(len(k) + len(v))
		var h maphash.Hash
		h.SetSeed(attrSeed)
		_, _ = h.Write(k)
		_ = h.WriteByte(0)
		_, _ = h.Write(v)
		sig += h.Sum64()
		n++
	}
	return n, size, sig
}

// thousands formats n with comma separators.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
