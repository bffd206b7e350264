package eval

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// How a gold evidence sentence is matched to the fleet's NLI edges.
//
// The fleet judges (fragment, claim) pairs, not sentences. A fragment is a
// span of at most FRAGMENT_MAX_RUNES (600) characters of a page version's
// canonical text, so an evidence sentence lies inside one fragment, or
// straddles two or more when a paragraph was cut at a sentence boundary
// inside it (sentences over 600 characters are cut at word boundaries).
//
// Locate finds the sentence in the page version text (first occurrence,
// comparing both after the canonical-text normalisation: NFC for the
// sentence, whitespace runs as one space, dropped control and invisible
// characters ignored) and returns its rune span. Overlaps lists the page
// version's fragments that share runes with that span, the largest share
// first. PickEdge then compares ONE edge per gold pair: that of the judged
// fragment with the largest share of the sentence. A pair counts as judged
// when any fragment overlapping its sentence has an NLI edge to the claim.

// Span is a half-open rune range [Start, End) of a text, as stored in
// fragments.start_char/end_char.
type Span struct {
	Start, End int
}

// Locate returns the rune span of the first occurrence of sentence in text
// after normalising both (see above), and false when it does not occur or
// is empty after normalisation.
func Locate(text, sentence string) (Span, bool) {
	needle, _ := normalizeForMatch(norm.NFC.String(sentence))
	if needle == "" {
		return Span{}, false
	}
	hay, pos := normalizeForMatch(text)
	i := strings.Index(hay, needle)
	if i < 0 {
		return Span{}, false
	}
	first := utf8.RuneCountInString(hay[:i])
	last := first + utf8.RuneCountInString(needle) - 1
	return Span{Start: pos[first], End: pos[last] + 1}, true
}

// normalizeForMatch collapses whitespace runs to one space, drops the
// characters canonical text never contains, and trims. pos[k] is the rune
// offset in s of the k-th rune of the result.
func normalizeForMatch(s string) (string, []int) {
	var b strings.Builder
	b.Grow(len(s))
	pos := make([]int, 0, len(s))
	pendSpace, spaceAt := false, 0
	r := 0
	for _, c := range s {
		switch {
		case unicode.IsSpace(c):
			if !pendSpace {
				pendSpace, spaceAt = true, r
			}
		case droppedRune(c):
		default:
			if pendSpace && b.Len() > 0 {
				b.WriteByte(' ')
				pos = append(pos, spaceAt)
			}
			pendSpace = false
			b.WriteRune(c)
			pos = append(pos, r)
		}
		r++
	}
	return b.String(), pos
}

// droppedRune reports characters that canonical page text drops: control
// characters other than whitespace, BOM, zero-width space, soft hyphen.
func droppedRune(c rune) bool {
	switch c {
	case '\uFEFF', '\u200B', '\u00AD':
		return true
	}
	return c < 0x20 || (c >= 0x7F && c < 0xA0)
}

// FragmentSpan is one fragment of a page version: its id and rune span.
type FragmentSpan struct {
	ID int64
	Span
}

// Overlap is a fragment sharing Runes runes with a located sentence.
type Overlap struct {
	FragmentID int64
	Runes      int
}

// Overlaps returns the fragments that share at least one rune with s,
// largest share first (ties: the earlier fragment first).
func Overlaps(frags []FragmentSpan, s Span) []Overlap {
	type hit struct {
		Overlap
		start int
	}
	var hits []hit
	for _, f := range frags {
		n := min(f.End, s.End) - max(f.Start, s.Start)
		if n > 0 {
			hits = append(hits, hit{Overlap{FragmentID: f.ID, Runes: n}, f.Start})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Runes != hits[j].Runes {
			return hits[i].Runes > hits[j].Runes
		}
		return hits[i].start < hits[j].start
	})
	out := make([]Overlap, len(hits))
	for i, h := range hits {
		out[i] = h.Overlap
	}
	return out
}

// PickEdge returns the NLI label of the first overlap (in the order of
// Overlaps) whose fragment has an edge, as reported by label, and that
// fragment's id; ok is false when none of them was judged.
func PickEdge(overlaps []Overlap, label func(fragmentID int64) (string, bool)) (nliLabel string, fragmentID int64, ok bool) {
	for _, o := range overlaps {
		if l, judged := label(o.FragmentID); judged {
			return l, o.FragmentID, true
		}
	}
	return "", 0, false
}
