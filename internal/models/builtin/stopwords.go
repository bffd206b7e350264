package builtin

import "github.com/evidencefleet/evidencefleet/internal/stopwords"

// stopWordList holds English function words (internal/stopwords). The
// embedder damps them; the lexical NLI ignores them when measuring coverage.
// Negation words are kept in the list (they carry little topical signal)
// but LexicalNLI inspects them separately before filtering.
//
// HashEmbedder vectors depend on this list: changing it changes every
// embedding, which requires a new HashEmbedderModel id. Words only the NLI
// should ignore go into nliStopWords instead.
var stopWordList = stopwords.English

// nliStopWords are further words LexicalNLI treats as function words: vague
// pronouns and adverbs that a premise entails whatever it says ("something",
// "one", "really").
var nliStopWords = []string{
	"one", "ones", "another", "other", "others", "something", "anything", "somewhere",
	"anywhere", "even", "still", "really", "actually", "quite", "rather", "also", "already",
	"currently", "certainly", "indeed", "else", "ever", "much", "lot", "lots",
}
