// Package models holds the model capabilities of the fleet — one small
// interface per capability: Embedder, NLI, Reranker and LLM (claim
// extraction, relevance) — with the values they exchange (Pair, Judgement,
// the relation labels, ClaimRequest, LLMClaim) and the vector math used on
// embeddings (Cosine, TopK). It imports the standard library only.
//
// The implementations live in subpackages: the built-in, deterministic,
// offline baselines in models/builtin; the HTTP backends (OpenAI-compatible,
// TEI, Jina-style) in models/openai, models/tei and models/jina on the
// resilient client of internal/httpx; the choice among them from the
// configuration in models/configured. The errors they share with the
// academic clients are in internal/remoteerr.
package models

import "context"

// Relation labels of NLI edges.
const (
	// Supports means the premise entails the hypothesis.
	Supports = "supports"
	// Refutes means the premise contradicts the hypothesis.
	Refutes = "refutes"
	// Neutral means the premise neither entails nor contradicts the hypothesis.
	Neutral = "neutral"
	// Unjudgeable is the label of a pair the model gave no usable answer
	// for (that pair alone: the others of the call are judged). It is
	// counted, never stored as an edge, and judged again by a later run.
	Unjudgeable = "unjudgeable"
)

// Pair is one NLI input: Premise is the evidence fragment text, Hypothesis the claim text.
type Pair struct{ Premise, Hypothesis string }

// Judgement is one NLI output: Label is Supports/Refutes/Neutral, Confidence
// in [0,1] (the top-class probability). Distribution is the whole of it when
// the model gives one (a cross-encoder, the built-ins); a model that answers
// with its top label alone (an LLM) leaves it zero. HoldBack is set by a
// model that knows its supports or refutes is not to be taken as evidence
// (the built-in NLI on reported speech, nlimodel.Attributed): the pair is
// stored as neutral with the model's label kept.
type Judgement struct {
	Label        string
	Confidence   float64
	Distribution Distribution
	HoldBack     bool
}

// Distribution is a judgement's probability of each relation.
type Distribution struct{ Supports, Refutes, Neutral float64 }

// Known reports whether the model gave the distribution (the zero value is
// not one).
func (d Distribution) Known() bool { return d.Supports+d.Refutes+d.Neutral > 0 }

// Embedder turns texts into L2-normalised vectors of Dim() floats.
type Embedder interface {
	// Model is the stable model id stored with every embedding, e.g. "builtin-hash-ngram-v1".
	Model() string
	// Dim is the length of every returned vector.
	Dim() int
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// NLI judges premise/hypothesis pairs in batches; len(out)==len(pairs).
type NLI interface {
	// Model is the stable model id stored with every judgement.
	Model() string
	// Judge returns one Judgement per pair, in order.
	Judge(ctx context.Context, pairs []Pair) ([]Judgement, error)
}

// Reranker scores documents against a query; higher is more relevant. Scores
// are comparable within one call only.
type Reranker interface {
	// Model is the stable model id stored with every ranking.
	Model() string
	// Rerank returns one score per document, in order.
	Rerank(ctx context.Context, query string, docs []string) ([]float64, error)
}

// ClaimRequest is one page version handed to an LLM for claim extraction.
type ClaimRequest struct {
	URL, Title string
	Text       string // the page version's canonical text
	MaxClaims  int    // at most this many claims are wanted
}

// LLMClaim is one extracted claim: an atomic statement, the verbatim quote
// of the page it rests on, and the model's self-reported confidence in [0,1].
// The quote is only a proposal: callers validate it against the page text
// (extract.LocateQuote) and drop claims whose quote does not occur.
type LLMClaim struct {
	Claim      string
	Quote      string
	Confidence float64
}

// LLM is a chat model used for claim extraction and relevance scoring.
type LLM interface {
	// Model is the stable model id (and prompt version) of the extractor.
	Model() string
	// ExtractClaims proposes atomic claims with verbatim quotes from a page.
	ExtractClaims(ctx context.Context, req ClaimRequest) ([]LLMClaim, error)
	// Relevance rates how relevant text is to query on a 0–10 scale.
	Relevance(ctx context.Context, query, text string) (float64, error)
	// CitationRelevance rates on a 0–10 scale how relevant a paper that
	// cites, or is cited by, a source paper is to a task's hypothesis and
	// that source (ARCHITECTURE.md §5.4, stage 2).
	CitationRelevance(ctx context.Context, q CitationQuestion) (float64, error)
	// SplitHypothesis proposes at most MaxSubClaims sub-claims the
	// hypothesis depends on, each a self-contained checkable statement
	// (ARCHITECTURE.md §5.8: kept as proposed claim links until a person
	// accepts them). None is an answer: the hypothesis is atomic, or the
	// implementation is no language model.
	SplitHypothesis(ctx context.Context, hypothesis string) ([]string, error)
	// SplitModel is the stable id (and prompt version) of SplitHypothesis,
	// recorded with the links it proposes.
	SplitModel() string
}

// MaxSubClaims bounds the sub-claims SplitHypothesis proposes.
const MaxSubClaims = 5

// CitationQuestion is one stage 2 question of a citation graph: the task's
// hypothesis, the source paper's title and abstract, and the candidate's.
type CitationQuestion struct {
	Hypothesis, Source, Candidate string
}
