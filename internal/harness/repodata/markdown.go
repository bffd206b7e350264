package repodata

// Reading the repository's Markdown as GitHub renders it: fenced code
// blocks, headings and their anchors (the documents' checks, the runbooks'
// anchors of the chart's alerts).

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// mdLine is one line of a Markdown document, with the fenced code block it
// is in, if any.
type mdLine struct {
	n      int    // 1-based
	text   string // without its newline
	fence  bool   // inside a fenced code block (the fence lines themselves too)
	marker bool   // the fence line opening or closing the block
	lang   string // the block's info string's first word
}

// mdFence is a line opening a fenced code block: three or more backticks
// (then no backtick on the line: "```` ```json ````" is a code span) or
// tildes, and the info string's first word.
var mdFence = regexp.MustCompile("^\\s{0,3}(`{3,}|~{3,})\\s*([^`\\s]*)[^`]*$")

// mdLines splits a document into lines, marking fenced code blocks.
func mdLines(text string) []mdLine {
	var out []mdLine
	open, lang := "", ""
	for i, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case open != "":
			closing := strings.HasPrefix(trimmed, open) && strings.Trim(trimmed, open[:1]) == ""
			out = append(out, mdLine{n: i + 1, text: l, fence: true, marker: closing, lang: lang})
			if closing {
				open, lang = "", ""
			}
			continue
		case mdFence.MatchString(l):
			m := mdFence.FindStringSubmatch(l)
			open, lang = m[1], m[2]
			out = append(out, mdLine{n: i + 1, text: l, fence: true, marker: true, lang: lang})
			continue
		}
		out = append(out, mdLine{n: i + 1, text: l})
	}
	return out
}

// Prose returns the document with fenced blocks blanked (line numbers
// kept).
func Prose(text string) string {
	var b strings.Builder
	for i, l := range mdLines(text) {
		if i > 0 {
			b.WriteByte('\n')
		}
		if !l.fence {
			b.WriteString(l.text)
		}
	}
	return b.String()
}

var (
	mdHeading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	mdInlineLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// Slug is the anchor GitHub gives a heading: its text as rendered (a
// link's text, not its address) lower-cased, every character but letters,
// marks, digits, underscores, hyphens and spaces left out, each space a
// hyphen.
func Slug(heading string) string {
	heading = mdInlineLink.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Anchors returns the anchors of a document's headings (ATX headings
// outside fenced code blocks; a repeated slug gets -1, -2, … as GitHub
// numbers them).
func Anchors(text string) map[string]bool {
	set := map[string]bool{}
	seen := map[string]int{}
	for _, l := range mdLines(text) {
		if l.fence {
			continue
		}
		m := mdHeading.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		s := Slug(m[1])
		if n := seen[s]; n > 0 {
			seen[s]++
			s = fmt.Sprintf("%s-%d", s, n)
		} else {
			seen[s] = 1
		}
		set[s] = true
	}
	return set
}
