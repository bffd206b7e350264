package extract

import "unicode/utf8"

// RuneSpan converts the byte span [byteStart, byteEnd) of s into the rune span
// that covers the same characters. Out-of-range offsets are clamped to s; a
// start inside a multi-byte character moves back to that character's first
// byte and an end inside one moves forward past it, so the rune span always
// covers at least the requested bytes. Each invalid UTF-8 byte counts as one
// rune, as in []rune(s).
func RuneSpan(s string, byteStart, byteEnd int) (int, int) {
	byteStart = clampInt(byteStart, 0, len(s))
	byteEnd = clampInt(byteEnd, byteStart, len(s))
	byteStart = alignRuneStart(s, byteStart)
	byteEnd = alignRuneEnd(s, byteEnd)
	rs := utf8.RuneCountInString(s[:byteStart])
	return rs, rs + utf8.RuneCountInString(s[byteStart:byteEnd])
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// alignRuneStart moves i back to the first byte of the valid multi-byte rune
// that contains it, if any.
func alignRuneStart(s string, i int) int {
	if i <= 0 || i >= len(s) || utf8.RuneStart(s[i]) {
		return i
	}
	for j := i - 1; j >= 0 && j >= i-(utf8.UTFMax-1); j-- {
		if utf8.RuneStart(s[j]) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if (r != utf8.RuneError || size > 1) && j+size > i {
				return j
			}
			return i
		}
	}
	return i
}

// alignRuneEnd moves i forward to the end of the valid multi-byte rune that
// contains byte i-1 when i falls inside it.
func alignRuneEnd(s string, i int) int {
	if i <= 0 || i >= len(s) || utf8.RuneStart(s[i]) {
		return i
	}
	j := alignRuneStart(s, i)
	if j == i {
		return i
	}
	_, size := utf8.DecodeRuneInString(s[j:])
	return j + size
}
