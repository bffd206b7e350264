package builtin

import "github.com/evidencefleet/evidencefleet/internal/stopwords"

// stopWordList holds English function words (internal/stopwords). The
// embedder damps them; BM25Reranker ignores them.
//
// HashEmbedder vectors depend on this list: changing it changes every
// embedding, which requires a new HashEmbedderModel id. Words only BM25
// should ignore go into bm25StopExtra instead.
var stopWordList = stopwords.English

// bm25StopExtra are further words BM25Reranker ignores: vague pronouns and
// adverbs that say nothing of a topic ("something", "one", "really").
var bm25StopExtra = []string{
	"one", "ones", "another", "other", "others", "something", "anything", "somewhere",
	"anywhere", "even", "still", "really", "actually", "quite", "rather", "also", "already",
	"currently", "certainly", "indeed", "else", "ever", "much", "lot", "lots",
}
