package extract

import (
	"strings"
	"unicode"
)

// FromPlainText normalises a text/plain body into canonical text: blocks are
// separated by blank lines (single line breaks inside a block become spaces),
// whitespace runs collapse to one space, invalid UTF-8 is replaced by U+FFFD,
// a leading byte-order mark is dropped. Markdown ATX heading lines ("# Title",
// "## Section ##") become their own block with the '#' marks removed; when the
// first block is such a heading it is also the Document's Title. Lang is empty.
func FromPlainText(body []byte) Document {
	var w blockWriter
	title := ""
	first := true
	s := string(body)
	for len(s) > 0 {
		var line string
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			line, s = s, ""
		}
		trimmed := strings.TrimFunc(line, unicode.IsSpace)
		if trimmed == "" || trimmed == "\uFEFF" {
			w.endBlock()
			continue
		}
		if h, ok := atxHeading(trimmed); ok {
			w.endBlock()
			w.write(h)
			if first && w.open {
				title = collapseSpace(h)
			}
			if w.open {
				first = false
			}
			w.endBlock()
			continue
		}
		w.write(line)
		w.space()
		if w.open {
			first = false
		}
	}
	return Document{Title: title, Text: w.String()}
}

// atxHeading recognises a Markdown ATX heading line ("#".."######" followed by
// whitespace or end of line) and returns its text without the marks.
func atxHeading(line string) (string, bool) {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return "", false
	}
	rest := line[n:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	// Optional closing sequence: "## Title ##".
	if t := strings.TrimRight(rest, "#"); t != rest && (t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t")) {
		rest = strings.TrimSpace(t)
	}
	return rest, true
}
