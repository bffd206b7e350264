// Contradiction cues of hypothesis words: exclusive alternatives and
// antonyms (with the subject and head-noun rules), opposites by form, and
// the taxonomy lookups they use.

package builtin

import (
	"math"
	"strings"
)

// conflict returns the strength of the strongest contradiction between the
// uncovered hypothesis token toks[i] and the premise (0 when none), and
// whether the premise supports it by negating its binary opposite ("did
// not accept" supports "rejected"). Kinds of person conflict only when the
// token is the hypothesis's subject. morph holds the appendMorphVariants of
// a content token's stem.
func (p *premiseIndex) conflict(toks []lexToken, i int, isSubject bool, morph []hashedStr) (strength float64, support bool) {
	t := &toks[i]
	if info := t.info; info != nil {
		var hHeads [2]string
		headsDone := false
		for _, gs := range info.sides {
			g := &lexGroups[gs.g]
			if g.subject && !isSubject {
				continue
			}
			if g.modifier {
				if !headsDone {
					hHeads, headsDone = headNouns(toks, i), true
				}
				strength = math.Max(strength, p.modifierConflict(gs, hHeads))
				continue
			}
			pos, neg := p.groupSides(gs.g)
			if pos&gs.mask != 0 {
				continue
			}
			if pos&^gs.mask&^g.compatible(gs.mask) != 0 {
				strength = math.Max(strength, g.strength)
				continue
			}
			if g.binary && neg&^gs.mask != 0 {
				support = true
			}
		}
	}
	if strength == 0 && t.kind == kContent && p.morphOpposite(morph) {
		strength = cueAntonym
	}
	return strength, support
}

// subjectIndex returns the index of the hypothesis's subject — its first
// content word naming a person or an animal — or -1.
func subjectIndex(toks []lexToken) int {
	for i := range toks {
		if t := &toks[i]; t.kind == kContent && (t.stem == personStem || t.stem == animalStem ||
			t.implies(personStem) || t.implies(animalStem)) {
			return i
		}
	}
	return -1
}

// animalStem is the stem of "animal".
var animalStem = stem("animal")

// clauseStart reports whether toks[i] starts a clause (where a subject
// pronoun stands).
func clauseStart(toks []lexToken, i int) bool {
	return i == 0 || toks[i-1].kind == kBoundary || toks[i-1].flags&wClause != 0 || toks[i-1].word == "and"
}

// personStem is the stem of "person".
var personStem = stem("person")

// modifierConflict is the strength with which a premise modifier of the
// same group but another value contradicts the hypothesis modifier gs with
// head nouns hh: full when they describe the same head, half when either
// has no head, none when their heads differ.
func (p *premiseIndex) modifierConflict(gs groupSide, hh [2]string) float64 {
	g := &lexGroups[gs.g]
	var s float64
	for _, m := range p.mods {
		if m.g != gs.g || m.neg || m.mask&gs.mask != 0 || m.mask&^g.compatible(gs.mask) == 0 {
			continue
		}
		switch {
		case hh[0] == "" || m.heads[0] == "":
			s = math.Max(s, g.strength/2)
		case headsMatch(hh, m.heads):
			return g.strength
		}
	}
	return s
}

// morphOpposite reports whether a premise word outside negation is an
// opposite by form of the hypothesis stem whose appendMorphVariants are given:
// "shirtless"/"shirt", "unlocked"/"locked", "nonprofit"/"profit".
func (p *premiseIndex) morphOpposite(variants []hashedStr) bool {
	for _, v := range variants {
		if p.cover.get(v)&polPos != 0 {
			return true
		}
	}
	return false
}

// appendMorphVariants appends to out the words that are opposites by form
// of stem h (morphOpposite): h without "less", without "un"/"non" (leaving
// at least four bytes), with "un"/"non" (when h has at least four bytes)
// and with "less", each only when it has at least three bytes. It appends
// at most maxMorphVariants words.
func appendMorphVariants(out []hashedStr, h string) []hashedStr {
	if base, ok := strings.CutSuffix(h, "less"); ok && len(base) >= 3 {
		out = append(out, newHashedStr(base))
	}
	for _, pre := range [...]string{"un", "non"} {
		if base, ok := strings.CutPrefix(h, pre); ok && len(base) >= 4 {
			out = append(out, newHashedStr(base))
		}
	}
	if len(h) < 4 {
		return append(out, newHashedStr(h+"less"))
	}
	// "un"+h, "non"+h and h+"less", cut from one string.
	all := "un" + h + "non" + h + h + "less"
	n := len(h)
	return append(out,
		newHashedStr(all[:2+n]),
		newHashedStr(all[2+n:5+2*n]),
		newHashedStr(all[5+2*n:]))
}

// maxMorphVariants is the most words appendMorphVariants appends.
const maxMorphVariants = 6

// headNouns returns the nouns a modifier toks[i] describes: the run of up
// to two content stems right after it (within modifierReach tokens, within
// the clause: "red plaid hat", "black and white dog"), or, for a predicative
// modifier ("the dog is red"), the run right before the verb "be".
func headNouns(toks []lexToken, i int) [2]string {
	var out [2]string
	n := 0
	for j := i + 1; j < len(toks) && j <= i+modifierReach && n < 2; j++ {
		if toks[j].kind == kContent {
			out[n] = toks[j].stem
			n++
			continue
		}
		if n > 0 || toks[j].kind == kBoundary || toks[j].kind == kNumber || toks[j].kind == kNegation {
			break // the noun phrase has ended
		}
	}
	if n > 0 || i == 0 || toks[i-1].stem != beStem {
		return out
	}
	for j := i - 2; j >= 0 && j >= i-1-modifierReach && n < 2; j-- {
		if toks[j].kind == kContent {
			out[n] = toks[j].stem
			n++
			continue
		}
		if n > 0 || toks[j].kind == kBoundary || toks[j].kind == kNumber || toks[j].kind == kNegation {
			break
		}
	}
	return out
}

// beStem is the stem of the forms of "be".
var beStem = stem("is")

// headsMatch reports whether two head-noun lists share a noun (or one
// implies the other).
func headsMatch(a, b [2]string) bool {
	for _, x := range a {
		for _, y := range b {
			if x != "" && y != "" && (x == y || implies(x, y) || implies(y, x)) {
				return true
			}
		}
	}
	return false
}

// implies reports whether stem a implies stem b in the built-in taxonomy.
//
// For a content token this is lexToken.implies.
func implies(a, b string) bool {
	if v := vocab.find(a); v != nil && v.info != nil {
		return containsString(v.info.implies, b)
	}
	return false
}

// implies is implies(t.stem, b) for a content token t: its info is the
// lexicon entry of its stem (classify looks it up; for a word starting
// with a digit, which is no number, neither wordTable nor the lexicon has
// an entry, see TestLexiconDigitFree).
func (t *lexToken) implies(b string) bool {
	return t.info != nil && containsString(t.info.implies, b)
}

// agentBase returns the verb stem of an agent noun stem ("dancer" → "danc",
// "swimmer" → "swim"), or "" when s does not look like one.
func agentBase(s string) string {
	if len(s) < 6 || !strings.HasSuffix(s, "er") {
		return ""
	}
	b := s[:len(s)-2]
	if n := len(b); n >= 4 && b[n-1] == b[n-2] && !isVowel(b[n-1]) && b[n-1] != 'l' && b[n-1] != 's' {
		b = b[:n-1]
	}
	return b
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
