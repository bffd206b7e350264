// Package stopwords is the fleet's list of English function words: the
// built-in embedder damps them, the built-in BM25 reranker skips them, and
// query generation leaves them out of search queries.
package stopwords

// English holds English function words. The built-in HashEmbedder's
// vectors depend on it: changing it changes every embedding, which needs a
// new embedder model id (internal/models/builtin).
var English = []string{
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

var set = func() map[string]bool {
	m := make(map[string]bool, len(English))
	for _, w := range English {
		m[w] = true
	}
	return m
}()

// Is reports whether the lower-case word w is a function word.
func Is(w string) bool { return set[w] }
