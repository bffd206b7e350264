// Package config reads the worker's configuration from the environment
// (envconfig). `worker config` prints every variable with its default.
package config

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kelseyhightower/envconfig"
)

// Prefix of every evidencefleet variable (DATABASE_URL is read as is).
const Prefix = "EVF"

// Config is the worker's configuration.
type Config struct {
	DatabaseURL string `envconfig:"DATABASE_URL" required:"true" desc:"Postgres connection string (read as DATABASE_URL or EVF_DATABASE_URL)"`

	Queues             []string `envconfig:"QUEUES" default:"target,embed,nli,rerank,citation,maintenance" desc:"queues this process serves (comma-separated); queues whose kinds this version does not run are skipped"`
	TargetWorkers      int      `envconfig:"TARGET_WORKERS" default:"4" desc:"concurrent target_queue jobs per process (network-bound)"`
	EmbedWorkers       int      `envconfig:"EMBED_WORKERS" default:"2" desc:"concurrent embed jobs per process (model-bound)"`
	NLIWorkers         int      `envconfig:"NLI_WORKERS" default:"2" desc:"concurrent verify_nli jobs per process (model- and CPU-bound)"`
	RerankWorkers      int      `envconfig:"RERANK_WORKERS" default:"2" desc:"concurrent rerank jobs per process"`
	CitationWorkers    int      `envconfig:"CITATION_WORKERS" default:"1" desc:"concurrent citation_graph jobs per process"`
	MaintenanceWorkers int      `envconfig:"MAINTENANCE_WORKERS" default:"1" desc:"concurrent cleanup jobs per process"`

	MetricsAddr      string        `envconfig:"METRICS_ADDR" default:":9464" desc:"listen address of /metrics, /healthz and /readyz"`
	ShutdownTimeout  time.Duration `envconfig:"SHUTDOWN_TIMEOUT" default:"30s" desc:"on SIGTERM, how long running jobs may finish before they are cancelled"`
	JobTimeout       time.Duration `envconfig:"JOB_TIMEOUT" default:"10m" desc:"upper bound of one job's run"`
	RescueStuckAfter time.Duration `envconfig:"RESCUE_STUCK_AFTER" default:"15m" desc:"a running job not finished after this is rescued (its worker died) and retried; keep above JOB_TIMEOUT"`
	LogLevel         string        `envconfig:"LOG_LEVEL" default:"info" desc:"debug, info, warn or error"`
	LogFormat        string        `envconfig:"LOG_FORMAT" default:"json" desc:"json or text"`

	FetchTimeout    time.Duration `envconfig:"FETCH_TIMEOUT" default:"20s" desc:"timeout of one HTTP exchange"`
	FetchMaxBytes   int64         `envconfig:"FETCH_MAX_BYTES" default:"5242880" desc:"largest page body accepted"`
	FetchRedirects  int           `envconfig:"FETCH_MAX_REDIRECTS" default:"5" desc:"redirects followed at most"`
	FetchDelay      time.Duration `envconfig:"FETCH_DOMAIN_DELAY" default:"1s" desc:"minimum spacing of requests to one domain (per process)"`
	RespectRobots   bool          `envconfig:"RESPECT_ROBOTS" default:"true" desc:"obey robots.txt"`
	UserAgent       string        `envconfig:"USER_AGENT" default:"evidencefleet/0.1 (+https://github.com/evidencefleet/evidencefleet)" desc:"User-Agent of fetches"`
	ReplayDir       string        `envconfig:"REPLAY_DIR" desc:"serve fetches only from this replay archive (manifest.jsonl + files); no network"`
	AllowPrivateIPs bool          `envconfig:"ALLOW_PRIVATE_IPS" default:"false" desc:"allow fetching loopback/private addresses (SSRF guard off; tests only)"`

	EmbedBackend  string `envconfig:"EMBED_BACKEND" default:"builtin" desc:"embedding backend: builtin (hashed n-grams)"`
	EmbedDim      int    `envconfig:"EMBED_DIM" default:"256" desc:"dimension of the builtin embedder"`
	EmbedBatch    int    `envconfig:"EMBED_BATCH" default:"64" desc:"texts per embedder call"`
	NLIBackend    string `envconfig:"NLI_BACKEND" default:"builtin" desc:"NLI backend: builtin (lexical baseline)"`
	NLIBatch      int    `envconfig:"NLI_BATCH" default:"32" desc:"pairs per NLI call"`
	ClaimsPerPage int    `envconfig:"CLAIMS_PER_PAGE" default:"20" desc:"claims the builtin extractor takes per page version"`
	FragmentMax   int    `envconfig:"FRAGMENT_MAX_RUNES" default:"600" desc:"longest fragment in characters"`

	MinSimilarity    float64       `envconfig:"MIN_SIMILARITY" default:"-1" desc:"cosine floor of candidate ranking; -1 takes the embedder's calibrated default"`
	TopK             int           `envconfig:"TOP_K" default:"30" desc:"candidates kept per claim after cosine ranking"`
	MaxDomains       int           `envconfig:"MAX_DOMAINS" default:"6" desc:"distinct source domains per claim"`
	MaxPairsPerClaim int           `envconfig:"MAX_PAIRS_PER_CLAIM" default:"20" desc:"NLI pairs per claim per verify_nli run"`
	MinNLIConfidence float64       `envconfig:"MIN_NLI_CONFIDENCE" default:"0.6" desc:"supports/refutes below it are recorded as neutral"`
	SaveNeutral      bool          `envconfig:"SAVE_NEUTRAL" default:"true" desc:"store neutral judgements as edges"`
	RecallLimit      int           `envconfig:"RECALL_LIMIT" default:"200" desc:"full-text candidates per claim before cosine ranking"`
	EmbedWait        time.Duration `envconfig:"VERIFY_EMBED_WAIT" default:"2s" desc:"verify_nli snooze while the task has fragments without embeddings"`
	MaxEmbedWaits    int           `envconfig:"VERIFY_MAX_EMBED_WAITS" default:"60" desc:"snoozes before verify_nli judges without the missing embeddings"`
}

// Load reads the environment.
func Load() (Config, error) {
	var c Config
	if err := envconfig.Process(Prefix, &c); err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	return c, c.validate()
}

func (c Config) validate() error {
	switch {
	case c.EmbedBackend != "builtin":
		return fmt.Errorf("config: EVF_EMBED_BACKEND=%q is not available in this version (builtin)", c.EmbedBackend)
	case c.NLIBackend != "builtin":
		return fmt.Errorf("config: EVF_NLI_BACKEND=%q is not available in this version (builtin)", c.NLIBackend)
	case c.EmbedDim < 16 || c.EmbedDim > 8192:
		return fmt.Errorf("config: EVF_EMBED_DIM=%d outside 16..8192", c.EmbedDim)
	case c.MinNLIConfidence < 0 || c.MinNLIConfidence > 1:
		return fmt.Errorf("config: EVF_MIN_NLI_CONFIDENCE=%v outside [0,1]", c.MinNLIConfidence)
	case c.RescueStuckAfter <= c.JobTimeout:
		return fmt.Errorf("config: EVF_RESCUE_STUCK_AFTER (%s) must exceed EVF_JOB_TIMEOUT (%s), or running jobs get rescued", c.RescueStuckAfter, c.JobTimeout)
	}
	switch strings.ToLower(c.LogFormat) {
	case "json", "text":
	default:
		return fmt.Errorf("config: EVF_LOG_FORMAT=%q (want json or text)", c.LogFormat)
	}
	return nil
}

// Concurrency maps queue names to the configured per-process workers.
func (c Config) Concurrency() map[string]int {
	return map[string]int{
		"target": c.TargetWorkers, "embed": c.EmbedWorkers, "nli": c.NLIWorkers,
		"rerank": c.RerankWorkers, "citation": c.CitationWorkers, "maintenance": c.MaintenanceWorkers,
	}
}

// Usage writes a table of every variable, its default and meaning.
func Usage(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	format := "VARIABLE\tDEFAULT\tMEANING\n{{range .}}{{usage_key .}}\t{{usage_default .}}\t{{usage_description .}}\n{{end}}"
	if err := envconfig.Usagef(Prefix, &Config{}, tw, format); err != nil {
		return err
	}
	return tw.Flush()
}
