package ml

import (
	"context"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// LexicalNLIModel is the model id of LexicalNLI.
const LexicalNLIModel = "builtin-lexical-nli-v1"

// Weights of the contradiction cues and of the label scores of LexicalNLI.
// They are set by design (a cue of weight 1.5 on a well covered hypothesis
// makes Refutes the top class with probability about 0.65–0.85), not fitted to
// any data set.
const (
	cueNegation   = 1.5 // negation in one text only, near the shared content
	cueAntonym    = 1.5 // hypothesis word whose antonym is in the premise
	cueNumber     = 1.5 // both texts give numbers and the hypothesis's differ
	cueQuantifier = 1.0 // all/every vs none/never
	cueExclusive  = 0.7 // alternative from a mutually exclusive group
	cueMax        = 3.0 // cap of the summed cue strength

	supSlope     = 6.0  // Supports logit per unit of coverage
	supCenter    = 0.75 // coverage at which Supports ties Neutral (no cue)
	supCuePen    = 3.0  // Supports logit penalty per unit of cue strength
	refBias      = -3.0 // Refutes logit without any cue
	refCueGain   = 2.2  // Refutes logit per unit of cue strength
	refSlope     = 3.0  // Refutes logit per unit of coverage
	refCenter    = 0.5  // coverage centre of the Refutes logit
	hedgeDamping = 0.7  // logits are multiplied by this when a text hedges

	negScopeBefore = 2 // a premise negation governs content this many tokens before it
	negScopeAfter  = 5 // … and this many tokens after it
)

// LexicalNLI is an honest lexical NLI baseline. It measures how much of the
// hypothesis's content (stemmed content words, with a small built-in table
// of synonyms and hypernyms: premise "woman" covers "person") occurs in the
// premise, and looks for contradiction cues: a negation present in only one
// text (for the premise, only near the shared content), an antonym of a
// hypothesis word in the premise, numbers that disagree, conflicting
// quantifiers (all/none, always/never), and alternatives from mutually
// exclusive groups (colours, weekdays, postures). Three logits are formed —
// Supports grows with coverage and shrinks with cues, Refutes grows with
// cues and coverage, Neutral is 0 — and hedges (may, might, possibly, …)
// damp them. The label is the argmax of their softmax and Confidence its
// probability, so Confidence is in [1/3, 1].
//
// It knows no world facts and no syntax beyond negation scope; expect an
// accuracy only moderately above the majority class on SNLI/MNLI.
// A LexicalNLI is safe for concurrent use.
type LexicalNLI struct{}

var _ NLI = (*LexicalNLI)(nil)

// NewLexicalNLI returns the lexical NLI baseline.
func NewLexicalNLI() *LexicalNLI { return &LexicalNLI{} }

// Model returns LexicalNLIModel.
func (*LexicalNLI) Model() string { return LexicalNLIModel }

// Judge returns one Judgement per pair. It fails only when ctx is done.
func (n *LexicalNLI) Judge(ctx context.Context, pairs []Pair) ([]Judgement, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]Judgement, len(pairs))
	for i, p := range pairs {
		if i&31 == 31 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = judgeLexical(p.Premise, p.Hypothesis).judgement()
	}
	return out, nil
}

// lexEvidence is the evidence LexicalNLI extracts from one pair.
type lexEvidence struct {
	content  int     // distinct content stems in the hypothesis
	matched  int     // … of which the premise covers
	coverage float64 // matched/content
	cue      float64 // summed contradiction cue strength (capped)
	hedged   bool
}

// judgement turns the evidence into a label and a confidence.
func (e lexEvidence) judgement() Judgement {
	c := e.coverage // 0 when the hypothesis has no content word
	sup := supSlope*(c-supCenter) - supCuePen*e.cue
	ref := refBias + refCueGain*e.cue + refSlope*(c-refCenter)
	if e.hedged {
		sup *= hedgeDamping
		ref *= hedgeDamping
	}
	p := softmax3(sup, ref, 0)
	switch {
	case p[0] > p[1] && p[0] > p[2]:
		return Judgement{Label: Supports, Confidence: p[0]}
	case p[1] > p[2]:
		return Judgement{Label: Refutes, Confidence: p[1]}
	default:
		return Judgement{Label: Neutral, Confidence: p[2]}
	}
}

// softmax3 returns the softmax of three finite logits.
func softmax3(a, b, c float64) [3]float64 {
	m := math.Max(a, math.Max(b, c))
	ea, eb, ec := math.Exp(a-m), math.Exp(b-m), math.Exp(c-m)
	s := ea + eb + ec
	return [3]float64{ea / s, eb / s, ec / s}
}

// lexToken is one token of a text for LexicalNLI.
type lexToken struct {
	stem string
	kind tokenKind
}

type tokenKind uint8

const (
	kContent tokenKind = iota
	kStop
	kNegation
	kHedge
	kNumber
)

// judgeLexical extracts the evidence of one premise/hypothesis pair.
func judgeLexical(premise, hypothesis string) lexEvidence {
	pt := analyse(premise)
	ht := analyse(hypothesis)

	pStems := make(map[string]bool, len(pt)) // content words and numbers
	pAll := make(map[string]bool, len(pt))   // every token
	pNums := make(map[string]bool)
	var pUniv, pNegUniv, pHedge bool
	for _, t := range pt {
		pAll[t.stem] = true
		switch t.kind {
		case kContent:
			pStems[t.stem] = true
		case kNumber:
			pNums[t.stem] = true
			pStems[t.stem] = true
		case kHedge:
			pHedge = true
		}
		if universal[t.stem] {
			pUniv = true
		}
		if negUniversal[t.stem] {
			pNegUniv = true
		}
	}

	var ev lexEvidence
	seen := make(map[string]bool)
	hNums := make(map[string]bool)
	hNeg := false
	var hUniv, hNegUniv bool
	antonymHits, exclusiveHits := 0, 0
	for _, t := range ht {
		if universal[t.stem] {
			hUniv = true
		}
		if negUniversal[t.stem] {
			hNegUniv = true
		}
		switch t.kind {
		case kNegation:
			hNeg = true
			continue
		case kHedge:
			ev.hedged = true
			continue
		case kNumber:
			hNums[t.stem] = true
		}
		if seen[t.stem] {
			continue
		}
		seen[t.stem] = true
		isCovered := false
		if t.kind != kStop {
			ev.content++
			if covered(t.stem, pStems) {
				ev.matched++
				isCovered = true
			}
		}
		if isCovered || pAll[t.stem] || t.kind == kNumber {
			continue
		}
		// An uncovered hypothesis word (function words included: before/after,
		// up/down) whose antonym or exclusive alternative is in the premise.
		for _, a := range antonyms[t.stem] {
			if pAll[a] {
				antonymHits++
				break
			}
		}
		if g, ok := exclusiveGroup[t.stem]; ok {
			for s := range pStems {
				if gs, ok := exclusiveGroup[s]; ok && gs == g {
					exclusiveHits++
					break
				}
			}
		}
	}
	if ev.content > 0 {
		ev.coverage = float64(ev.matched) / float64(ev.content)
	}
	ev.hedged = ev.hedged || pHedge

	// Premise negation counts only when it is near content shared with the
	// hypothesis (long fragments negate many unrelated things).
	pNeg := false
	for i, t := range pt {
		if t.kind != kNegation {
			continue
		}
		lo, hi := max(0, i-negScopeBefore), min(len(pt)-1, i+negScopeAfter)
		for j := lo; j <= hi && !pNeg; j++ {
			if (pt[j].kind == kContent || pt[j].kind == kNumber) && seen[pt[j].stem] {
				pNeg = true
			}
		}
		if pNeg {
			break
		}
	}

	var cue float64
	if hNeg != pNeg {
		cue += cueNegation
	}
	if antonymHits > 0 {
		cue += cueAntonym + 0.5*float64(antonymHits-1)
	}
	if exclusiveHits > 0 {
		cue += cueExclusive
	}
	if len(hNums) > 0 && len(pNums) > 0 {
		for n := range hNums {
			if !pNums[n] {
				cue += cueNumber
				break
			}
		}
	}
	if (pUniv && hNegUniv) || (pNegUniv && hUniv) {
		cue += cueQuantifier
	}
	ev.cue = math.Min(cue, cueMax)
	return ev
}

// covered reports whether the premise stems cover hypothesis stem h: the same
// stem, a synonym/hyponym (premise "woman" covers "person"), or a shared
// prefix of at least 5 bytes when one stem extends the other.
func covered(h string, p map[string]bool) bool {
	if p[h] {
		return true
	}
	for _, s := range coveredBy[h] {
		if p[s] {
			return true
		}
	}
	if len(h) >= 5 {
		for s := range p {
			if len(s) >= 5 && (strings.HasPrefix(s, h) || strings.HasPrefix(h, s)) {
				return true
			}
		}
	}
	return false
}

// analyse tokenises text and classifies each token.
func analyse(text string) []lexToken {
	words := nliWords(text)
	out := make([]lexToken, 0, len(words))
	for i, w := range words {
		var t lexToken
		switch {
		case w == "":
			continue
		case negationSet[w]:
			t = lexToken{stem: w, kind: kNegation}
		case negBeforeToSet[stem(w)] && i+1 < len(words) && words[i+1] == "to":
			t = lexToken{stem: stem(w), kind: kNegation}
		case hedgeSet[w]:
			t = lexToken{stem: w, kind: kHedge}
		case isNumber(w):
			t = lexToken{stem: normaliseNumber(w), kind: kNumber}
		case numberWords[w] != "":
			t = lexToken{stem: numberWords[w], kind: kNumber}
		case stopSet[w]:
			t = lexToken{stem: w, kind: kStop}
		default:
			t = lexToken{stem: stem(w), kind: kContent}
		}
		out = append(out, t)
	}
	return out
}

// nliWords splits text into lowercase words of letters, digits and marks.
// An apostrophe inside a word is kept long enough to expand "n't" into "not"
// and is then dropped with what follows it ("dog's" → "dog"). Digits joined
// by "," or "." stay one token ("1,000", "3.5").
func nliWords(text string) []string {
	out := make([]string, 0, len(text)/5+1)
	b := make([]byte, 0, 32)
	emit := func() {
		if len(b) == 0 {
			return
		}
		w := string(b)
		b = b[:0]
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
			out = append(out, "not")
			return
		}
		if k := strings.IndexByte(w, '\''); k >= 0 {
			w = w[:k]
		}
		out = append(out, w)
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case r < utf8.RuneSelf && ('a' <= r && r <= 'z' || '0' <= r && r <= '9'):
			b = append(b, byte(r))
		case r < utf8.RuneSelf && 'A' <= r && r <= 'Z':
			b = append(b, byte(r+'a'-'A'))
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || (len(b) > 0 && unicode.IsMark(r))):
			b = utf8.AppendRune(b, unicode.ToLower(r))
		case (r == '\'' || r == '\u2019') && len(b) > 0:
			// keep inside a word if a letter follows ("n't", "dog's").
			if next, _ := utf8.DecodeRuneInString(text[i:]); unicode.IsLetter(next) {
				b = append(b, '\'')
				continue
			}
			emit()
		case (r == ',' || r == '.') && len(b) > 0:
			next, _ := utf8.DecodeRuneInString(text[i:])
			if last := b[len(b)-1]; unicode.IsDigit(next) && last >= '0' && last <= '9' {
				b = append(b, byte(r))
				continue
			}
			emit()
		default:
			emit()
		}
	}
	emit()
	return out
}

// contractedBase restores the verb of a contracted negation ("won't").
var contractedBase = map[string]string{"ca": "can", "wo": "will", "sha": "shall", "ai": "be"}

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

// stem strips common English inflections: irregular forms map to their
// base, then plural/3rd-person "s", "ing", "ed", "ly", a doubled final
// consonant and a final "e" are removed ("riding", "rides", "ride" → "rid").
func stem(w string) string {
	if b, ok := irregularForms[w]; ok {
		w = b
	}
	if len(w) <= 3 || !isASCIILetters(w) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	stripped := false
	switch {
	case strings.HasSuffix(w, "ing") && hasVowel(w[:len(w)-3]) && len(w) >= 6:
		w, stripped = w[:len(w)-3], true
	case strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed") && hasVowel(w[:len(w)-2]) && len(w) >= 5:
		w, stripped = w[:len(w)-2], true
	case strings.HasSuffix(w, "ly") && len(w) >= 6:
		w = w[:len(w)-2]
	}
	if stripped && len(w) >= 3 {
		a, b := w[len(w)-1], w[len(w)-2]
		if a == b && !isVowel(a) && a != 'l' && a != 's' && a != 'z' {
			w = w[:len(w)-1]
		}
	}
	if len(w) > 3 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

func isVowel(c byte) bool { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' }

func hasVowel(s string) bool {
	for i := 0; i < len(s); i++ {
		if isVowel(s[i]) || s[i] == 'y' {
			return true
		}
	}
	return false
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// Lookup tables derived from the lexicon at initialisation.
var (
	stopSet        = wordSet(stopWordList)
	negationSet    = wordSet(negationWords)
	negBeforeToSet = stemSet(negationBeforeTo)
	hedgeSet       = wordSet(hedgeWords)
	universal      = wordSet(universalWords)
	negUniversal   = wordSet(negUniversalWords)
	antonyms       = buildAntonyms()
	exclusiveGroup = buildExclusive()
	coveredBy      = buildCoveredBy()
)

func wordSet(ws []string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

func stemSet(ws []string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[stem(w)] = true
	}
	return m
}

func buildAntonyms() map[string][]string {
	m := make(map[string][]string)
	for _, p := range antonymPairs {
		a, b := stem(p[0]), stem(p[1])
		if a == b {
			continue
		}
		m[a] = appendUnique(m[a], b)
		m[b] = appendUnique(m[b], a)
	}
	return m
}

func buildExclusive() map[string]int {
	m := make(map[string]int)
	for g, ws := range exclusiveGroups {
		for _, w := range ws {
			m[stem(w)] = g + 1
		}
	}
	return m
}

// buildCoveredBy inverts hypernyms: coveredBy[general] lists the specific
// stems that imply it.
func buildCoveredBy() map[string][]string {
	m := make(map[string][]string)
	for spec, gens := range hypernyms {
		s := stem(spec)
		for _, g := range gens {
			gs := stem(g)
			if gs != s {
				m[gs] = appendUnique(m[gs], s)
			}
		}
	}
	return m
}

func appendUnique(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}
