// Package config reads the worker's configuration from the environment
// (envconfig). `worker config` prints every variable with its default.
package config

import (
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kelseyhightower/envconfig"

	"github.com/evidencefleet/evidencefleet/internal/belief"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// Prefix of every evidencefleet variable (DATABASE_URL is read as is).
const Prefix = "EVF"

// Config is the worker's configuration.
type Config struct {
	DatabaseURL       string `envconfig:"DATABASE_URL" desc:"Postgres connection string (read as DATABASE_URL or EVF_DATABASE_URL); the worker plans each statement when it runs (pgx default_query_exec_mode cache_describe) unless the string sets default_query_exec_mode"`
	DBPooler          string `envconfig:"DB_POOLER" desc:"what stands between DATABASE_URL and Postgres: empty for nothing (or a session-mode pooler); transaction for a transaction-mode pooler such as PgBouncer: River polls for jobs instead of LISTEN, the pool sends no startup parameters (set the three EVF_DB_* timeouts on the role; the worker will not start while one is unbounded), and each process's liveness lock and worker migrate connect through EVF_DATABASE_DIRECT_URL"`
	DatabaseDirectURL string `envconfig:"DATABASE_DIRECT_URL" desc:"Postgres connection string that bypasses the pooler, for what needs a session of its own: each worker process's liveness lock (one connection) and worker migrate's advisory lock; required with EVF_DB_POOLER=transaction; empty: DATABASE_URL"`
	// Per-connection protections of the worker's pool: no statement, lock
	// wait or forgotten transaction holds Postgres for ever (0 turns one off).
	DBStatementTimeout time.Duration `envconfig:"DB_STATEMENT_TIMEOUT" default:"5m" desc:"statement_timeout of the worker's connections"`
	DBLockTimeout      time.Duration `envconfig:"DB_LOCK_TIMEOUT" default:"1m" desc:"lock_timeout of the worker's connections (row, table and advisory lock waits)"`
	DBIdleInTxTimeout  time.Duration `envconfig:"DB_IDLE_IN_TRANSACTION_TIMEOUT" default:"5m" desc:"idle_in_transaction_session_timeout of the worker's connections"`

	Queues             []string `envconfig:"QUEUES" default:"target,embed,nli,rerank,citation,maintenance" desc:"queues this process serves (comma-separated); queues whose kinds this version does not run are skipped"`
	TargetWorkers      int      `envconfig:"TARGET_WORKERS" default:"4" desc:"concurrent target_queue jobs per process (network-bound)"`
	EmbedWorkers       int      `envconfig:"EMBED_WORKERS" default:"2" desc:"concurrent embed jobs per process (model-bound)"`
	NLIWorkers         int      `envconfig:"NLI_WORKERS" default:"2" desc:"concurrent verify_nli jobs per process (model- and CPU-bound)"`
	RerankWorkers      int      `envconfig:"RERANK_WORKERS" default:"2" desc:"concurrent rerank jobs per process"`
	CitationWorkers    int      `envconfig:"CITATION_WORKERS" default:"1" desc:"concurrent citation_graph jobs per process"`
	MaintenanceWorkers int      `envconfig:"MAINTENANCE_WORKERS" default:"1" desc:"concurrent cleanup jobs per process"`

	MetricsAddr      string        `envconfig:"METRICS_ADDR" default:":9464" desc:"listen address of /metrics, /healthz and /readyz"`
	APIAddr          string        `envconfig:"API_ADDR" default:":8080" desc:"listen address of the worker api process: the HTTP API (/v1, OpenAPI at /v1/openapi.json), /mcp, /riverui/, /healthz, /readyz"`
	APIRate          float64       `envconfig:"API_RATE" default:"20" desc:"requests per second each API token may make, sustained, all API replicas and /mcp together (0 = no limit); past it 429 with Retry-After"`
	APIBurst         int           `envconfig:"API_BURST" default:"40" desc:"requests an API token may make at once before API_RATE applies"`
	APIMetricsAddr   string        `envconfig:"API_METRICS_ADDR" default:":9465" desc:"listen address of the API process's /metrics (requests by operation and status, latency, open event streams); empty: none"`
	APIRiverUI       bool          `envconfig:"API_RIVER_UI" default:"true" desc:"serve River UI (job browser: retry, cancel, queue pause) under /riverui/ on the API address, to operators only (login form at /riverui/login, or a bearer operator token)"`
	APIConsole       bool          `envconfig:"API_CONSOLE" default:"true" desc:"serve the reviewers' console under /ui/ on the API address: an organization's people log in with one of its tokens (/ui/login) to follow its tasks, click claims through to their exact spans and review sources"`
	APISessionTTL    time.Duration `envconfig:"API_SESSION_TTL" default:"8h" desc:"how long a browser login lasts, River UI's or the console's (a cookie session tied to the token: revoking the token ends it at once); at most 168h"`
	APITrustProxy    bool          `envconfig:"API_TRUST_PROXY" default:"false" desc:"the API is reached through a proxy that sets X-Forwarded-Proto and X-Forwarded-Host (overwriting a client's): River UI's same-origin check and Secure cookies use them"`
	APIStreamLease   time.Duration `envconfig:"API_STREAM_LEASE" default:"20s" desc:"an open event stream holds its slot (of the token's 8) as a lease this long, renewed while it is open: the slots of a killed API process free within it"`
	APIStreamRecheck time.Duration `envconfig:"API_STREAM_RECHECK" default:"5s" desc:"how often an open event stream checks that its token is still live (not revoked, not expired; it ends otherwise) and renews its lease; at most half API_STREAM_LEASE"`
	APIAuthFailures  float64       `envconfig:"API_AUTH_FAILURE_RATE" default:"1" desc:"bad tokens per second a client address may send, sustained (each /v1, /mcp or /riverui/ request whose token is refused); past it the address gets 429 before any token is checked (0 = no limit)"`
	APIAuthBurst     int           `envconfig:"API_AUTH_FAILURE_BURST" default:"20" desc:"bad tokens a client address may send at once before API_AUTH_FAILURE_RATE applies"`
	APITrustedProxy  []string      `envconfig:"API_TRUSTED_PROXIES" desc:"CIDRs of the proxies in front of the API (an ingress controller): a request from one is the client address its X-Forwarded-For names (the right-most address not a trusted proxy); empty: the connection's address"`
	APIToken         APIToken      `envconfig:"API_TOKEN" desc:"API token lifetimes"`
	ShutdownTimeout  time.Duration `envconfig:"SHUTDOWN_TIMEOUT" default:"30s" desc:"on SIGTERM, how long running jobs may finish before they are cancelled"`
	JobTimeout       time.Duration `envconfig:"JOB_TIMEOUT" default:"10m" desc:"upper bound of one job's run"`
	RescueStuckAfter time.Duration `envconfig:"RESCUE_STUCK_AFTER" default:"15m" desc:"a running job not finished after this is rescued (its worker died) and retried; keep above JOB_TIMEOUT"`
	LifelineInterval time.Duration `envconfig:"LIFELINE_INTERVAL" default:"5s" desc:"how often a process checks its liveness lock and returns the running jobs of dead processes to work"`
	OrphanSweep      time.Duration `envconfig:"ORPHAN_SWEEP_INTERVAL" default:"1h" desc:"how often the elected leader (any process) enqueues a cleanup of orphans into the maintenance queue (pages, versions, fragments and edges no task reaches, robots.txt captures no page needs); 0 = never"`
	RecheckEvery     time.Duration `envconfig:"RECHECK_INTERVAL" default:"168h" desc:"how often the pages a task cites are fetched again and each cited span checked (unchanged, edited, moved, gone, unreachable), unless the task sets its own (enqueue task recheck --every); 0 = only tasks that set one"`
	RecheckMaxAge    time.Duration `envconfig:"RECHECK_MAX_AGE" default:"2160h" desc:"a task created longer ago is no longer rechecked on schedule (enqueue task recheck still starts a round)"`
	RecheckDaily     int           `envconfig:"RECHECK_DAILY_FETCHES" default:"10000" desc:"the fleet's budget of recheck fetches a UTC day; past it a recheck waits for the next day (a snooze, no attempt used)"`
	RecheckSweep     time.Duration `envconfig:"RECHECK_SWEEP_INTERVAL" default:"1h" desc:"how often the elected leader (any process) looks for tasks due a recheck and starts their rounds in the target queue; 0 = never"`
	TaskSettle       time.Duration `envconfig:"TASK_SETTLE_INTERVAL" default:"2s" desc:"how often a process completes the tasks with no job left to run and reopens completed ones given work (every process sweeps; rows another holds are skipped)"`
	PausedSnooze     time.Duration `envconfig:"PAUSED_SNOOZE" default:"5s" desc:"how long a job of a paused task waits before it checks again (a snooze: no attempt used); a resumed task's jobs start within this"`
	OrgShare         float64       `envconfig:"ORG_SHARE" default:"0.5" desc:"fair share between organizations: while another organization has jobs of a kind waiting and runs fewer than its share, an organization running more than this fraction of that kind's running jobs (fleet-wide; at least one) has its next job wait (a snooze: no attempt used); alone, an organization uses every worker. In (0, 1], 1 = no limit; enqueue org share sets one organization's"`
	OrgShareSnooze   time.Duration `envconfig:"ORG_SHARE_SNOOZE" default:"2s" desc:"how long a job held back by its organization's share waits before it checks again"`
	QueueStatsTTL    time.Duration `envconfig:"QUEUE_STATS_TTL" default:"15s" desc:"how long /metrics serves River queue depth and oldest-job age before reading them again (two index-only queries)"`
	LogLevel         string        `envconfig:"LOG_LEVEL" default:"info" desc:"debug, info, warn or error"`
	LogFormat        string        `envconfig:"LOG_FORMAT" default:"json" desc:"json or text"`

	FetchTimeout    time.Duration `envconfig:"FETCH_TIMEOUT" default:"20s" desc:"deadline of one page fetch as a whole: every redirect hop, the robots.txt of each origin on the way, the body (politeness waits not counted); past it the fetch fails timeout and is retried up to the job's attempts. Also the timeout of one search or academic API request"`
	FetchMaxBytes   int64         `envconfig:"FETCH_MAX_BYTES" default:"5242880" desc:"largest page body accepted"`
	FetchRedirects  int           `envconfig:"FETCH_MAX_REDIRECTS" default:"5" desc:"redirects followed at most"`
	FetchDelay      time.Duration `envconfig:"FETCH_DOMAIN_DELAY" default:"1s" desc:"per-process floor: least time between any two requests of this process to one domain, robots.txt and redirect hops included (0 = none). The fleet-wide spacing and daily budget of page fetches come from the domain policy (EVF_DOMAIN_POLICY)"`
	RespectRobots   bool          `envconfig:"RESPECT_ROBOTS" default:"true" desc:"obey robots.txt"`
	DomainPolicy    string        `envconfig:"DOMAIN_POLICY" default:"" desc:"YAML domain policy extending the built-in one (base: none replaces it): levels of domains on first sight, fleet-wide politeness (requests_per_second, requests_per_day; built-in default 0.2 and 200), domains never fetched; read and checked at start, when it also gives the domains whose level a policy set its levels (a reload)"`
	UserAgent       string        `envconfig:"USER_AGENT" default:"evidencefleet/0.1 (+https://github.com/evidencefleet/evidencefleet)" desc:"User-Agent of fetches"`
	ReplayDir       string        `envconfig:"REPLAY_DIR" desc:"serve fetches only from this replay archive (a directory of WARC files, *.warc.gz or *.warc, or the older manifest.jsonl + files); no network. Without EVF_SEARCH_URL, query targets are searched in the archive too (BM25 over its pages' main text, internal/search/offline)"`
	AllowPrivateIPs bool          `envconfig:"ALLOW_PRIVATE_IPS" default:"false" desc:"allow fetching loopback/private addresses (SSRF guard off; tests only)"`
	// Waits a web server or the search backend may ask for (Retry-After).
	ServerWaitMax     time.Duration `envconfig:"SERVER_WAIT_MAX" default:"10m" desc:"longest wait a server's Retry-After may impose on a target_queue job at once"`
	ServerWaitSnoozes int           `envconfig:"SERVER_WAIT_SNOOZES" default:"3" desc:"Retry-After waits per job; after them a refusal counts as an attempt and the last attempt fails the target"`

	S2URL          string `envconfig:"S2_URL" default:"https://api.semanticscholar.org/graph/v1" desc:"Semantic Scholar Graph API base URL; empty: not used (with EVF_REPLAY_DIR the public default is not used either)"`
	S2APIKey       string `envconfig:"S2_API_KEY" desc:"Semantic Scholar API key (x-api-key); without it requests are spaced 1 s apart"`
	OpenAlexURL    string `envconfig:"OPENALEX_URL" default:"https://api.openalex.org" desc:"OpenAlex API base URL; empty: not used (with EVF_REPLAY_DIR the public default is not used either)"`
	OpenAlexAPIKey string `envconfig:"OPENALEX_API_KEY" desc:"OpenAlex API key (api_key parameter)"`
	OpenAlexMailto string `envconfig:"OPENALEX_MAILTO" desc:"contact address sent to OpenAlex (mailto parameter, the polite pool)"`

	SearchURL     string `envconfig:"SEARCH_URL" desc:"base URL of a SearxNG-compatible JSON search API for query targets (GET /search?q=…&format=json); unset: with EVF_REPLAY_DIR the archive's offline search, else query targets fail with a clear error"`
	SearchResults int    `envconfig:"SEARCH_RESULTS" default:"10" desc:"result URLs a query target registers as url targets"`

	Embed         Model   `envconfig:"EMBED" desc:"embeddings"`
	EmbedDim      int     `envconfig:"EMBED_DIM" default:"0" desc:"embedding dimension: builtin uses it (0 = 356: 256 hashed n-grams and 100 of word vectors), hash too (0 = 256); HTTP backends enforce it (0 = learn from the first answer)"`
	NLI           Model   `envconfig:"NLI" desc:"natural language inference"`
	NLITemp       float64 `envconfig:"NLI_TEMPERATURE" default:"1" desc:"tei NLI calibration: probabilities are raised to 1/T and renormalised (1 = as the model says)"`
	Rerank        Model   `envconfig:"RERANK" desc:"reranker"`
	LLM           Model   `envconfig:"LLM" desc:"claim extraction, citation relevance and, for self-directed tasks, splitting the hypothesis into sub-claims (proposed links)"`
	ClaimsPerPage int     `envconfig:"CLAIMS_PER_PAGE" default:"20" desc:"claims taken per page version"`
	FragmentMax   int     `envconfig:"FRAGMENT_MAX_RUNES" default:"600" desc:"longest fragment in characters"`
	// Bounds on one fetched page (ARCHITECTURE.md §8): memory grows with its elements.
	PageMaxElements  int `envconfig:"PAGE_MAX_ELEMENTS" default:"50000" desc:"an HTML page with more start tags, or whose tree the parser would build with more than 3 times as many nodes (weighed by memory), fails too_many_elements without being parsed"`
	PageMaxFragments int `envconfig:"PAGE_MAX_FRAGMENTS" default:"2000" desc:"fragments kept per page version (the first ones; the version keeps all its text)"`
	PageMemoryMB     int `envconfig:"PAGE_MEMORY_BUDGET_MB" default:"0" desc:"MiB of page work a worker admits at once: each fetched page takes its estimate (body, parse tree, text) before it is parsed and holds it until stored, waiting while the budget is taken; 0 = half of GOMEMLIMIT (else of 7/8 of the cgroup's limit) less a reserve for the worker's own heap and a body per target job; worker config prints it"`

	MinSimilarity     float64       `envconfig:"MIN_SIMILARITY" default:"-1" desc:"cosine floor of candidate ranking, for candidates without lexical evidence; -1 takes the embedder's calibrated default"`
	TopK              int           `envconfig:"TOP_K" default:"30" desc:"candidates kept per claim after cosine ranking"`
	MaxDomains        int           `envconfig:"MAX_DOMAINS" default:"6" desc:"distinct source domains per claim"`
	MaxPairsPerClaim  int           `envconfig:"MAX_PAIRS_PER_CLAIM" default:"20" desc:"NLI pairs per claim per verify_nli run"`
	MinNLIConfidence  float64       `envconfig:"MIN_NLI_CONFIDENCE" default:"0.6" desc:"supports/refutes below it are recorded as neutral"`
	SaveNeutral       bool          `envconfig:"SAVE_NEUTRAL" default:"true" desc:"store neutral judgements as edges"`
	NLIHoldBack       bool          `envconfig:"NLI_HOLD_BACK" default:"true" desc:"store as neutral (label kept) a supports/refutes the model holds back: the built-in NLI's on reported speech"`
	RecallLimit       int           `envconfig:"RECALL_LIMIT" default:"200" desc:"full-text candidates per claim before cosine ranking"`
	ShardClaims       int           `envconfig:"VERIFY_SHARD_CLAIMS" default:"64" desc:"claims per verify_nli shard: a task's claims are verified in shards of this many consecutive claim ids, one job each, so that many workers share one task"`
	JobPairs          int           `envconfig:"VERIFY_JOB_PAIRS" default:"2000" desc:"NLI pairs one verify_nli job judges at most; a shard with more hands the rest to a successor job"`
	TaskIndexMB       int           `envconfig:"VERIFY_INDEX_MB" default:"64" desc:"memory per process for verify_nli's in-memory task indexes (recall in memory, cost bounded by the task); a task whose index would not fit recalls through Postgres full-text search; 0 = always Postgres"`
	RecallMaxTermFreq float64       `envconfig:"RECALL_MAX_TERM_FREQ" default:"0.05" desc:"Postgres recall (tasks too large for EVF_VERIFY_INDEX_MB) leaves out claim terms found in more than this share of fragments (Postgres statistics)..."`
	RecallMinTerms    int           `envconfig:"RECALL_MIN_TERMS" default:"3" desc:"...as long as the claim keeps this many rarer terms"`
	EmbedWait         time.Duration `envconfig:"VERIFY_EMBED_WAIT" default:"2s" desc:"verify_nli snooze while the task has fragments without embeddings"`
	MaxEmbedWaits     int           `envconfig:"VERIFY_MAX_EMBED_WAITS" default:"60" desc:"snoozes before verify_nli judges without the missing embeddings"`

	RankLexicalTopN   int     `envconfig:"RANK_LEXICAL_TOP_N" default:"100" desc:"rerank stage 1: full-text candidates of the query (ARCHITECTURE.md §5.3)"`
	RankLexicalWeight float64 `envconfig:"RANK_LEXICAL_WEIGHT" default:"0.3" desc:"rerank stage 2: score = weight·lexical + (1−weight)·cosine"`
	RankRerankTopN    int     `envconfig:"RANK_RERANK_TOP_N" default:"50" desc:"rerank stage 2 survivors sent to the reranker"`
	RankTopK          int     `envconfig:"RANK_TOP_K" default:"20" desc:"ranking length kept when a rerank job gives no top_k"`

	Belief Belief `envconfig:"BELIEF" desc:"log-odds belief"`

	// TrustQuorumOrgs is how many organizations' views must agree before
	// a rule moves a domain's fleet-wide level (ARCHITECTURE.md §5.5):
	// the worker, the API process and enqueue read it.
	TrustQuorumOrgs int `envconfig:"TRUST_QUORUM_ORGS" default:"3" desc:"organizations (each counted once, whatever its volume) whose own views must block or corroborate a domain before source verification blocks or promotes it fleet-wide; an organization's rejections, corrections and blocks change its own view at once; 1 for a single-tenant fleet"`
}

// LoadTrustQuorum reads only EVF_TRUST_QUORUM_ORGS (enqueue).
func LoadTrustQuorum() (int, error) {
	var q struct {
		Orgs int `envconfig:"TRUST_QUORUM_ORGS" default:"3"`
	}
	if err := envconfig.Process(Prefix, &q); err != nil {
		return 0, fmt.Errorf("config: %w", err)
	}
	if q.Orgs < 1 {
		return 0, fmt.Errorf("config: EVF_TRUST_QUORUM_ORGS=%d: want 1 or more", q.Orgs)
	}
	return q.Orgs, nil
}

// Belief configures the log-odds belief beside the Beta posterior
// (internal/belief, ARCHITECTURE.md §5.8); its variables are
// EVF_BELIEF_<NAME>. The worker, the API process and enqueue read them.
type Belief struct {
	LMax           float64 `envconfig:"L_MAX" default:"2" desc:"most log-odds one edge of full relevance moves a claim: ± relevance · L_MAX · sigmoid(K · (strength − X0))"`
	K              float64 `envconfig:"K" default:"10" desc:"steepness of the strength's sigmoid"`
	X0             float64 `envconfig:"X0" default:"0.5" desc:"strength (NLI confidence) at which an edge moves half of L_MAX"`
	ConsensusSites int     `envconfig:"CONSENSUS_SITES" default:"2" desc:"independent sites agreeing with confidence ≥ 0.7 that engage the consensus cap"`
	CapLimit       float64 `envconfig:"CAP_LIMIT" default:"0.3" desc:"with the cap engaged by supporting sites the belief stays ≥ CAP_LIMIT, by refuting sites ≤ 1 − CAP_LIMIT; in (0, 0.5)"`
}

// Params are the belief's numbers.
func (b Belief) Params() belief.Params {
	return belief.Params{LMax: b.LMax, K: b.K, X0: b.X0, ConsensusSites: b.ConsensusSites, CapLimit: b.CapLimit}
}

// LoadBelief reads only the EVF_BELIEF_* variables (enqueue, which needs
// no other).
func LoadBelief() (belief.Params, error) {
	var b Belief
	if err := envconfig.Process(Prefix+"_BELIEF", &b); err != nil {
		return belief.Params{}, fmt.Errorf("config: %w", err)
	}
	p := b.Params()
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("config: EVF_BELIEF_*: %w", err)
	}
	return p, nil
}

// APIToken bounds the lifetimes of API tokens (internal/apitoken); its
// variables are EVF_API_TOKEN_<NAME>. enqueue, which makes tokens, reads
// them (LoadAPIToken).
type APIToken struct {
	TTL    time.Duration `envconfig:"TTL" default:"2160h" desc:"lifetime of a token made or rotated by enqueue without --ttl (2160h: 90 days)"`
	MaxTTL time.Duration `envconfig:"MAX_TTL" default:"8760h" desc:"longest lifetime a token may be given (--ttl; 8760h: 365 days)"`
}

// Validate checks that the default lifetime is positive and within the
// maximum.
func (t APIToken) Validate() error {
	if t.TTL <= 0 || t.MaxTTL < t.TTL {
		return fmt.Errorf("EVF_API_TOKEN_TTL=%s must be positive and at most EVF_API_TOKEN_MAX_TTL=%s", t.TTL, t.MaxTTL)
	}
	return nil
}

// LoadAPIToken reads only the EVF_API_TOKEN_* variables (enqueue).
func LoadAPIToken() (APIToken, error) {
	var t APIToken
	if err := envconfig.Process(Prefix+"_API_TOKEN", &t); err != nil {
		return t, fmt.Errorf("config: %w", err)
	}
	if err := t.Validate(); err != nil {
		return t, fmt.Errorf("config: %w", err)
	}
	return t, nil
}

// TrustedProxies parses EVF_API_TRUSTED_PROXIES: CIDRs, or single
// addresses (a /32 or /128).
func (c Config) TrustedProxies() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range c.APITrustedProxy {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return nil, fmt.Errorf("EVF_API_TRUSTED_PROXIES: %q is neither a CIDR nor an address", s)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Model configures one model capability (embed, nli, rerank, llm); its
// variables are EVF_<CAPABILITY>_<NAME>, e.g. EVF_NLI_BACKEND=tei.
type Model struct {
	Backend         string        `envconfig:"BACKEND" default:"builtin" desc:"builtin | hash | openai | tei | jina (embed: builtin, hash (the previous built-in, hashed n-grams only), openai, tei; nli: builtin (the learned built-in), tei, openai; rerank: builtin, tei, jina; llm: builtin, openai)"`
	URL             string        `envconfig:"URL" desc:"base URL of the model server (openai: including /v1, e.g. http://localhost:11434/v1)"`
	ModelName       string        `envconfig:"MODEL" desc:"model name sent to the server and stored with results"`
	APIKey          string        `envconfig:"API_KEY" desc:"bearer token, if the server wants one"`
	Batch           int           `envconfig:"BATCH" default:"0" desc:"inputs per request (0 = embed 64, nli 32, rerank 32, llm 1)"`
	Timeout         time.Duration `envconfig:"TIMEOUT" default:"0" desc:"timeout of one request (0 = 30s; llm 120s)"`
	Concurrency     int           `envconfig:"CONCURRENCY" default:"4" desc:"requests in flight per process"`
	Retries         int           `envconfig:"RETRIES" default:"4" desc:"retries of a failed request (429/5xx/timeouts, honouring Retry-After) before the job waits"`
	BreakerFailures int           `envconfig:"BREAKER_FAILURES" default:"5" desc:"consecutive failures that open the circuit breaker"`
	BreakerCooldown time.Duration `envconfig:"BREAKER_COOLDOWN" default:"30s" desc:"how long an open breaker fails fast before one probe request"`
}

// Capability defaults of Model.Batch and Model.Timeout.
var (
	defaultBatch   = map[string]int{"embed": 64, "nli": 32, "rerank": 32, "llm": 1}
	defaultTimeout = map[string]time.Duration{"embed": 30 * time.Second, "nli": 30 * time.Second, "rerank": 30 * time.Second, "llm": 120 * time.Second}
	allowedBackend = map[string][]string{
		"embed":  {"builtin", "hash", "openai", "tei"},
		"nli":    {"builtin", "tei", "openai"},
		"rerank": {"builtin", "tei", "jina"},
		"llm":    {"builtin", "openai"},
	}
)

// Models returns the four capability configurations by name, with the
// capability defaults of Batch and Timeout filled in.
func (c Config) Models() map[string]Model {
	out := map[string]Model{"embed": c.Embed, "nli": c.NLI, "rerank": c.Rerank, "llm": c.LLM}
	for name, m := range out {
		if m.Batch <= 0 {
			m.Batch = defaultBatch[name]
		}
		if m.Timeout <= 0 {
			m.Timeout = defaultTimeout[name]
		}
		out[name] = m
	}
	return out
}

// Load reads the environment; the database URL is required.
func Load() (Config, error) {
	c, err := LoadWithoutDatabase()
	if err == nil && c.DatabaseURL == "" {
		err = fmt.Errorf("config: required key DATABASE_URL missing value (set DATABASE_URL or EVF_DATABASE_URL)")
	}
	return c, err
}

// LoadWithoutDatabase reads and checks the environment as Load does, the
// database URL may be missing: `worker config` reports what the settings
// make of the machine without connecting.
func LoadWithoutDatabase() (Config, error) {
	var c Config
	if err := envconfig.Process(Prefix, &c); err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	return c, c.validate()
}

// PoolerTransaction is EVF_DB_POOLER's value for a transaction-mode pooler.
const PoolerTransaction = "transaction"

// DirectURL is the connection string that reaches Postgres itself, not a
// pooler: EVF_DATABASE_DIRECT_URL, or DATABASE_URL when it is empty.
func (c Config) DirectURL() string {
	if c.DatabaseDirectURL != "" {
		return c.DatabaseDirectURL
	}
	return c.DatabaseURL
}

func (c Config) validate() error {
	switch c.DBPooler {
	case "":
	case PoolerTransaction:
		if c.DatabaseDirectURL == "" {
			return fmt.Errorf("config: EVF_DB_POOLER=transaction needs EVF_DATABASE_DIRECT_URL, a connection straight to Postgres for the liveness lock and migrations (a session lock through a transaction pooler is held by whichever client gets that server connection next)")
		}
	default:
		return fmt.Errorf("config: EVF_DB_POOLER=%q: want empty (no pooler, or a session-mode one) or transaction", c.DBPooler)
	}
	if c.TrustQuorumOrgs < 1 {
		return fmt.Errorf("EVF_TRUST_QUORUM_ORGS=%d: want 1 or more", c.TrustQuorumOrgs)
	}
	if err := c.Belief.Params().Validate(); err != nil {
		return fmt.Errorf("config: EVF_BELIEF_*: %w", err)
	}
	for _, name := range []string{"embed", "nli", "rerank", "llm"} {
		m := c.Models()[name]
		env := Prefix + "_" + strings.ToUpper(name) + "_"
		if !slices.Contains(allowedBackend[name], m.Backend) {
			return fmt.Errorf("config: %sBACKEND=%q is not a %s backend (want one of %s)", env, m.Backend, name, strings.Join(allowedBackend[name], ", "))
		}
		if m.Backend == "builtin" || m.Backend == "hash" {
			continue // in process: no URL
		}
		if m.URL == "" {
			return fmt.Errorf("config: %sBACKEND=%s needs %sURL", env, m.Backend, env)
		}
		if u, err := url.Parse(m.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("config: %sURL=%q is not an http(s) URL", env, m.URL)
		}
		if m.Backend == "openai" && m.ModelName == "" {
			return fmt.Errorf("config: %sBACKEND=openai needs %sMODEL (e.g. qwen2.5:7b-instruct)", env, env)
		}
		if m.Concurrency < 1 || m.Retries < 0 || m.BreakerFailures < 1 {
			return fmt.Errorf("config: %sCONCURRENCY must be ≥ 1, %sRETRIES ≥ 0, %sBREAKER_FAILURES ≥ 1", env, env, env)
		}
	}
	switch {
	case c.EmbedDim != 0 && (c.EmbedDim < 16 || c.EmbedDim > 8192):
		return fmt.Errorf("config: EVF_EMBED_DIM=%d outside 16..8192 (or 0)", c.EmbedDim)
	case !(c.NLITemp > 0) || c.NLITemp > 100:
		return fmt.Errorf("config: EVF_NLI_TEMPERATURE=%v must be in (0, 100]", c.NLITemp)
	case c.MinNLIConfidence < 0 || c.MinNLIConfidence > 1:
		return fmt.Errorf("config: EVF_MIN_NLI_CONFIDENCE=%v outside [0,1]", c.MinNLIConfidence)
	case c.OrphanSweep != 0 && c.OrphanSweep < time.Minute:
		return fmt.Errorf("config: EVF_ORPHAN_SWEEP_INTERVAL=%s must be 0 (off) or at least 1m", c.OrphanSweep)
	case c.RecheckSweep != 0 && c.RecheckSweep < time.Minute:
		return fmt.Errorf("config: EVF_RECHECK_SWEEP_INTERVAL=%s must be 0 (off) or at least 1m", c.RecheckSweep)
	case c.RecheckEvery != 0 && c.RecheckEvery < time.Hour:
		return fmt.Errorf("config: EVF_RECHECK_INTERVAL=%s must be 0 (off) or at least 1h", c.RecheckEvery)
	case c.RecheckMaxAge <= 0:
		return fmt.Errorf("config: EVF_RECHECK_MAX_AGE=%s must be positive", c.RecheckMaxAge)
	case c.RecheckDaily < 1:
		return fmt.Errorf("config: EVF_RECHECK_DAILY_FETCHES=%d must be at least 1", c.RecheckDaily)
	case c.SearchResults < 1 || c.SearchResults > 100:
		return fmt.Errorf("config: EVF_SEARCH_RESULTS=%d outside 1..100", c.SearchResults)
	case c.APISessionTTL < time.Minute || c.APISessionTTL > 168*time.Hour:
		return fmt.Errorf("config: EVF_API_SESSION_TTL=%s outside 1m..168h", c.APISessionTTL)
	case c.TaskSettle < 100*time.Millisecond:
		return fmt.Errorf("config: EVF_TASK_SETTLE_INTERVAL=%s must be at least 100ms", c.TaskSettle)
	case c.PausedSnooze < 10*time.Millisecond:
		return fmt.Errorf("config: EVF_PAUSED_SNOOZE=%s must be at least 10ms", c.PausedSnooze)
	case !(c.OrgShare > 0) || c.OrgShare > 1:
		return fmt.Errorf("config: EVF_ORG_SHARE=%v must be in (0, 1]", c.OrgShare)
	case c.OrgShareSnooze < 10*time.Millisecond:
		return fmt.Errorf("config: EVF_ORG_SHARE_SNOOZE=%s must be at least 10ms", c.OrgShareSnooze)
	case c.QueueStatsTTL < time.Second:
		return fmt.Errorf("config: EVF_QUEUE_STATS_TTL=%s must be at least 1s", c.QueueStatsTTL)
	case c.ShardClaims < 1 || c.ShardClaims > jobs.MaxClaimIDs:
		return fmt.Errorf("config: EVF_VERIFY_SHARD_CLAIMS=%d outside 1..%d", c.ShardClaims, jobs.MaxClaimIDs)
	case c.JobPairs < 1:
		return fmt.Errorf("config: EVF_VERIFY_JOB_PAIRS=%d must be at least 1", c.JobPairs)
	case c.TaskIndexMB < 0 || c.TaskIndexMB > 1<<20:
		return fmt.Errorf("config: EVF_VERIFY_INDEX_MB=%d outside 0..1048576", c.TaskIndexMB)
	case !(c.RecallMaxTermFreq > 0) || c.RecallMaxTermFreq > 1 || c.RecallMinTerms < 1:
		return fmt.Errorf("config: EVF_RECALL_MAX_TERM_FREQ=%v must be in (0,1] and EVF_RECALL_MIN_TERMS=%d ≥ 1", c.RecallMaxTermFreq, c.RecallMinTerms)
	case c.RescueStuckAfter <= c.JobTimeout:
		return fmt.Errorf("config: EVF_RESCUE_STUCK_AFTER (%s) must exceed EVF_JOB_TIMEOUT (%s), or running jobs get rescued", c.RescueStuckAfter, c.JobTimeout)
	case c.LifelineInterval < 100*time.Millisecond:
		return fmt.Errorf("config: EVF_LIFELINE_INTERVAL=%s must be at least 100ms", c.LifelineInterval)
	case c.PageMemoryMB < 0 || c.PageMemoryMB > 1<<20:
		return fmt.Errorf("config: EVF_PAGE_MEMORY_BUDGET_MB=%d outside 0..1048576", c.PageMemoryMB)
	case c.ServerWaitMax <= 0 || c.ServerWaitSnoozes < 0:
		return fmt.Errorf("config: EVF_SERVER_WAIT_MAX=%s must be positive and EVF_SERVER_WAIT_SNOOZES=%d not negative", c.ServerWaitMax, c.ServerWaitSnoozes)
	}
	if err := c.APIToken.Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if _, err := c.TrustedProxies(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	switch {
	case c.APIStreamRecheck < 10*time.Millisecond || c.APIStreamLease < 2*c.APIStreamRecheck:
		return fmt.Errorf("config: EVF_API_STREAM_RECHECK=%s must be at least 10ms and at most half EVF_API_STREAM_LEASE=%s", c.APIStreamRecheck, c.APIStreamLease)
	case c.APIAuthFailures < 0 || c.APIAuthBurst < 1:
		return fmt.Errorf("config: EVF_API_AUTH_FAILURE_RATE=%v must not be negative and EVF_API_AUTH_FAILURE_BURST=%d at least 1", c.APIAuthFailures, c.APIAuthBurst)
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

// UsageMarkdown writes the same table as Usage in Markdown, as
// docs/configuration.md shows it (`make configdoc` writes it there; a test
// keeps the two equal). A "|" inside a cell is escaped, so that a meaning
// listing alternatives (builtin | hash | …) stays one cell.
func UsageMarkdown(w io.Writer) error {
	// Cells are separated by a byte no description holds, then escaped
	// and joined.
	const sep = "\x1f"
	format := "{{range .}}`{{usage_key .}}`" + sep + "{{with usage_default .}}`{{.}}`{{else}}—{{end}}" + sep + "{{usage_description .}}\n{{end}}"
	var rows strings.Builder
	if err := envconfig.Usagef(Prefix, &Config{}, &rows, format); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("| variable | default | meaning |\n|---|---|---|\n")
	for _, row := range strings.Split(strings.TrimSuffix(rows.String(), "\n"), "\n") {
		cells := strings.Split(row, sep)
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Defaults is the configuration with every variable at its default: the
// env struct's default tags are the one place defaults are stated (tests
// and harnesses start from it; Load applies the same tags).
func Defaults() Config {
	var c Config
	setDefaults(reflect.ValueOf(&c).Elem())
	return c
}

// setDefaults applies the default tags of v's fields, recursing into
// nested structs (Model).
func setDefaults(v reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeFor[time.Duration]() {
			setDefaults(fv)
			continue
		}
		def, ok := f.Tag.Lookup("default")
		if !ok {
			continue
		}
		if err := setValue(fv, def); err != nil {
			panic(fmt.Sprintf("config: default of %s: %v", f.Name, err))
		}
	}
}

func setValue(v reflect.Value, s string) error {
	switch {
	case v.Type() == reflect.TypeFor[time.Duration]():
		d, err := time.ParseDuration(s)
		v.SetInt(int64(d))
		return err
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String:
		v.Set(reflect.ValueOf(strings.Split(s, ",")))
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		v.SetInt(n)
		return err
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		v.SetFloat(x)
		return err
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		v.SetBool(b)
		return err
	default:
		return fmt.Errorf("unsupported kind %s", v.Kind())
	}
	return nil
}
