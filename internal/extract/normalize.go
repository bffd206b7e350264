package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// blockSep separates blocks in canonical text.
const blockSep = "\n\n"

// blockWriter assembles canonical text: blocks separated by blockSep, runs of
// whitespace inside a block collapsed to one space, no leading or trailing
// whitespace anywhere, dropped characters removed.
type blockWriter struct {
	out       strings.Builder
	open      bool // a block has content and is not yet ended
	spacePend bool // whitespace seen inside the open block
}

// dropRune reports characters that never reach canonical text: control
// characters other than whitespace (Postgres rejects NUL), the byte-order
// mark / zero-width no-break space, the zero-width space and the soft hyphen.
func dropRune(r rune) bool {
	switch r {
	case '\uFEFF', '\u200B', '\u00AD':
		return true
	}
	return r < 0x20 || (r >= 0x7F && r < 0xA0)
}

// write appends text to the current block, collapsing whitespace. Invalid
// UTF-8 becomes U+FFFD.
func (w *blockWriter) write(s string) {
	for _, r := range s {
		if unicode.IsSpace(r) {
			if w.open {
				w.spacePend = true
			}
			continue
		}
		if dropRune(r) {
			continue
		}
		if !w.open {
			if w.out.Len() > 0 {
				w.out.WriteString(blockSep)
			}
			w.open = true
			w.spacePend = false
		} else if w.spacePend {
			w.out.WriteByte(' ')
			w.spacePend = false
		}
		if r < utf8.RuneSelf {
			w.out.WriteByte(byte(r))
		} else {
			w.out.WriteRune(r)
		}
	}
}

// space records a word break inside the current block (e.g. <br>, a table
// cell boundary, a line break in plain text).
func (w *blockWriter) space() {
	if w.open {
		w.spacePend = true
	}
}

// endBlock closes the current block; the next text starts a new one.
func (w *blockWriter) endBlock() {
	w.open = false
	w.spacePend = false
}

// String returns the canonical text (NFC-normalised).
func (w *blockWriter) String() string {
	w.endBlock()
	return norm.NFC.String(w.out.String())
}

// collapseSpace trims s and collapses internal whitespace runs to one space.
func collapseSpace(s string) string {
	var w blockWriter
	w.write(s)
	return w.String()
}
