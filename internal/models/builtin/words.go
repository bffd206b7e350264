// Tokenising: splitting a text into lowercase words (and clause boundaries).

package builtin

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// boundaryMark is the token scanWords emits for clause punctuation.
const boundaryMark = ","

// textWords splits text into lowercase words of letters, digits and marks.
// An apostrophe inside a word is kept long enough to expand "n't" into "not"
// and is then dropped with what follows it ("dog's" → "dog"). Digits joined
// by "," or "." stay one token ("1,000", "3.5").
func textWords(text string) []string { return scanWords(text, false) }

// scanWords is textWords that, with boundaries, also emits boundaryMark for
// clause punctuation (, ; : . ! ? and brackets).
//
// A first pass writes the lowercase bytes of the words one after another
// into one buffer and notes where each word ends (and, as −1, where clause
// punctuation stands); the words are then cut out of one string made of
// that buffer, so a text costs two allocations whatever its length. Word
// marks hold the end offset and an apostrophe bit (wordMark).
func scanWords(text string, boundaries bool) []string { return scanWordsTo(nil, text, boundaries) }

// scanWordsTo is scanWords appending to out.
func scanWordsTo(out []string, text string, boundaries bool) []string {
	var bufSpace [512]byte
	var endSpace [128]int
	buf, ends := bufSpace[:0], endSpace[:0]
	start := 0    // offset in buf of the word being built; it is empty while len(buf) == start
	apos := false // that word holds an apostrophe
	for i := 0; i < len(text); {
		if lc := asciiWordByte[text[i]]; lc != 0 {
			// A run of ASCII letters and digits, the bulk of most texts.
			buf = append(buf, lc)
			for i++; i < len(text); i++ {
				if lc = asciiWordByte[text[i]]; lc == 0 {
					break
				}
				buf = append(buf, lc)
			}
			continue
		}
		wordEnd, boundary := false, false
		if c := text[i]; c < utf8.RuneSelf {
			i++
			switch asciiClass[c] {
			case acOther:
				wordEnd = true
			case acApostrophe:
				// keep inside a word if a letter follows ("n't", "dog's").
				if len(buf) > start && unicode.IsLetter(nextRune(text, i)) {
					buf = append(buf, '\'')
					apos = true
				} else {
					wordEnd = true
				}
			case acDecimal:
				// "1,000", "3.5"
				if len(buf) > start && buf[len(buf)-1] >= '0' && buf[len(buf)-1] <= '9' && unicode.IsDigit(nextRune(text, i)) {
					buf = append(buf, c)
				} else {
					boundary = true
				}
			case acClause:
				boundary = true
			}
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			i += size
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || (len(buf) > start && unicode.IsMark(r)):
				buf = utf8.AppendRune(buf, unicode.ToLower(r))
			case r == '\u2019' && len(buf) > start:
				if unicode.IsLetter(nextRune(text, i)) {
					buf = append(buf, '\'')
					apos = true
				} else {
					wordEnd = true
				}
			default:
				wordEnd = true
			}
		}
		if (wordEnd || boundary) && len(buf) > start {
			ends = append(ends, wordMark(len(buf), apos))
			start, apos = len(buf), false
		}
		if boundary && boundaries {
			ends = append(ends, -1)
		}
	}
	if len(buf) > start {
		ends = append(ends, wordMark(len(buf), apos))
	}
	all := string(buf)
	if out == nil {
		out = make([]string, 0, len(ends)+1)
	}
	from := 0
	for _, end := range ends {
		if end < 0 {
			if len(out) > 0 && out[len(out)-1] != boundaryMark {
				out = append(out, boundaryMark)
			}
			continue
		}
		w := all[from : end>>1]
		from = end >> 1
		if end&1 == 0 {
			out = append(out, w) // no apostrophe, so nothing to expand or cut
		} else {
			out = appendWord(out, w)
		}
	}
	return out
}

// wordMark notes the end of a scanned word for the second pass of
// scanWordsTo: its end offset, shifted left, and whether it holds an
// apostrophe in the low bit.
func wordMark(end int, apos bool) int {
	if apos {
		return end<<1 | 1
	}
	return end << 1
}

// ASCII classes of scanWordsTo for bytes that are no letter or digit.
const (
	acOther      = iota // ends a word
	acApostrophe        // ' may stay inside a word
	acDecimal           // , and . may join digits; else as acClause
	acClause            // ; : ! ? ( ) [ ] end a clause
)

// asciiClass holds the class of each ASCII byte.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	t['\''] = acApostrophe
	t[','], t['.'] = acDecimal, acDecimal
	for _, c := range ";:!?()[]" {
		t[c] = acClause
	}
	return t
}()

// asciiWordByte maps the ASCII letters and digits to their lowercase form
// and every other byte to 0.
var asciiWordByte = func() (t [256]byte) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = byte(c)
		t[c-'a'+'A'] = byte(c)
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c)
	}
	return t
}()

// nextRune returns the rune starting at text[i] (utf8.RuneError at the end).
func nextRune(text string, i int) rune {
	if i < len(text) && text[i] < utf8.RuneSelf {
		return rune(text[i])
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return r
}

// appendWord appends scanned word w to out, expanding a contracted negation
// ("didn't" → "did", "not") and cutting w at an apostrophe ("dog's" → "dog").
func appendWord(out []string, w string) []string {
	if strings.HasSuffix(w, "n't") {
		if base := w[:len(w)-3]; base != "" {
			if full, ok := contractedBase[base]; ok {
				base = full
			}
			out = append(out, base)
		} else if n := len(out); n > 0 {
			if full, ok := contractedBase[out[n-1]]; ok {
				out[n-1] = full // pre-tokenised "ca n't"
			}
		}
		return append(out, "not")
	}
	if k := strings.IndexByte(w, '\''); k >= 0 {
		w = w[:k]
	}
	return append(out, w)
}

// contractedBase restores the verb of a contracted negation ("won't").
var contractedBase = map[string]string{"ca": "can", "wo": "will", "sha": "shall", "ai": "be"}
