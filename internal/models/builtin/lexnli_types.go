// The analysed texts: tokens, number mentions, the premise index and the
// hypothesis analysis.

package builtin

// tokenKind classifies a token for LexicalNLI.
type tokenKind uint8

const (
	kContent  tokenKind = iota // a content word
	kStop                      // a function word
	kNegation                  // a word that negates what follows
	kHedge                     // a word that weakens the statement
	kNumber                    // part of a number
	kBoundary                  // punctuation that ends a clause
)

// lexToken is one token of a text for LexicalNLI.
type lexToken struct {
	word  string // lowercase surface form
	stem  string
	kind  tokenKind
	neg   bool     // inside the scope of an odd number of negations
	flags wordFlag // classes of the surface form
	val   float64  // value of a kNumber token
	info  *lexWord // lexicon entry of the stem, if any
}

// numMention is a number in a text as an interval, with the content words
// right after it (its unit: "5 dogs", "20 percent").
type numMention struct {
	lo, hi         float64
	loOpen, hiOpen bool
	nouns          [2]string
}

// analysedText is a tokenised, classified text with its numbers.
type analysedText struct {
	toks []lexToken
	nums []numMention
}

// Polarity bits of premise words.
const (
	polPos uint8 = 1 << iota // occurs outside any negation
	polNeg                   // occurs inside a negation's scope
)

// premiseIndex is what the hypothesis is checked against. It is read-only
// once built, so one index serves every pair of its premise.
type premiseIndex struct {
	cover  stemSet          // stems and everything they imply → polarity bits
	grp    []groupPol       // the groups with a side present
	mods   []modifierOccurs // modifier-group words with their head nouns
	nums   []numMention     // numbers
	toks   []lexToken       // the analysed premise
	gender [2]bool          // a male / female person is mentioned outside negation, by noun or pronoun
	univ   [2]bool          // universal / negative-universal quantifier present
	flags  premiseFlags

	// famFirst holds the distinct content stems of at least prefixMinLen
	// bytes with the polarity bits of their occurrences, for sameFamily,
	// ordered by the famKey of their first byte; famSecond those of at
	// least slipMinLen bytes, ordered by the famKey of their second byte.
	famFirst, famSecond       []stemPol
	famFirstEnd, famSecondEnd [famKeys]int32 // end offsets of their famKey buckets
}

// premiseFlags are yes/no facts about a premise.
type premiseFlags struct {
	hedged, negated bool
}

// stemPol is a stem with its polarity bits.
type stemPol struct {
	stem string
	pol  uint8
}

// groupPol is the sides of one group present in a premise outside (pos)
// and inside (neg) negation.
type groupPol struct {
	g        int32
	pos, neg uint64
}

// modifierOccurs is a word of a modifier group (a colour, a size) in the
// premise, with the head nouns it describes.
type modifierOccurs struct {
	g     int32
	mask  uint64
	heads [2]string
	neg   bool
}

// hashedStr is a string with its fnvString hash.
type hashedStr struct {
	s string
	h uint64
}

func newHashedStr(s string) hashedStr { return hashedStr{s, fnvString(s)} }

// hypothesisAnalysis is an analysed hypothesis with everything about it
// that does not depend on the premise. It is read-only once built.
type hypothesisAnalysis struct {
	toks    []lexToken
	nums    []numMention
	items   []hypItem // the tokens checked against the premise, in order
	subject int       // subjectIndex of toks
	weight  float64   // summed weight of the distinct content stems and numbers

	hedged, negated bool    // a hedge, a negation is present
	univ            [2]bool // a universal, a negative-universal quantifier is present
	male, female    bool    // "he", "she" starts a clause
}

// hypItem is a hypothesis token checked against the premise: the first
// occurrence of each content stem, and the function words with an opposite
// (before/after) outside negation.
type hypItem struct {
	i       int       // index in toks
	content bool      // a content word (else a function word, which only conflicts)
	neg     bool      // toks[i].neg
	w       float64   // weight of a content word
	stem    hashedStr // toks[i].stem
	base    hashedStr // agentBase of the stem; s is "" when it is none
	morph   []hashedStr
}
