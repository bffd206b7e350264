package extract

import (
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/words"

	"github.com/evidencefleet/evidencefleet/internal/sentence"
)

// Fragment is a span of a version text in rune offsets [Start, End).
type Fragment struct {
	Start, End int
	// Text equals string([]rune(text)[Start:End]).
	Text string
	// Heading is the nearest heading block at or before the fragment's first
	// non-heading block ("" if none). Canonical text carries no markup, so a
	// heading is recognised heuristically: a one-line block of at most 120
	// runes and 15 words that starts with an upper-case or uncased letter or a
	// digit and does not end in sentence or clause punctuation.
	Heading string
}

// FragmentOptions bounds fragment size in runes. Zero values take the
// defaults MaxRunes 600 and MinRunes 40; a negative MinRunes disables all
// merging (short blocks and headings then stand alone).
type FragmentOptions struct {
	// MaxRunes is the largest fragment length; it is never exceeded
	// (an oversized word is cut at rune boundaries).
	MaxRunes int
	// MinRunes: blocks shorter than this are merged forward into the next
	// block of the same section when the result fits MaxRunes.
	MinRunes int
}

// Default fragment bounds.
const (
	DefaultMaxRunes = 600
	DefaultMinRunes = 40
)

func (o FragmentOptions) norm() FragmentOptions {
	if o.MaxRunes <= 0 {
		o.MaxRunes = DefaultMaxRunes
	}
	switch {
	case o.MinRunes == 0:
		o.MinRunes = DefaultMinRunes
	case o.MinRunes < 0:
		o.MinRunes = 0
	}
	if o.MinRunes > o.MaxRunes {
		o.MinRunes = o.MaxRunes
	}
	return o
}

// span is a byte span [bs, be) with its rune span [rs, re).
type span struct {
	bs, be, rs, re int
}

// textBlocks finds the blocks of text: maximal runs separated by at least one
// blank line (two line breaks with only whitespace between them, or U+2029),
// trimmed of whitespace. Rune offsets are computed in the same single pass.
func textBlocks(text string) []span {
	var out []span
	var cur span
	in := false
	newlines := 0
	r := 0
	lastEndB, lastEndR := 0, 0
	for i := 0; i < len(text); r++ {
		c, size := rune(text[i]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeRuneInString(text[i:])
		}
		switch {
		case c == '\n':
			newlines++
		case c == '\u2029':
			newlines += 2
		case unicode.IsSpace(c):
		default:
			if in && newlines >= 2 {
				cur.be, cur.re = lastEndB, lastEndR
				out = append(out, cur)
				in = false
			}
			if !in {
				cur = span{bs: i, rs: r}
				in = true
			}
			newlines = 0
			lastEndB, lastEndR = i+size, r+1
		}
		i += size
	}
	if in {
		cur.be, cur.re = lastEndB, lastEndR
		out = append(out, cur)
	}
	return out
}

// terminalPunct reports sentence-final punctuation.
func terminalPunct(r rune) bool {
	switch r {
	case '.', '!', '?', ';', ',', '…', '。', '！', '？', '．', '；', '，':
		return true
	}
	return false
}

// isHeadingBlock is the heuristic used to recognise a heading in plain
// canonical text (which carries no markup): a single-line block of at most
// maxRunes runes (and 120) and 15 words, containing a letter, starting with
// an upper-case or uncased letter or a digit, and not ending in sentence or
// clause punctuation (possibly followed by closing quotes/brackets).
func isHeadingBlock(s string, runes, maxRunes int) bool {
	if runes > 120 || runes > maxRunes {
		return false
	}
	first, _ := utf8.DecodeRuneInString(s)
	if !(unicode.IsDigit(first) || (unicode.IsLetter(first) && !unicode.IsLower(first))) {
		return false
	}
	wordsN, hasLetter := 0, false
	inWord := false
	var last rune
	for _, c := range s {
		if c == '\n' || c == '\r' {
			return false
		}
		if unicode.IsSpace(c) {
			inWord = false
			continue
		}
		if !inWord {
			wordsN++
			inWord = true
		}
		if unicode.IsLetter(c) {
			hasLetter = true
		}
		last = c
	}
	if !hasLetter || wordsN > 15 {
		return false
	}
	// Strip trailing closers to look at the real last character.
	t := s
	for len(t) > 0 {
		c, size := utf8.DecodeLastRuneInString(t)
		if !sentence.IsClosing(c) {
			last = c
			break
		}
		t = t[:len(t)-size]
	}
	return !terminalPunct(last)
}

// unit is one candidate piece: a whole block or a chunk of a long block.
type unit struct {
	span
	heading bool   // the unit is a whole heading block
	ctx     string // heading in force (its own text for a heading)
}

// Fragments cuts text into fragments: one per block (blocks are separated by
// blank lines). A block longer than MaxRunes is split at UAX #29 sentence
// boundaries into chunks of at most MaxRunes; a single sentence longer than
// MaxRunes is split at UAX #29 word boundaries (a single word longer than
// MaxRunes at rune boundaries). A piece shorter than MinRunes is merged
// forward with the next one when that one is in the same section (not a
// heading) and the merged span fits MaxRunes; heading blocks are merged
// forward into the block that follows them (their section) when it fits, so
// a fragment may contain "\n\n". For every fragment f:
// string([]rune(text)[f.Start:f.End]) == f.Text, 0 <= f.Start < f.End,
// fragments are in order and do not overlap, and f.Text has no leading or
// trailing whitespace.
func Fragments(text string, opt FragmentOptions) []Fragment {
	merge := opt.MinRunes >= 0
	opt = opt.norm()
	blocks := textBlocks(text)
	units := make([]unit, 0, len(blocks))
	cur := sentence.NewRuneCursor(text)
	heading := ""
	for _, b := range blocks {
		n := b.re - b.rs
		s := text[b.bs:b.be]
		if isHeadingBlock(s, n, opt.MaxRunes) {
			heading = s
			units = append(units, unit{span: b, heading: true, ctx: s})
			continue
		}
		if n <= opt.MaxRunes {
			units = append(units, unit{span: b, ctx: heading})
			continue
		}
		cur.Seek(b.bs, b.rs)
		for _, c := range splitBlock(text, b, opt.MaxRunes, cur) {
			units = append(units, unit{span: c, ctx: heading})
		}
	}
	return mergeUnits(text, units, opt, merge)
}

func mergeUnits(text string, units []unit, opt FragmentOptions, merge bool) []Fragment {
	out := make([]Fragment, 0, len(units))
	var pend unit
	have := false
	onlyHeadings := false
	content := false // pend contains a non-heading unit
	ctx := ""
	flush := func() {
		if !have {
			return
		}
		h := ctx
		if !content {
			h = pend.ctx
		}
		out = append(out, Fragment{Start: pend.rs, End: pend.re, Text: text[pend.bs:pend.be], Heading: h})
		have = false
	}
	for _, u := range units {
		if merge && have && u.re-pend.rs <= opt.MaxRunes &&
			(onlyHeadings || (!u.heading && pend.re-pend.rs < opt.MinRunes)) {
			pend.be, pend.re = u.be, u.re
			if u.heading {
				pend.ctx = u.ctx
			} else {
				if !content {
					ctx = u.ctx
				}
				content = true
				onlyHeadings = false
			}
			continue
		}
		flush()
		pend, have = u, true
		onlyHeadings = u.heading
		content = !u.heading
		ctx = u.ctx
	}
	flush()
	return out
}

// splitBlock cuts block b (longer than max runes) into chunks of at most max
// runes at sentence boundaries. cur must be positioned at b.bs.
func splitBlock(text string, b span, max int, cur *sentence.RuneCursor) []span {
	var out []span
	var chunk span
	have := false
	sentence.ForEach(text[b.bs:b.be], func(bs, be int) {
		bs, be = b.bs+bs, b.bs+be
		s := span{bs: bs, be: be, rs: cur.At(bs), re: cur.At(be)}
		if have && s.re-chunk.rs <= max {
			chunk.be, chunk.re = s.be, s.re
			return
		}
		if have {
			out = append(out, chunk)
			have = false
		}
		if s.re-s.rs <= max {
			chunk, have = s, true
			return
		}
		out = splitWords(text, s, max, out)
	})
	if have {
		out = append(out, chunk)
	}
	return out
}

// splitWords cuts the sentence s into pieces of at most max runes at UAX #29
// word boundaries, cutting a word longer than max at rune boundaries.
func splitWords(text string, s span, max int, out []span) []span {
	var piece span
	have := false
	r := s.rs
	it := words.FromString(text[s.bs:s.be])
	for it.Next() {
		tok := it.Value()
		tb := s.bs + it.Start()
		tr := r
		n := utf8.RuneCountInString(tok)
		r += n
		if isSpaceToken(tok) {
			continue
		}
		t := span{bs: tb, be: tb + len(tok), rs: tr, re: tr + n}
		if have && t.re-piece.rs <= max {
			piece.be, piece.re = t.be, t.re
			continue
		}
		if have {
			out = append(out, piece)
			have = false
		}
		for t.re-t.rs > max {
			// Hard cut of an oversized token at a rune boundary.
			cut := t.bs
			for k := 0; k < max; k++ {
				_, size := utf8.DecodeRuneInString(text[cut:])
				cut += size
			}
			out = append(out, span{bs: t.bs, be: cut, rs: t.rs, re: t.rs + max})
			t.bs, t.rs = cut, t.rs+max
		}
		piece, have = t, true
	}
	if have {
		out = append(out, piece)
	}
	return out
}

func isSpaceToken(tok string) bool {
	for _, c := range tok {
		if !unicode.IsSpace(c) {
			return false
		}
	}
	return true
}
