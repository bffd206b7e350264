// Coverage: whether the premise has a hypothesis word, a word implying it,
// or a form of the same word (a stem family, a spelling slip).

package builtin

import "strings"

// coverBits returns the polarity bits with which the premise covers
// hypothesis content word it (0 when it does not): the stem itself, a word
// implying it, an agent noun and its verb ("dancer"/"dance"), or a stem of
// the same family (sameFamily).
func (p *premiseIndex) coverBits(it *hypItem) uint8 {
	if b := p.cover.get(it.stem); b != 0 {
		return b
	}
	if it.base.s != "" {
		if b := p.cover.get(it.base); b != 0 {
			return b
		}
	}
	h := it.stem.s
	if len(h) < prefixMinLen {
		return 0
	}
	// sameFamily holds only for stems that start alike, at most
	// maxFamilyExtra bytes longer or shorter, or that differ by a spelling
	// slip, at most one byte longer or shorter.
	var b uint8
	for _, x := range famBucket(p.famFirst, &p.famFirstEnd, h[0]) {
		if s := x.stem; s[0] == h[0] && lenDiff(s, h) <= maxFamilyExtra && sameFamily(h, s) {
			b |= x.pol
		}
	}
	if len(h) < slipMinLen {
		return b
	}
	// A spelling slip in the first byte swaps or inserts it, so that the
	// first byte of one stem is the second of the other.
	for _, x := range famBucket(p.famFirst, &p.famFirstEnd, h[1]) {
		if s := x.stem; s[0] == h[1] && s[0] != h[0] && len(s) >= slipMinLen && lenDiff(s, h) <= 1 && sameFamily(h, s) {
			b |= x.pol
		}
	}
	for _, x := range famBucket(p.famSecond, &p.famSecondEnd, h[0]) {
		if s := x.stem; s[1] == h[0] && s[0] != h[0] && lenDiff(s, h) <= 1 && sameFamily(h, s) {
			b |= x.pol
		}
	}
	return b
}

// lenDiff returns the difference of the lengths of a and b.
func lenDiff(a, b string) int {
	if len(a) > len(b) {
		return len(a) - len(b)
	}
	return len(b) - len(a)
}

// maxFamilyExtra bounds the length difference of two stems with the same
// first byte that sameFamily can accept: prefixMaxExtra or the length of
// the longest derivational suffix.
var maxFamilyExtra = func() int {
	n := prefixMaxExtra
	for suf := range derivationalSet {
		n = max(n, len(suf))
	}
	return n
}()

// sameFamily reports whether two stems of at least prefixMinLen bytes are
// forms of one word: one extends the other by at most prefixMaxExtra bytes
// or by a derivational suffix ("govern"/"government", "econom(y)"/"economic"),
// but not by "less" ("shirt"/"shirtless"); or they differ by a spelling slip.
// Either way they start with the same byte, unless they are of at least
// slipMinLen bytes and differ in length by at most one (coverBits relies
// on this).
func sameFamily(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	short := a
	if !strings.HasPrefix(b, short) && strings.HasSuffix(short, "y") && len(short) > prefixMinLen {
		short = short[:len(short)-1] // "economy" → "econom" + "ic"
	}
	if strings.HasPrefix(b, short) {
		rest := b[len(short):]
		if rest == "less" {
			return false
		}
		return len(b)-len(a) <= prefixMaxExtra || derivationalSet[rest]
	}
	return len(a) >= slipMinLen && spellingSlip(a, b)
}

// derivationalSet holds English derivational suffixes.
var derivationalSet = wordSet([]string{
	"ation", "ition", "ion", "ment", "ness", "ity", "al", "ial", "ical", "ally", "ive", "ous",
	"ful", "er", "or", "ist", "ism", "ize", "ise", "ance", "ence", "ant", "ent", "able", "ible",
	"ic", "ian", "ery", "ary", "ure", "age", "ship", "hood", "ization", "isation", "ational",
	"ment", "ments", "ically", "iveness", "fulness",
})

// spellingSlip reports whether a and b differ by one inserted or deleted
// byte or by two swapped neighbours ("bicyle"/"bicycle",
// "snowbaorder"/"snowboarder"). Substitutions do not count: they mostly make
// another word ("jacket"/"racket").
func spellingSlip(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	switch len(b) - len(a) {
	case 0:
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
	case 1:
		return a[i:] == b[i+1:]
	}
	return false
}
