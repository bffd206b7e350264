package extract

import (
	"bytes"
	"fmt"

	"golang.org/x/net/html"
)

// maxTagAttrs caps the attributes of one tag that a tokenizer here reads.
// html.Tokenizer keeps a span, a map entry and a string for each attribute
// of the tag it is reading before its caller sees the tag: one <div> of 5
// MiB with 500,000 attributes costs it about 100 MiB, and html.Parse 190
// MiB. Real tags have a few dozen attributes at most.
const maxTagAttrs = 10_000

// tagGuard measures each tag of src before an html.Tokenizer reading src
// reads it (see maxTagAttrs). Call next in place of the tokenizer's Next.
type tagGuard struct {
	src []byte
	off int    // offset in src of the tokenizer's next token
	raw string // the raw-text element whose text the tokenizer reads next, or ""
}

// errHugeTag reports a tag with more than maxTagAttrs attributes at offset
// off of src.
func errHugeTag(src []byte, off int) error {
	name := tagNameAt(src[off:])
	if len(name) > 32 {
		name = name[:32]
	}
	return fmt.Errorf("%w: a <%s> tag at byte %s has more than %s attributes", ErrTooManyElements, name, thousands(int64(off)), thousands(maxTagAttrs))
}

// next returns the tokenizer's next token, or an error wrapping
// ErrTooManyElements instead of reading a tag with more than maxTagAttrs
// attributes (the tokenizer must not be used after that).
func (g *tagGuard) next(z *html.Tokenizer) (html.TokenType, error) {
	if at, ok := g.tagAhead(); ok && attrSlots(g.src[at:], maxTagAttrs) > maxTagAttrs {
		return html.ErrorToken, errHugeTag(g.src, at)
	}
	start := g.off
	tt := z.Next()
	g.off += len(z.Raw())
	g.raw = ""
	if tt == html.StartTagToken || tt == html.SelfClosingTagToken {
		g.raw = rawTextTag(tagNameAt(g.src[start:]))
	}
	return tt, nil
}

// tagAhead reports whether the tokenizer's next token is a tag it will read
// in that call, and where the tag starts.
func (g *tagGuard) tagAhead() (int, bool) {
	rest := g.src[g.off:]
	if g.raw != "" {
		// Raw text comes next, unless it is empty and the end tag follows at once.
		if rawEndTagAt(rest, g.raw) {
			return g.off, true
		}
		return 0, false
	}
	if len(rest) < 2 || rest[0] != '<' {
		return 0, false
	}
	c := rest[1]
	if c == '/' && len(rest) > 2 {
		c = rest[2]
	}
	return g.off, 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// rawTextTag returns the lower-case name when html.Tokenizer reads the
// content of a start tag of that name as raw text, else "".
func rawTextTag(name []byte) string {
	switch string(bytes.ToLower(name)) {
	case "iframe":
		return "iframe"
	case "noembed":
		return "noembed"
	case "noframes":
		return "noframes"
	case "noscript":
		return "noscript"
	case "plaintext":
		return "plaintext"
	case "script":
		return "script"
	case "style":
		return "style"
	case "textarea":
		return "textarea"
	case "title":
		return "title"
	case "xmp":
		return "xmp"
	}
	return ""
}

// rawEndTagAt reports whether b starts with the end tag of the raw-text
// element tag, as html.Tokenizer recognises it.
func rawEndTagAt(b []byte, tag string) bool {
	if len(b) < len(tag)+3 || b[0] != '<' || b[1] != '/' || !bytes.EqualFold(b[2:2+len(tag)], []byte(tag)) {
		return false
	}
	switch b[2+len(tag)] {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		return true
	}
	return false
}

// tagNameAt returns the name of the tag that b starts with ("<name" or
// "</name"), as written.
func tagNameAt(b []byte) []byte {
	i := 1
	if i < len(b) && b[i] == '/' {
		i++
	}
	j := i
	for j < len(b) && !isTagSpace(b[j]) && b[j] != '/' && b[j] != '>' {
		j++
	}
	return b[i:j]
}

func isTagSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f'
}

func skipTagSpace(b []byte, i int) int {
	for i < len(b) && isTagSpace(b[i]) {
		i++
	}
	return i
}

// attrSlots counts the attributes html.Tokenizer reads in the tag that b
// starts with (duplicates and empty names included: the tokenizer allocates
// for each), mirroring its readTag; it stops counting past limit.
func attrSlots(b []byte, limit int) int {
	i := len(tagNameAt(b)) + 1
	if len(b) > 1 && b[1] == '/' {
		i++
	}
	if i < len(b) && isTagSpace(b[i]) {
		i++
	}
	n := 0
	for i = skipTagSpace(b, i); i < len(b) && b[i] != '>' && n <= limit; i = skipTagSpace(b, i) {
		i = attrKeyEnd(b, i)
		i = attrValueEnd(b, skipTagSpace(b, i))
		n++
	}
	return n
}

// attrKeyEnd returns where the attribute name starting at i ends (the
// tokenizer's readTagAttrKey).
func attrKeyEnd(b []byte, i int) int {
	start := i
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '=' && i == start:
			// An '=' before the name begins is part of the name.
		case c == '=' || c == '/' || c == '>' || isTagSpace(c):
			return i
		}
	}
	return i
}

// attrValueEnd returns where the attribute value that may start at i ends
// (the tokenizer's readTagAttrVal after its leading white space).
func attrValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '/':
		return i + 1
	case '=':
	default:
		return i
	}
	i = skipTagSpace(b, i+1)
	if i >= len(b) {
		return i
	}
	switch q := b[i]; q {
	case '>':
		return i
	case '\'', '"':
		if j := bytes.IndexByte(b[i+1:], q); j >= 0 {
			return i + j + 2
		}
		return len(b)
	}
	for i < len(b) && !isTagSpace(b[i]) && b[i] != '>' {
		i++
	}
	return i
}
