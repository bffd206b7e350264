// Package recheck decides what became of a cited span when its page is
// fetched again (ARCHITECTURE.md §5.10): unchanged, edited, moved, gone or
// unreachable, where the span's words stand now, and for an edited span the
// new text around where it stood. It is pure: the recheck worker fetches
// and stores, this package only compares texts, with the alignment that
// places extracted quotes (extract.LocateQuote: whitespace runs and
// typographic quotes fold, markup is gone with the extraction).
package recheck

import (
	"strings"
	"unicode"

	"github.com/evidencefleet/evidencefleet/internal/extract"
)

// State is what became of one cited span.
type State string

// The states of a citation, and of a page's fetch (Outcome).
const (
	Unchanged   State = "unchanged"   // the span's words still stand in the page
	Edited      State = "edited"      // the page answers, and the span's words no longer stand in it
	Moved       State = "moved"       // the page redirects for good (301, 308) to another address
	Gone        State = "gone"        // the page answers 404 or 410
	Unreachable State = "unreachable" // no answer could be had (after retries), or none may be asked for
)

// States lists every state, in the order reports give them.
var States = []State{Unchanged, Edited, Moved, Gone, Unreachable}

// Changed reports whether the state is a change a reader of the evidence
// should hear of (edited, moved, gone).
func (s State) Changed() bool { return s == Edited || s == Moved || s == Gone }

// Seen is what a fetch of the page gave now: Outcome is Unchanged for an
// answer with a text (the page at its address, or after temporary
// redirects), Moved for one after a permanent redirect, Gone, or
// Unreachable; Text is the answer's extracted text. NewSeen prepares it for
// many citations; a Seen written out is prepared by each Check.
type Seen struct {
	Outcome State
	Text    string
	text    *prepared
}

// prepared is a text made ready to place many spans in it.
type prepared struct {
	runes []rune
	index *extract.QuoteIndex
}

// NewSeen is a Seen whose text is prepared once for every Check.
func NewSeen(outcome State, text string) Seen {
	return Seen{Outcome: outcome, Text: text, text: prepare(text)}
}

func prepare(text string) *prepared {
	return &prepared{runes: []rune(text), index: extract.NewQuoteIndex(text)}
}

// Span is a rune span [Start, End) of a text.
type Span struct{ Start, End int }

// Finding is what became of one cited span: its State, where its words
// stand in the text seen now (Found: unchanged, or moved when they are
// there too), and for an edited span the text seen now around where it
// stood (Around), when its neighbours could be found.
type Finding struct {
	State  State
	Found  *Span
	Around *Span
}

// Bounds of the text Around gives.
const (
	// anchorRunes: the words just before and after a span that find where
	// it stood; tried whole, then their last (first) third.
	anchorRunes = 90
	// MaxAroundRunes bounds Around.
	MaxAroundRunes = 600
)

// Check says what became of the span of cited (the cited version's text,
// as runes) given what was seen now.
func Check(seen Seen, cited []rune, span Span) Finding {
	switch seen.Outcome {
	case Gone, Unreachable:
		return Finding{State: seen.Outcome}
	}
	now := seen.text
	if now == nil {
		now = prepare(seen.Text)
	}
	quote := string(cited[span.Start:span.End])
	if s, e, ok := now.index.Locate(quote); ok {
		return Finding{State: seen.Outcome, Found: &Span{s, e}}
	}
	if seen.Outcome == Moved {
		return Finding{State: Moved}
	}
	return Finding{State: Edited, Around: around(now, cited, span)}
}

// around is the span of now where the cited span stood: between the words
// that came just before it and those just after, found in now; from the
// one side found when the other is not; nil when neither is.
func around(now *prepared, cited []rune, span Span) *Span {
	nr := now.runes
	spanLen := span.End - span.Start
	before, after := -1, -1 // ends of the found anchor before, start of the one after
	if a := anchor(cited[max(0, span.Start-anchorRunes):span.Start], true); a != "" {
		for _, q := range []string{a, tail(a)} {
			if _, e, ok := now.index.Locate(q); q != "" && ok {
				before = e
				break
			}
		}
	}
	if a := anchor(cited[span.End:min(len(cited), span.End+anchorRunes)], false); a != "" {
		for _, q := range []string{a, head(a)} {
			if s, _, ok := now.index.Locate(q); q != "" && ok && s >= max(before, 0) {
				after = s
				break
			}
		}
	}
	var s, e int
	switch {
	case before >= 0 && after >= 0:
		s, e = before, after
	case before >= 0:
		s, e = before, before+spanLen
	case after >= 0:
		s, e = after-spanLen, after
	default:
		return nil
	}
	s = max(0, s)
	for s < len(nr) && unicode.IsSpace(nr[s]) {
		s++
	}
	e = min(len(nr), e, s+MaxAroundRunes)
	for e > s && unicode.IsSpace(nr[e-1]) {
		e--
	}
	if s >= e {
		return nil
	}
	return &Span{s, e}
}

// anchor is the text beside a span, with a word cut at its far end
// dropped (the first word of one before the span, the last of one after),
// trimmed; "" when it holds no word.
func anchor(rs []rune, before bool) string {
	cut := len(rs) == anchorRunes // the far end may be inside a word
	i, j := 0, len(rs)
	for cut && before && i < j && !unicode.IsSpace(rs[i]) {
		i++
	}
	for cut && !before && j > i && !unicode.IsSpace(rs[j-1]) {
		j--
	}
	return strings.TrimFunc(string(rs[i:j]), unicode.IsSpace)
}

// minAnchorRunes: a shorter anchor than this finds too many places.
const minAnchorRunes = 12

// tail is the last third of an anchor before a span, head the first third
// of one after it: a shorter anchor for a page edited near the span ("" when
// it would be too short to place it).
func tail(a string) string {
	rs := []rune(a)
	return shortAnchor(rs[len(rs)-len(rs)/3:])
}

func head(a string) string {
	rs := []rune(a)
	return shortAnchor(rs[:len(rs)/3])
}

func shortAnchor(rs []rune) string {
	s := strings.TrimFunc(string(rs), unicode.IsSpace)
	if len([]rune(s)) < minAnchorRunes {
		return ""
	}
	return s
}
