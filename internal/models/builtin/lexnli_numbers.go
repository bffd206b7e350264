// Numbers: parsing mentions with their bounds and unit words, and comparing
// a hypothesis number with the premise's as intervals.

package builtin

import (
	"math"
	"strings"
)

// Outcomes of comparing a hypothesis number with the premise's.
const (
	numUnknown = iota
	numEntailed
	numContradicted
)

// compareNumber compares hypothesis number m with the premise numbers of the
// same thing (the same or an implied unit word; numbers without a unit are
// compared with unit-less ones): entailed when one premise interval lies
// within m's (or m is exact and within an approximate premise value),
// contradicted when every such premise interval is disjoint from m's.
func (p *premiseIndex) compareNumber(m numMention) int {
	found, allDisjoint := false, true
	for pass := 0; pass < 2 && !found; pass++ {
		for _, q := range p.nums {
			if pass == 0 && !unitsMatch(q.nouns, m.nouns) {
				continue
			}
			if pass == 1 && (m.nouns[0] != "" || q.nouns[0] != "") {
				continue
			}
			found = true
			if intervalWithin(q, m) || (m.lo == m.hi && intervalWithin(m, q)) {
				return numEntailed
			}
			if !intervalsDisjoint(q, m) {
				allDisjoint = false
			}
		}
		if m.nouns[0] != "" {
			break // a number of a named thing is compared with that thing only
		}
	}
	if found && allDisjoint {
		return numContradicted
	}
	if !found && m.nouns[0] != "" && m.lo == m.hi {
		return p.compareCount(m.nouns[0], m.lo)
	}
	return numUnknown
}

// compareCount reports whether the premise entails a hypothesis count k of
// noun n ("two dogs") by as many singular mentions introduced by an
// indefinite article ("a black dog … a white dog"; "a man and a woman" for
// "two people"), when it names the thing in no other way (no plural, no
// collective noun, no definite mention).
func (p *premiseIndex) compareCount(n string, k float64) int {
	count, other := 0, false
	article := -1 // index of the last unused indefinite article in the clause
	for i := range p.toks {
		t := &p.toks[i]
		switch {
		case t.kind == kBoundary:
			article = -1
		case t.flags&wIndefinite != 0 && t.kind != kContent:
			article = i
		case t.kind == kContent && (t.stem == n || t.implies(n)):
			switch {
			case t.stem == groupStem || t.implies(groupStem) || isPluralWord(*t):
				other = true
			case article >= 0 && i-article <= countReach:
				count++
				article = -1
			default:
				other = true
			}
		}
	}
	if count > 0 && !other && float64(count) == k {
		return numEntailed
	}
	// A different count decides nothing: "another", "others" and pronouns
	// also introduce things.
	return numUnknown
}

// isPluralWord reports whether a content token is a plural noun form
// ("dogs", "men", "people").
func isPluralWord(t lexToken) bool {
	if t.word == t.stem {
		return false
	}
	if b, ok := irregularForms[t.word]; ok && b != t.word {
		return !strings.HasSuffix(t.word, "ing") && !strings.HasSuffix(t.word, "ed")
	}
	return strings.HasSuffix(t.word, "s") && !strings.HasSuffix(t.word, "ss")
}

// groupStem is the stem of "group": nouns implying it are collective.
var groupStem = stem("group")

// unitsMatch reports whether premise unit words q name the hypothesis unit
// words m (equal, or implying them: "men" names "people").
func unitsMatch(q, m [2]string) bool {
	if q[0] == "" || m[0] == "" {
		return false
	}
	for _, a := range m {
		for _, b := range q {
			if a != "" && b != "" && (a == b || implies(b, a)) {
				return true
			}
		}
	}
	return false
}

// intervalWithin reports whether interval a lies within interval b.
func intervalWithin(a, b numMention) bool {
	loOK := a.lo > b.lo || (a.lo == b.lo && (!b.loOpen || a.loOpen))
	hiOK := a.hi < b.hi || (a.hi == b.hi && (!b.hiOpen || a.hiOpen))
	return loOK && hiOK
}

// intervalsDisjoint reports whether intervals a and b share no value.
func intervalsDisjoint(a, b numMention) bool {
	below := func(x, y numMention) bool { // x lies entirely below y
		return x.hi < y.lo || (x.hi == y.lo && (x.hiOpen || y.loOpen))
	}
	return below(a, b) || below(b, a)
}

// parseNumbers groups the number tokens of toks into mentions: compound
// numbers ("twenty five", "3 million"), ranges ("between 5 and 10", "5 to
// 10", "1850–1900"), bounds ("more than", "at least", "under", "or more")
// and approximations ("about"). Comparator words become stop tokens.
func parseNumbers(toks []lexToken) []numMention {
	var out []numMention
	for i := 0; i < len(toks); i++ {
		if toks[i].kind != kNumber {
			continue
		}
		start := i
		v, end := composeNumber(toks, i)
		m := numMention{lo: v, hi: v}
		exact := true
		// ranges
		switch {
		case end+1 < len(toks) && toks[end+1].kind == kNumber:
			w, e := composeNumber(toks, end+1)
			m.lo, m.hi = math.Min(v, w), math.Max(v, w)
			end, exact = e, false
		case end+2 < len(toks) && toks[end+2].kind == kNumber &&
			(toks[end+1].word == "to" || (toks[end+1].word == "and" && start > 0 && toks[start-1].word == "between")):
			w, e := composeNumber(toks, end+2)
			m.lo, m.hi = math.Min(v, w), math.Max(v, w)
			toks[end+1].kind = kStop
			if start > 0 && toks[start-1].word == "between" {
				toks[start-1].kind = kStop
			}
			end, exact = e, false
		}
		if exact {
			exact = applyBounds(toks, start, end, &m, v)
		}
		// unit words
		k := 0
		for j := end + 1; j < len(toks) && j <= end+modifierReach && k < 2; j++ {
			t := toks[j]
			if t.kind == kBoundary || t.kind == kNumber || t.kind == kNegation {
				break
			}
			if t.kind == kContent {
				m.nouns[k] = t.stem
				k++
			}
		}
		if k == 0 && exact && v == math.Trunc(v) && v >= 1000 && v <= 2100 && isNumber(toks[start].word) {
			m.nouns[0] = "#year"
		}
		out = append(out, m)
		i = end
	}
	return out
}

// composeNumber reads the number starting at toks[i] ("two hundred",
// "twenty five", "3 million") and returns its value and last token index.
func composeNumber(toks []lexToken, i int) (float64, int) {
	total, cur := 0.0, toks[i].val
	j := i + 1
	for ; j < len(toks) && toks[j].kind == kNumber; j++ {
		w, x := toks[j].word, toks[j].val
		prev := toks[j-1]
		switch {
		case w == "dozen":
			cur *= 12
		case w == "hundred":
			cur *= 100
		case multiplierSet[w]:
			total += cur * x
			cur = 0
		case numberWords[prev.word] >= 20 && numberWords[prev.word] < 100 && x < 10 && numberWords[w] > 0:
			cur += x // "twenty five"
		default:
			return total + cur, j - 1
		}
	}
	return total + cur, j - 1
}

// applyBounds turns m into a bound or an approximation when a comparator
// precedes toks[start] or follows toks[end] ("more than 5", "5 or more").
// It returns whether the number stays exact.
func applyBounds(toks []lexToken, start, end int, m *numMention, v float64) bool {
	inf := math.Inf(1)
	word := func(k int) string {
		if k < 0 || k >= len(toks) {
			return ""
		}
		return toks[k].word
	}
	consume := func(ks ...int) {
		for _, k := range ks {
			toks[k].kind = kStop
		}
	}
	above := func(open bool) { m.lo, m.loOpen, m.hi = v, open, inf }
	below := func(open bool) { m.lo, m.hi, m.hiOpen = -inf, v, open }
	k := start - 1
	switch w := word(k); {
	case w == "than" && numAboveThanSet[word(k-1)]:
		if w2 := word(k - 2); w2 == "no" || w2 == "not" { // "no more than 5" is at most 5
			below(false)
		} else {
			above(true)
		}
		consume(k-1, k)
	case w == "than" && numBelowThanSet[word(k-1)]:
		if w2 := word(k - 2); w2 == "no" || w2 == "not" {
			above(false)
		} else {
			below(true)
		}
		consume(k-1, k)
	case w == "least" && word(k-1) == "at":
		above(false)
		consume(k-1, k)
	case w == "most" && word(k-1) == "at":
		below(false)
		consume(k-1, k)
	case w == "to" && word(k-1) == "up":
		below(false)
		consume(k-1, k)
	case numAboveSet[w]:
		above(true)
		consume(k)
	case numBelowSet[w]:
		below(true)
		consume(k)
	case numApproxSet[w]:
		d := math.Abs(v) * numApproxShare
		m.lo, m.hi = v-d, v+d
		consume(k)
	default:
		switch w2 := word(end + 2); {
		case word(end+1) != "or":
			return true
		case numAboveThanSet[w2] || numAboveSet[w2]:
			above(false)
		case numBelowThanSet[w2] || numBelowSet[w2]:
			below(false)
		default:
			return true
		}
		consume(end+1, end+2)
	}
	return false
}

// isNumber reports whether w starts with a digit.
func isNumber(w string) bool { return w != "" && w[0] >= '0' && w[0] <= '9' }

// normaliseNumber drops thousands separators and trailing fraction zeros.
func normaliseNumber(w string) string {
	w = strings.ReplaceAll(w, ",", "")
	if strings.Contains(w, ".") {
		w = strings.TrimRight(w, "0")
		w = strings.TrimSuffix(w, ".")
	}
	return w
}
