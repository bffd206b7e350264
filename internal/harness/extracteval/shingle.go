package extracteval

import (
	"strings"
	"unicode"
)

// ShingleSize is the number of consecutive tokens in one shingle.
const ShingleSize = 4

// Match is one page's shingle comparison, normalised so that TP+FP+FN is 1
// (0 when neither text has a token): a long page weighs no more than a short one.
type Match struct {
	TP, FP, FN float64
}

// Compare matches the 4-token shingles of pred against those of truth as
// multisets. A token is a maximal run of letters, digits and underscores
// (the benchmarks' \w+); text shorter than a shingle is one shorter shingle.
func Compare(truth, pred string) Match {
	want := shingles(truth)
	got := shingles(pred)
	var m Match
	for k, w := range want {
		g := got[k]
		m.TP += float64(min(w, g))
		m.FN += float64(max(0, w-g))
	}
	for k, g := range got {
		m.FP += float64(max(0, g-want[k]))
	}
	if s := m.TP + m.FP + m.FN; s > 0 {
		m.TP, m.FP, m.FN = m.TP/s, m.FP/s, m.FN/s
	}
	return m
}

// Precision is the share of predicted shingles that are true: 1 when both
// texts are empty (nothing to find, nothing found), 0 when nothing matched.
func (m Match) Precision() float64 {
	switch {
	case m.FP == 0 && m.FN == 0:
		return 1
	case m.TP == 0 && m.FP == 0:
		return 0
	}
	return m.TP / (m.TP + m.FP)
}

// Recall is the share of true shingles predicted (see Precision for the
// empty cases).
func (m Match) Recall() float64 {
	switch {
	case m.FP == 0 && m.FN == 0:
		return 1
	case m.TP == 0 && m.FN == 0:
		return 0
	}
	return m.TP / (m.TP + m.FN)
}

// F1 is the harmonic mean of the page's precision and recall.
func (m Match) F1() float64 {
	return harmonic(m.Precision(), m.Recall())
}

// Scores are a set of pages' figures: precision is the mean over the pages
// that predicted anything, recall the mean over the pages with any true
// text, and F1 the harmonic mean of those two means (not a mean of F1s).
type Scores struct {
	Pages     int     `json:"pages"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// Summarise computes the Scores of ms.
func Summarise(ms []Match) Scores {
	var p, r float64
	var np, nr int
	for _, m := range ms {
		if m.TP+m.FP > 0 {
			p += m.Precision()
			np++
		}
		if m.TP+m.FN > 0 {
			r += m.Recall()
			nr++
		}
	}
	s := Scores{Pages: len(ms)}
	if np > 0 {
		s.Precision = p / float64(np)
	}
	if nr > 0 {
		s.Recall = r / float64(nr)
	}
	s.F1 = harmonic(s.Precision, s.Recall)
	return s
}

func harmonic(a, b float64) float64 {
	if a+b == 0 {
		return 0
	}
	return 2 * a * b / (a + b)
}

// shingles counts the ShingleSize-token shingles of text, each keyed by its
// tokens joined with a NUL.
func shingles(text string) map[string]int {
	toks := strings.FieldsFunc(text, func(r rune) bool { return !wordRune(r) })
	out := make(map[string]int, len(toks))
	if len(toks) == 0 {
		return out
	}
	for i := 0; i < max(1, len(toks)-ShingleSize+1); i++ {
		out[strings.Join(toks[i:min(len(toks), i+ShingleSize)], "\x00")]++
	}
	return out
}

// wordRune reports a rune of a token: a letter, a number or '_'.
func wordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}
