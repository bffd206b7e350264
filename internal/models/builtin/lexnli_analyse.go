// Analysis: a text as classified tokens with its numbers and negation
// scope.

package builtin

import (
	"math"
	"strconv"
)

// analyse tokenises text, classifies each token, parses its numbers and
// marks negation scope.
func analyse(text string) analysedText {
	var space [128]string
	words := scanWordsTo(space[:0], text, true)
	toks := make([]lexToken, len(words))
	var vocabSpace [128]*vocabEntry
	entries := vocabSpace[:0]
	for i, w := range words {
		t := &toks[i]
		t.word = w
		v := vocab.find(w)
		if v != nil && v.isWord {
			t.stem, t.flags, t.info, t.val = v.word.stem, v.word.flags, v.word.info, v.word.num
		}
		entries = append(entries, v)
	}
	for i := range toks {
		classify(toks, i, entries[i])
	}
	nums := parseNumbers(toks)
	markNegation(toks)
	return analysedText{toks: toks, nums: nums}
}

// classify sets the kind (and the stem, value and lexicon entry where
// needed) of toks[i], whose word, flags and precomputed stem are set; self
// is the vocab entry of its word (nil when none).
func classify(toks []lexToken, i int, self *vocabEntry) {
	t := &toks[i]
	var next, prev *lexToken
	if i+1 < len(toks) {
		next = &toks[i+1]
	} else {
		next = &noToken
	}
	if i > 0 {
		prev = &toks[i-1]
	} else {
		prev = &noToken
	}
	w, f := t.word, t.flags
	switch {
	case w == boundaryMark:
		t.kind = kBoundary
		return
	case f&wNegation != 0:
		t.kind = kNegation
		if next.flags&wNegCancel != 0 && f&wCancellable != 0 {
			t.kind = kStop
		}
		return
	case f&wNegBeforeTo != 0 && next.word == "to":
		t.kind = kNegation
		return
	case f&wHedge != 0:
		t.kind = kHedge
		return
	case isNumber(w):
		if v, err := strconv.ParseFloat(normaliseNumber(w), 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			t.stem, t.kind, t.val = normaliseNumber(w), kNumber, v
			return
		}
		t.stem, t.kind = w, kContent
		return
	case w == "one":
		if next.word != "" && next.word != boundaryMark && next.flags&(wStop|wNumber) == 0 &&
			!isNumber(next.word) && prev.flags&wOnePronounAfter == 0 {
			t.stem, t.kind, t.val = "1", kNumber, 1
			return
		}
	case f&wNumber != 0:
		t.kind = kNumber
		return
	}
	switch {
	case f&wClaim != 0:
		t.kind = kContent
	case f&wStop != 0:
		t.kind = kStop
	default:
		t.kind = kContent
	}
	if t.stem == "" {
		// Not in wordTable, which holds every irregular form.
		t.stem = stemRegular(w)
	}
	if t.kind == kContent && t.info == nil {
		switch {
		case t.stem != w:
			if v := vocab.find(t.stem); v != nil {
				t.info = v.info
			}
		case self != nil:
			t.info = self.info
		}
	}
}
