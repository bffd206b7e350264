// Package builtin holds the built-in, deterministic, offline baselines of
// the model capabilities of internal/models: an embedder of hashed n-grams
// and word vectors (HybridEmbedder, over HashEmbedder and internal/wordvec),
// the learned NLI (LearnedNLI, internal/nlimodel) and the earlier lexical
// NLI classifier (LexicalNLI: lexnli*.go, with its word lists in
// lexicon.go and the tables derived from them in lexicon_build.go), a
// BM25-style reranker (BM25Reranker) and a
// sentence-based claim extractor (SentenceLLM). They are pure Go, need no
// network and give the same output for the same input in every process;
// models/configured uses them unless the configuration names an HTTP
// backend.
package builtin
