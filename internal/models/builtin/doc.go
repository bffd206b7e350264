// Package builtin holds the built-in, deterministic, offline baselines of
// the model capabilities of internal/models: an embedder of hashed n-grams
// and word vectors (HybridEmbedder, over HashEmbedder and internal/wordvec),
// the learned NLI (LearnedNLI, internal/nlimodel), a BM25-style reranker
// (BM25Reranker: bm25.go, with its tokeniser in words.go, its stemmer in
// stem.go and its word lists in bm25_words.go) and a
// sentence-based claim extractor (SentenceLLM). They are pure Go, need no
// network and give the same output for the same input in every process;
// models/configured uses them unless the configuration names an HTTP
// backend.
package builtin
