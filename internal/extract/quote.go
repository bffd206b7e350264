package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// foldQuote maps typographic quotes to their ASCII form: ‘ ’ ‚ ‛ to ' and
// “ ” „ ‟ to ".
func foldQuote(r rune) rune {
	switch r {
	case '\u2018', '\u2019', '\u201A', '\u201B':
		return '\''
	case '\u201C', '\u201D', '\u201E', '\u201F':
		return '"'
	}
	return r
}

// normForMatch writes the match form of s: each run of Unicode whitespace
// becomes one ' ' and typographic quotes are folded. It returns the result.
func normForMatch(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	sp := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			if !sp {
				b.WriteByte(' ')
				sp = true
			}
			continue
		}
		sp = false
		b.WriteRune(foldQuote(r))
	}
	return b.String()
}

// LocateQuote finds quote in text and returns its rune span [start, end) in
// the ORIGINAL text; ok is false when it does not occur. Matching is exact and
// case-sensitive after this normalisation of both sides: any run of Unicode
// whitespace equals any other run (but whitespace never matches nothing);
// typographic single quotes/apostrophes (‘ ’ ‚ ‛) equal ' and double quotes
// (“ ” „ ‟) equal "; leading and trailing whitespace of quote is ignored; the
// quote is NFC-normalised (canonical text is NFC). The first verbatim
// occurrence wins, else the first occurrence under normalisation.
// The returned span starts and ends on non-whitespace characters of text.
func LocateQuote(text, quote string) (start, end int, ok bool) {
	return NewQuoteIndex(text).Locate(quote)
}

// QuoteIndex locates many quotes in one text as LocateQuote does, the
// text's match form made once (on the first quote that needs it).
type QuoteIndex struct {
	text string
	norm *string
}

// NewQuoteIndex is a QuoteIndex of text.
func NewQuoteIndex(text string) *QuoteIndex { return &QuoteIndex{text: text} }

// Locate is LocateQuote(text, quote).
func (x *QuoteIndex) Locate(quote string) (start, end int, ok bool) {
	text := x.text
	q := strings.TrimFunc(quote, unicode.IsSpace)
	if q == "" {
		return 0, 0, false
	}
	valid := utf8.ValidString(q)
	if valid {
		q = norm.NFC.String(q)
	}
	// A valid quote can only match text on rune boundaries; an invalid one
	// goes through the rune-wise path, where invalid bytes read as U+FFFD.
	if i := strings.Index(text, q); valid && i >= 0 {
		s, e := RuneSpan(text, i, i+len(q))
		return s, e, true
	}
	nq := normForMatch(q)
	if x.norm == nil {
		nt := normForMatch(text)
		x.norm = &nt
	}
	i := strings.Index(*x.norm, nq)
	if i < 0 {
		return 0, 0, false
	}
	s, e := mapMatchBack(text, i, i+len(nq))
	return s, e, true
}

// mapMatchBack converts the byte span [nb, ne) of normForMatch(text) into the
// rune span of text that produced it, by replaying the normalisation.
func mapMatchBack(text string, nb, ne int) (int, int) {
	n := 0 // bytes of normalised output produced so far
	start, end := -1, -1
	sp := false
	r := 0
	for i := 0; i < len(text); r++ {
		c, size := utf8.DecodeRuneInString(text[i:])
		i += size
		var w int
		if unicode.IsSpace(c) {
			if sp {
				continue // the run was already emitted as one ' '
			}
			sp = true
			w = 1
		} else {
			sp = false
			w = utf8.RuneLen(foldQuote(c)) // invalid bytes decode to U+FFFD, as in normForMatch
		}
		if start < 0 && n >= nb {
			start = r
		}
		n += w
		if n >= ne {
			end = r + 1
			break
		}
	}
	if start < 0 {
		start = r
	}
	if end < 0 {
		end = r
	}
	return start, end
}
