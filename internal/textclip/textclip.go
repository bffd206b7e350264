// Package textclip cuts text taken from outside (a page, a model server, a
// job's args) to a bound, on a character boundary, marking the cut with
// "…". It never converts the whole text, so a 5 MB title costs nothing more
// to clip than a short one.
package textclip

import (
	"strings"
	"unicode/utf8"
)

// Ellipsis marks a cut.
const Ellipsis = "…"

// Runes returns s when it has at most n characters, else its first n-1
// characters and Ellipsis (n characters in all). Invalid UTF-8 counts a
// character per bad byte, as range does.
func Runes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	count := 0
	for i := range s {
		if count == n-1 {
			if utf8.RuneCountInString(s[i:]) <= 1 {
				return s
			}
			return s[:i] + Ellipsis
		}
		count++
	}
	return s
}

// Bytes returns s when it is at most n bytes long, else its longest valid
// UTF-8 prefix of at most n bytes and Ellipsis, for an error message or a
// log line that quotes outside input.
func Bytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:max(n, 0)], "") + Ellipsis
}
