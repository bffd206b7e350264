package nlimodel

import (
	"slices"
	"strings"
)

// Reported speech. "Smith asserted that the ice is growing" does not state
// that the ice is growing: it states that Smith said so, in words that
// keep their distance. A lexical model sees the claim's words in the
// premise and calls it support (or, negated, refutation), so the built-in
// judge holds such a judgement back (Attributed) rather than pass it on
// as evidence.

// distancingWords report an assertion the writer does not vouch for.
var distancingWords = strings.Fields(`claim assert allege argue contend insist purport deny
	allegedly allegation purportedly supposedly`)

// reportingWords report what someone says, thinks or found; a hypothesis
// that holds one is itself about the report (and holds the distancing
// words too).
var reportingWords = strings.Fields(`say said tell told state report reportedly according suggest
	believe think thought write wrote written announce declare accuse`)

func init() {
	mark := func(words []string, k tokenKind) {
		for _, w := range words {
			for _, f := range []string{w, w + "s", w + "es", w + "d", w + "ed", w + "ing", strings.TrimSuffix(w, "e") + "ing"} {
				kinds[stem(f)] |= k
			}
		}
	}
	mark(distancingWords, kindDistancing|kindReporting)
	mark(reportingWords, kindReporting)
	// irregular forms the suffixes above miss
	for _, w := range []string{"denied", "denies", "allegations"} {
		kinds[stem(w)] |= kindDistancing | kindReporting
	}
}

// Attributed reports whether premise p only reports hypothesis h as
// someone's assertion kept at a distance: h reports nothing itself, and
// the premise sentences holding the most of h's content words all hold a
// distancing word ("claims", "asserted", "alleged", "argues", "denied",
// ...). A judgement of such a pair says what was said, not what is so.
func Attributed(p, h *Text) bool {
	if h.reports || len(p.distancing) == 0 {
		return false
	}
	held := make([]int, len(p.starts)+1) // per premise sentence, the distinct content words of h it holds
	seen := make(map[uint64]bool, len(h.hs))
	var in []int // the sentences holding the current word
	for i, x := range h.hs {
		if h.kind[i]&kindStop != 0 || seen[x] {
			continue
		}
		seen[x] = true
		in = in[:0]
		sentence := 0
		for j, y := range p.hs {
			if sentence < len(p.starts) && int(p.starts[sentence]) == j {
				sentence++
			}
			if y == x && !slices.Contains(in, sentence) {
				in = append(in, sentence)
				held[sentence]++
			}
		}
	}
	best, bestDistancing := 0, false
	for sentence, n := range held {
		d := slices.Contains(p.distancing, sentence)
		switch {
		case n > best:
			best, bestDistancing = n, d
		case n == best:
			bestDistancing = bestDistancing && d
		}
	}
	return best > 0 && bestDistancing
}
