// The vocabulary: word classes of surface words and the lookup table of
// words and lexicon stems.

package builtin

import "slices"

// wordFlag is a set of classes of a surface word.
type wordFlag uint32

// Word classes of wordTable.
const (
	wNegation        wordFlag = 1 << iota // negates what follows
	wCancellable                          // a negation that a following wNegCancel word undoes ("not only")
	wNegCancel                            // undoes a preceding "not"/"no"/"without"
	wNegBeforeTo                          // negates when followed by "to" ("failed to")
	wHedge                                // weakens the statement
	wNumber                               // a spelled-out number
	wClaim                                // a function word counted as content ("all", "only")
	wStop                                 // a function word
	wUniversal                            // all, every, always, …
	wNegUniversal                         // none, nobody, never, …
	wMale                                 // a male pronoun
	wFemale                               // a female pronoun
	wClause                               // starts another clause
	wClauseAfterAnd                       // starts a clause after "and"/"or"
	wIndefinite                           // introduces one new thing ("a", "another")
	wOnePronounAfter                      // "one" after it is a pronoun ("no one")
)

// wordEntry is what wordTable knows about a surface word: its classes, the
// value of a spelled-out number, and its stem ("" when not precomputed).
type wordEntry struct {
	flags wordFlag
	num   float64
	stem  string
	info  *lexWord // lexicon entry of a function word's stem
}

// vocabEntry is what the lexicon knows about one string: as a surface word
// (wordTable) and as a stem (lexInfo).
type vocabEntry struct {
	key    string
	h      uint64
	word   wordEntry
	isWord bool     // key is in wordTable, word is its entry
	info   *lexWord // lexInfo[key]
}

// vocabTable indexes wordTable and lexInfo together by fnvString hash, an
// open-addressing table that answers the several lookups per token of
// analyse faster than the maps. It is read-only after initialisation.
type vocabTable struct {
	slots []uint32 // entry index + 1 per slot, 0 when free; a power of two long
	ents  []vocabEntry
	shift uint8 // 64 − log2(len(slots))
}

// vocab is the vocabTable of wordTable and lexInfo.
var vocab = buildVocab()

func buildVocab() *vocabTable {
	keys := make([]string, 0, len(wordTable)+len(lexInfo))
	for w := range wordTable {
		keys = append(keys, w)
	}
	for st := range lexInfo {
		if _, ok := wordTable[st]; !ok {
			keys = append(keys, st)
		}
	}
	slices.Sort(keys) // a fixed layout in every process
	t := &vocabTable{ents: make([]vocabEntry, 0, len(keys))}
	size, bits := 8, uint8(3)
	for size < 2*len(keys) {
		size <<= 1
		bits++
	}
	t.slots = make([]uint32, size)
	t.shift = 64 - bits
	mask := uint64(size - 1)
	for _, k := range keys {
		e := vocabEntry{key: k, h: fnvString(k), info: lexInfo[k]}
		e.word, e.isWord = wordTable[k]
		i := t.slot(e.h)
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.ents = append(t.ents, e)
		t.slots[i] = uint32(len(t.ents))
	}
	return t
}

func (t *vocabTable) slot(h uint64) uint64 { return (h * 0x9e3779b97f4a7c15) >> t.shift }

// find returns the entry of key, or nil.
func (t *vocabTable) find(key string) *vocabEntry {
	h := fnvString(key)
	mask := uint64(len(t.slots) - 1)
	for i := t.slot(h); ; i = (i + 1) & mask {
		e := t.slots[i]
		if e == 0 {
			return nil
		}
		if x := &t.ents[e-1]; x.h == h && x.key == key {
			return x
		}
	}
}

// buildWordTable merges the word lists into one table, so that classifying
// a token takes one lookup.
func buildWordTable() map[string]wordEntry {
	m := make(map[string]wordEntry)
	add := func(ws []string, f wordFlag) {
		for _, w := range ws {
			e := m[w]
			e.flags |= f
			m[w] = e
		}
	}
	add(negationWords, wNegation)
	add([]string{"not", "no", "without"}, wCancellable)
	add(negationCancelledBy, wNegCancel)
	add(negationBeforeTo, wNegBeforeTo)
	add(hedgeWords, wHedge)
	add(claimWords, wClaim)
	add(stopWordList, wStop)
	add(nliStopWords, wStop)
	add(universalWords, wUniversal)
	add(negUniversalWords, wNegUniversal)
	add(malePronouns, wMale)
	add(femalePronouns, wFemale)
	add(clauseWords, wClause)
	add(clauseAfterAnd, wClauseAfterAnd)
	add([]string{"a", "an", "another", "one"}, wIndefinite)
	add([]string{"no", "any", "every", "some", "each", "which", "another", "this", "that", "the", "someone"}, wOnePronounAfter)
	for w, v := range numberWords {
		e := m[w]
		e.flags |= wNumber
		e.num = v
		m[w] = e
	}
	for w, e := range m {
		if e.flags&(wNegation|wHedge|wClaim) != 0 {
			e.stem = w
		} else {
			e.stem = stem(w)
		}
		if e.flags&wStop != 0 {
			e.info = lexInfo[e.stem]
		}
		m[w] = e
	}
	for w := range irregularForms {
		if _, ok := m[w]; !ok {
			m[w] = wordEntry{stem: stem(w)}
		}
	}
	return m
}
