package workers

import (
	"context"
	"log/slog"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/academic"
	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/domainpolicy"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
	"github.com/evidencefleet/evidencefleet/internal/pageproc"
	"github.com/evidencefleet/evidencefleet/internal/search"
	"github.com/evidencefleet/evidencefleet/store"
)

// RerankConfig tunes the rerank job (ARCHITECTURE.md §5.3).
type RerankConfig struct {
	LexicalTopN   int     // stage 1 full-text candidates
	LexicalWeight float64 // stage 2 score = LexicalWeight·lexical_norm + (1−LexicalWeight)·cosine
	RerankTopN    int     // stage 2 survivors sent to the reranker
	TopK          int     // ranking length kept when the job gives no top_k
}

// RerankConfigFrom takes the rerank settings of the configuration.
func RerankConfigFrom(cfg config.Config) RerankConfig {
	return RerankConfig{LexicalTopN: cfg.RankLexicalTopN, LexicalWeight: cfg.RankLexicalWeight,
		RerankTopN: cfg.RankRerankTopN, TopK: cfg.RankTopK}
}

// ExtractConfig tunes page processing in target_queue (the pageproc stage).
type ExtractConfig = pageproc.Config

// TargetSources are where target_queue finds pages besides the web: the
// academic APIs and the search backend (each nil when none is
// configured: such targets then fail with a clear error).
type TargetSources struct {
	Papers        PaperResolver
	Scholar       ScholarSearch
	Search        search.Searcher
	SearchResults int // result URLs a query target registers (10)
}

// PageSettings are how the workers that store pages (target_queue,
// citation_graph) process them, embed their fragments and judge their
// domains on first sight (the domain policy; nil: the built-in one).
type PageSettings struct {
	Extract ExtractConfig
	Embed   EmbedConfig
	Policy  *domainpolicy.Policy
}

// EmbedConfig tunes the embed job.
type EmbedConfig struct {
	BatchSize int // texts per embedder call (default 64)
	JobSize   int // fragment ids per embed job inserted by target_queue (default 256)
}

// VerifyConfig tunes verify_nli (ARCHITECTURE.md §5.2).
type VerifyConfig struct {
	MinSimilarity    float64 // cosine floor of stage 2; belongs to the embedder
	TopK             int     // stage 2 keeps the top_k most similar (30)
	MaxDomains       int     // distinct source domains per claim (6)
	MaxPairsPerClaim int     // NLI pairs per claim per run (20)
	MinNLIConfidence float64 // supports/refutes below it are recorded as neutral (0.6)
	SaveNeutral      bool    // keep neutral judgements as edges (true)
	HoldBack         bool    // honour models.Judgement.HoldBack (true)
	RecallLimit      int     // stage 1 full-text candidates per claim (200)
	// RecallMaxTermFreq and RecallMinTerms prune stage 1's OR of the claim's
	// terms: a term in more than that share of all fragments is left out
	// while the claim keeps RecallMinTerms rarer ones (store.Recall).
	RecallMaxTermFreq float64
	RecallMinTerms    int
	NLIBatchSize      int // pairs per NLI call (32)
	// EmbedWait is how long a verify_nli job snoozes while the task still has
	// fragments without embeddings; after MaxEmbedWaits snoozes it judges what
	// is embedded and logs the rest.
	EmbedWait     time.Duration
	MaxEmbedWaits int
	// ShardClaims is the claim-id width of a shard (64); JobPairs bounds the
	// pairs one job judges (2000), the rest going to a successor.
	ShardClaims int
	JobPairs    int
	// DispatchShards bounds the shard jobs one dispatch enqueues (1,000;
	// tests set fewer).
	DispatchShards int
}

// VerifyConfigFrom takes the verify_nli settings of the configuration,
// with the embedder's calibrated similarity floor (configured.Models).
func VerifyConfigFrom(cfg config.Config, minSimilarity float64) VerifyConfig {
	return VerifyConfig{
		MinSimilarity:     minSimilarity,
		TopK:              cfg.TopK,
		MaxDomains:        cfg.MaxDomains,
		MaxPairsPerClaim:  cfg.MaxPairsPerClaim,
		MinNLIConfidence:  cfg.MinNLIConfidence,
		SaveNeutral:       cfg.SaveNeutral,
		HoldBack:          cfg.NLIHoldBack,
		RecallLimit:       cfg.RecallLimit,
		RecallMaxTermFreq: cfg.RecallMaxTermFreq,
		RecallMinTerms:    cfg.RecallMinTerms,
		NLIBatchSize:      cfg.Models()["nli"].Batch,
		EmbedWait:         cfg.EmbedWait,
		MaxEmbedWaits:     cfg.MaxEmbedWaits,
		ShardClaims:       cfg.ShardClaims,
		JobPairs:          cfg.JobPairs,
	}
}

// Recall is stage 1's bounds for store.RecallCandidates.
func (c VerifyConfig) Recall() store.Recall {
	return store.Recall{PerClaim: c.RecallLimit, MaxTermFreq: c.RecallMaxTermFreq, MinTerms: c.RecallMinTerms}
}

// logger is l, or a logger that discards when l is nil.
func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// claimExtractor is llm, or the built-in sentence extractor when it is nil.
func claimExtractor(llm models.LLM) models.LLM {
	if llm == nil {
		return builtin.NewSentenceLLM()
	}
	return llm
}

// PaperResolver resolves a DOI to its paper (papers.Resolver).
type PaperResolver interface {
	ResolveDOI(ctx context.Context, doi string) (*academic.Paper, error)
}

// ScholarSearch finds papers' DOIs for a free-text query (papers.Resolver).
type ScholarSearch interface {
	SearchDOIs(ctx context.Context, query string, limit int) ([]string, error)
}
