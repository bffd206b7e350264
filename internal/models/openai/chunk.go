package openaibackend

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// splitChunks cuts text into pieces of at most limit characters (runes).
// Every piece is a substring of text with white space trimmed from both
// ends, the pieces appear in text order and together hold every non-space
// character of text; blank text yields none. A cut goes after the last
// paragraph break ("\n\n") in the second half of the allowed window, else
// after the last line break there, else after the last sentence end, else
// after the last white space; failing all of those in the second half, the
// same search runs over the whole window, and a text without any white space
// is cut hard at limit characters.
func splitChunks(text string, limit int) []string {
	var out []string
	for rest := text; ; {
		var chunk string
		chunk, rest = nextChunk(rest, limit)
		if chunk == "" {
			return out
		}
		out = append(out, chunk)
	}
}

// firstChunk returns the first piece splitChunks would return, or "".
func firstChunk(text string, limit int) string {
	chunk, _ := nextChunk(text, limit)
	return chunk
}

// nextChunk returns the first piece of s and the text after it.
func nextChunk(s string, limit int) (chunk, rest string) {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if s == "" {
		return "", ""
	}
	end, n := 0, 0
	for end < len(s) && n < limit {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
		n++
	}
	if end == len(s) {
		return strings.TrimRightFunc(s, unicode.IsSpace), ""
	}
	cut := cutPoint(s[:end])
	return strings.TrimRightFunc(s[:cut], unicode.IsSpace), s[cut:]
}

// sentenceEnds are the marks after which a sentence ends; ASCII marks need
// white space after them, CJK full stops do not.
var sentenceEnds = []string{". ", "! ", "? ", ".\t", "!\t", "?\t", ".\n", "!\n", "?\n", "。", "！", "？"}

// cutPoint returns the byte offset in window (a prefix of the text, cut on a
// rune boundary) after which the piece ends; it is > 0.
func cutPoint(window string) int {
	levels := []func(string) int{
		func(w string) int { return lastAfter(w, "\n\n") },
		func(w string) int { return lastAfter(w, "\n") },
		func(w string) int {
			best := -1
			for _, m := range sentenceEnds {
				// Cut after the mark itself, before the white space.
				if i := strings.LastIndex(w, m); i >= 0 {
					mark := strings.TrimRightFunc(m, unicode.IsSpace)
					best = max(best, i+len(mark))
				}
			}
			return best
		},
		func(w string) int {
			i := strings.LastIndexFunc(w, unicode.IsSpace)
			if i < 0 {
				return -1
			}
			_, size := utf8.DecodeRuneInString(w[i:])
			return i + size
		},
	}
	for _, floor := range []int{len(window) / 2, 1} {
		for _, last := range levels {
			if p := last(window); p >= floor && p > 0 {
				return p
			}
		}
	}
	return len(window)
}

// lastAfter returns the offset just after the last sep in w, or -1.
func lastAfter(w, sep string) int {
	i := strings.LastIndex(w, sep)
	if i < 0 {
		return -1
	}
	return i + len(sep)
}
