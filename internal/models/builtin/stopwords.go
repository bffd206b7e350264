package builtin

// stopWordList holds English function words. The embedder damps them; the
// lexical NLI ignores them when measuring coverage. Negation words are kept in
// the list (they carry little topical signal) but LexicalNLI inspects them
// separately before filtering.
//
// HashEmbedder vectors depend on this list: changing it changes every
// embedding, which requires a new HashEmbedderModel id. Words only the NLI
// should ignore go into nliStopWords instead.
var stopWordList = []string{
	"a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
	"are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
	"but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "either",
	"etc", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here",
	"hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its",
	"itself", "just", "let", "me", "must", "my", "myself", "no", "nor", "not", "now",
	"of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over",
	"own", "same", "shall", "she", "should", "so", "some", "such", "than", "that", "the", "their",
	"theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through",
	"to", "too", "under", "until", "up", "upon", "very", "was", "we", "were", "what", "when",
	"where", "which", "while", "who", "whom", "whose", "why", "will", "with", "would", "you",
	"your", "yours", "yourself", "yourselves", "s", "t", "d", "ll", "m", "re", "ve", "nt",
	"may", "might", "been", "via", "per", "yet", "however", "thus", "therefore", "although",
	"though", "whether", "within", "without", "among", "around", "onto", "toward", "towards",
}

// nliStopWords are further words LexicalNLI treats as function words: vague
// pronouns and adverbs that a premise entails whatever it says ("something",
// "one", "really").
var nliStopWords = []string{
	"one", "ones", "another", "other", "others", "something", "anything", "somewhere",
	"anywhere", "even", "still", "really", "actually", "quite", "rather", "also", "already",
	"currently", "certainly", "indeed", "else", "ever", "much", "lot", "lots",
}
