package httpx

import "fmt"

// What one request to a model server can need: each bound is a fixed
// envelope plus what the request asked for, every piece at its widest JSON
// spelling. An answer past its bound is refused as garbage
// (remoteerr.ErrBadResponse) before more of it is read.
const (
	// JSONFloatBytes bounds one embedding component as JSON text: at most 24
	// characters ("-2.2250738585072014e-308") and a comma, plus the line
	// break and indentation of a pretty-printed answer (OpenAI's API puts
	// every number on its own line indented by 8 spaces, Python's indent=4
	// by 16).
	JSONFloatBytes = 48
	// UnknownDim is the embedding dimension assumed while the embedder's is
	// not known yet (none configured, no answer yet).
	UnknownDim = 8192
	// TokenBytes bounds one generated token as JSON string text: a long
	// token of a code vocabulary (runs of spaces or dashes), or a short one
	// whose every byte is escaped (\n, \", \u00e9).
	TokenBytes = 64
	// envelopeBytes bounds what an answer holds besides its items: object
	// names, ids, the model name, usage counts, a system fingerprint.
	envelopeBytes = 16 << 10
	// embeddingItemBytes bounds the wrapper of one vector
	// ({"object":"embedding","index":63,"embedding":[…]}, pretty-printed).
	embeddingItemBytes = 256
	// scoreItemBytes bounds one scored item besides its text: a TEI
	// prediction's score and braces, a rerank result's index and score.
	scoreItemBytes = 128
	// escapedByteBytes is the widest JSON spelling of one byte of text
	// (a control character as \u00XX).
	escapedByteBytes = 6
)

// EmbeddingsBound is the bound of an answer to a batch of n texts to embed
// in dim dimensions (dim ≤ 0: not known yet, UnknownDim assumed).
func EmbeddingsBound(n, dim int) Bound {
	what := fmt.Sprintf("a batch of %d embeddings", n)
	if n == 1 {
		what = "one embedding"
	}
	if dim > 0 {
		what += fmt.Sprintf(" of %d dimensions", dim)
	} else {
		dim = UnknownDim
		what += fmt.Sprintf(" (dimension not known yet, at most %d assumed)", dim)
	}
	item := embeddingItemBytes + int64(dim)*JSONFloatBytes
	return Bound{Bytes: envelopeBytes + int64(n)*item, Items: n, ItemBytes: item, What: what}
}

// ChatBound is the bound of a chat completion of at most maxTokens tokens
// (max_tokens of the request). A longer answer would have been cut off by
// the server and refused anyway.
func ChatBound(maxTokens int) Bound {
	return Bound{Bytes: envelopeBytes + int64(max(maxTokens, 1))*TokenBytes,
		What: fmt.Sprintf("a chat answer of at most %d tokens", maxTokens)}
}

// PredictionsBound is the bound of a classifier's answer to n inputs, each
// scored for labels labels of at most labelBytes bytes (TEI's /predict
// answers every label of the model for every input).
func PredictionsBound(n, labels, labelBytes int) Bound {
	item := scoreItemBytes + int64(labels)*(scoreItemBytes+escapedByteBytes*int64(labelBytes))
	return Bound{Bytes: envelopeBytes + int64(n)*item, Items: n, ItemBytes: item,
		What: fmt.Sprintf("predictions of %d labels for a batch of %d inputs", labels, n)}
}

// RanksBound is the bound of a reranker's answer for docs. With echo the
// server may send every document's text back (vLLM's /v1/rerank does,
// whatever return_documents says); without it only indices and scores.
func RanksBound(docs []string, echo bool) Bound {
	b := Bound{Bytes: envelopeBytes + int64(len(docs))*scoreItemBytes, Items: len(docs), ItemBytes: scoreItemBytes,
		What: fmt.Sprintf("a rerank of %d documents", len(docs))}
	if echo {
		longest := 0
		for _, d := range docs {
			b.Bytes += scoreItemBytes + escapedByteBytes*int64(len(d))
			longest = max(longest, len(d))
		}
		b.ItemBytes += scoreItemBytes + escapedByteBytes*int64(longest)
		b.What += " with their texts"
	}
	return b
}
