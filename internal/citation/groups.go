package citation

import (
	"strings"
	"unicode/utf8"
)

// span is a byte range [start, end) of the text.
type span struct{ start, end int }

// group is a citation group, or a malformed one (no ids).
type group struct {
	span
	ids       []span // each id of the group, "E" and its digits
	malformed bool
}

// maxMalformedBytes bounds how far a malformed group is read for its ']'.
const maxMalformedBytes = 64

// scanGroups finds the citation groups and the malformed ones of text, in
// order, in one pass: no "[" lies inside a group, so each byte is read for
// one opening bracket at most.
func scanGroups(text string) []group {
	var out []group
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '[')
		if j < 0 {
			break
		}
		start := i + j
		if g, ok := parseGroup(text, start); ok {
			out = append(out, g)
			i = g.end
			continue
		}
		if opensLikeGroup(text, start) {
			m := malformedSpan(text, start)
			out = append(out, group{span: m, malformed: true})
			i = m.end
			continue
		}
		i = start + 1
	}
	return out
}

// parseGroup reads the group whose "[" is at start:
// "[" ws id (ws "," ws id)* ws "]", ws being spaces and tabs.
func parseGroup(text string, start int) (group, bool) {
	g := group{span: span{start: start}}
	i := skipBlanks(text, start+1)
	for {
		if i >= len(text) || text[i] != 'E' {
			return group{}, false
		}
		d := i + 1
		for d < len(text) && isDigit(text[d]) {
			d++
		}
		if d == i+1 {
			return group{}, false
		}
		g.ids = append(g.ids, span{i, d})
		i = skipBlanks(text, d)
		switch {
		case i < len(text) && text[i] == ',':
			i = skipBlanks(text, i+1)
		case i < len(text) && text[i] == ']':
			g.end = i + 1
			return g, true
		default:
			return group{}, false
		}
	}
}

// opensLikeGroup reports whether text at start is "[", blanks, "E" and a
// digit: what a writer meant as a citation.
func opensLikeGroup(text string, start int) bool {
	i := skipBlanks(text, start+1)
	return i+1 < len(text) && text[i] == 'E' && isDigit(text[i+1])
}

// malformedSpan is the malformed group at start: up to its "]", else up to
// the line's end, the next "[" or maxMalformedBytes, cut on a character
// boundary.
func malformedSpan(text string, start int) span {
	limit := min(len(text), start+maxMalformedBytes)
	for i := start + 1; i < limit; i++ {
		switch text[i] {
		case ']':
			return span{start, i + 1}
		case '\n', '\r', '[':
			return span{start, i}
		}
	}
	end := limit
	for end > start+1 && end < len(text) && !utf8.RuneStart(text[end]) {
		end--
	}
	return span{start, end}
}

func skipBlanks(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }
