// Package sentence cuts plain text into sentences and picks the checkable
// ones as claim candidates. It reads text only: no HTML, no page model, no
// database. internal/extract cuts a page's canonical text into fragments at
// its sentence boundaries (ForEach); the built-in claim extractor
// (models/builtin.SentenceLLM) proposes the sentences Claims picks.
//
// Offsets. Split and Claims return RUNE (Unicode code point) offsets into
// the text, half-open [start, end), as internal/extract does; ForEach gives
// byte offsets.
package sentence

import (
	"strings"
	"unicode"
	"unicode/utf8"

	uaxsentences "github.com/clipperhouse/uax29/v2/sentences"
)

// Span is one sentence in rune offsets [Start, End) of the text.
type Span struct {
	Start, End int
	Text       string
}

// Split cuts text into UAX #29 sentences (line and paragraph breaks
// also end a sentence), each trimmed of surrounding whitespace; empty ones
// are dropped. Offsets are rune offsets into text. Two repairs are applied to
// the UAX #29 boundaries: reference markers like "[3]" stay with the sentence
// they follow, and a break after a common abbreviation ("Dr.", "et al.",
// "Fig.", "U.S.") or an initial ("J.") is removed unless a line break follows.
func Split(text string) []Span {
	out := make([]Span, 0, len(text)/80+1)
	cur := NewRuneCursor(text)
	ForEach(text, func(bs, be int) {
		out = append(out, Span{Start: cur.At(bs), End: cur.At(be), Text: text[bs:be]})
	})
	return out
}

// ForEach calls fn with the trimmed, non-empty byte span of each
// UAX #29 sentence of text, in order, with two adjustments:
//   - rule SB11 treats "[" as Close, so "end.[3] Next" breaks after "end.[",
//     leaving "3]" at the start of the next sentence; such bracketed reference
//     markers are moved back to the sentence they follow;
//   - a sentence ending in a common abbreviation ("Dr.", "et al.", "Fig.",
//     "U.S.") or a single-letter initial ("J.") is joined with the next one
//     unless a line break separates them.
func ForEach(text string, fn func(bs, be int)) {
	pendS, pendE := -1, -1
	emit := func(bs, be int) {
		if pendS >= 0 {
			if strings.ContainsAny(text[pendE:bs], "\n\r\u0085\u2028\u2029") {
				fn(pendS, pendE)
			} else {
				bs = pendS
			}
			pendS = -1
		}
		if endsWithAbbrev(text[bs:be]) {
			pendS, pendE = bs, be
			return
		}
		fn(bs, be)
	}
	it := uaxsentences.FromString(text)
	start := 0
	for it.Next() {
		end := it.End()
		if end <= start {
			continue // swallowed by a previous marker extension
		}
		if end < len(text) && text[end-1] == '[' {
			end = skipRefMarkers(text, end-1, end)
		}
		// SB8 keeps "end.[citation needed] Next" together because of the
		// lower-case letters inside the marker; cut after such markers.
		for {
			cut := refMarkerCut(text, start, end)
			if cut < 0 {
				break
			}
			if bs, be := trimSpan(text, start, cut); bs < be {
				emit(bs, be)
			}
			start = cut
		}
		if bs, be := trimSpan(text, start, end); bs < be {
			emit(bs, be)
		}
		start = end
	}
	if pendS >= 0 {
		fn(pendS, pendE)
	}
}

// trimSpan shrinks the byte span [bs, be) of text to exclude leading and
// trailing Unicode whitespace.
func trimSpan(text string, bs, be int) (int, int) {
	for bs < be {
		c, size := utf8.DecodeRuneInString(text[bs:be])
		if !unicode.IsSpace(c) {
			break
		}
		bs += size
	}
	for be > bs {
		c, size := utf8.DecodeLastRuneInString(text[bs:be])
		if !unicode.IsSpace(c) {
			break
		}
		be -= size
	}
	return bs, be
}

// abbreviations (lower case, without the final '.') after which UAX #29
// wrongly ends a sentence when a capitalised word follows.
var abbreviations = toSet(`dr mr mrs ms prof st jr sr mt ft vs fig figs vol
	al eq eqs ref refs approx inc ltd co corp gen gov sen rep rev capt col lt sgt
	jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k e.g i.e cf ca pp ed eds`)

// endsWithAbbrev reports whether sentence s ends with an abbreviation or a
// single-letter initial followed by '.'.
func endsWithAbbrev(s string) bool {
	if !strings.HasSuffix(s, ".") {
		return false
	}
	w := s[:len(s)-1]
	if i := strings.LastIndexFunc(w, func(r rune) bool { return unicode.IsSpace(r) || r == '(' || r == '"' }); i >= 0 {
		_, size := utf8.DecodeRuneInString(w[i:])
		w = w[i+size:]
	}
	if w == "" || len(w) > 6 {
		return false
	}
	if r, size := utf8.DecodeRuneInString(w); size == len(w) && unicode.IsUpper(r) {
		return true // initial: "J."
	}
	return abbreviations[strings.ToLower(w)]
}

// refMarkerCut finds, in text[bs:be], terminal punctuation followed by
// reference markers, whitespace and an upper-case letter or digit, and
// returns the byte offset just after the markers, or -1.
func refMarkerCut(text string, bs, be int) int {
	for i := bs; i < be-1; {
		j := strings.IndexByte(text[i:be], '[')
		if j < 0 {
			return -1
		}
		p := i + j
		i = p + 1
		if p == bs || !strings.ContainsRune(".!?", rune(text[p-1])) {
			continue
		}
		end := skipRefMarkers(text, p, -1)
		if end < 0 || end >= be {
			continue
		}
		k := end
		for k < be {
			c, size := utf8.DecodeRuneInString(text[k:be])
			if !unicode.IsSpace(c) {
				break
			}
			k += size
		}
		if k == end || k >= be {
			continue
		}
		if c, _ := utf8.DecodeRuneInString(text[k:be]); unicode.IsUpper(c) || unicode.IsDigit(c) {
			return end
		}
	}
	return -1
}

// skipRefMarkers returns the end of the run of reference markers ("[3]",
// "[a]", "[citation needed]") starting at the '[' at byte i, or def if there
// is none.
func skipRefMarkers(text string, i, def int) int {
	end := def
	for i < len(text) && text[i] == '[' {
		j := strings.IndexByte(text[i:min(len(text), i+42)], ']')
		if j < 0 || !isRefMarker(strings.ToLower(text[i+1:i+j])) {
			break
		}
		i += j + 1
		end = i
	}
	return end
}

// trimRefMarkers moves be back over trailing wiki-style reference markers
// ("[3]", "[a]", "[citation needed]", "[note 2]") and whitespace.
func trimRefMarkers(text string, bs, be int) int {
	for be > bs {
		_, be2 := trimSpan(text, bs, be)
		be = be2
		if be <= bs || text[be-1] != ']' {
			return be
		}
		open := strings.LastIndexByte(text[bs:be], '[')
		if open < 0 {
			return be
		}
		inner := strings.ToLower(text[bs+open+1 : be-1])
		if !isRefMarker(inner) {
			return be
		}
		be = bs + open
	}
	return be
}

func isRefMarker(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	switch s {
	case "citation needed", "clarification needed", "dubious", "dubious – discuss",
		"failed verification", "better source needed", "when?", "who?", "according to whom?",
		"page needed", "verification needed", "update", "needs update":
		return true
	}
	if strings.HasPrefix(s, "note ") || strings.HasPrefix(s, "nb ") {
		s = s[strings.IndexByte(s, ' ')+1:]
	}
	allDigits := true
	for _, c := range s {
		if c < '0' || c > '9' {
			allDigits = false
			break
		}
	}
	if allDigits {
		return true
	}
	// single lower-case letter or roman-ish footnote marker
	return len(s) <= 2 && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz") == ""
}

// IsClosing reports closing quotes and brackets that may follow terminal
// punctuation.
func IsClosing(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '}', '”', '’', '»', '」', '』', '）', '〕', '】':
		return true
	}
	return false
}

// toSet is the set of the words of s.
func toSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// RuneCursor converts increasing byte offsets of one string into rune
// offsets in a single forward pass overall (moving backwards restarts from
// 0). All offsets passed to it must be on rune boundaries.
type RuneCursor struct {
	s    string
	b, r int
}

// NewRuneCursor is a RuneCursor over s.
func NewRuneCursor(s string) *RuneCursor { return &RuneCursor{s: s} }

// Seek moves the cursor to byte offset b, known to be rune offset r.
func (c *RuneCursor) Seek(b, r int) { c.b, c.r = b, r }

// At is the rune offset of byte offset b.
func (c *RuneCursor) At(b int) int {
	if b < c.b {
		c.b, c.r = 0, 0
	}
	c.r += utf8.RuneCountInString(c.s[c.b:b])
	c.b = b
	return c.r
}
