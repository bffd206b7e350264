// Package metrics defines evidencefleet's Prometheus metrics (prefix
// evidencefleet_). Labels are bounded: no URLs, task ids or claim ids.
// Every method is safe on a nil *Metrics, so code paths need no checks.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/evidencefleet/evidencefleet/internal/cost"
)

const namespace = "evidencefleet"

// Metrics holds the collectors of one process.
type Metrics struct {
	Registry *prometheus.Registry

	nliEdges     *prometheus.CounterVec
	nliSkipped   *prometheus.CounterVec
	fetches      *prometheus.CounterVec
	fetchBytes   prometheus.Counter
	fetchSeconds *prometheus.HistogramVec
	verdicts     *prometheus.CounterVec
	workerInfo   *prometheus.GaugeVec
	queueSlots   *prometheus.GaugeVec
	searches     *prometheus.CounterVec
	academic     *prometheus.CounterVec
	rescued      *prometheus.CounterVec
	claims       *prometheus.CounterVec
	quoteDropped prometheus.Counter

	politeWaits  *prometheus.CounterVec
	budgetUsedUp prometheus.Counter
	rechecks     *prometheus.CounterVec

	modelRequests *prometheus.CounterVec
	modelErrors   *prometheus.CounterVec
	modelLatency  *prometheus.HistogramVec
	modelBatch    *prometheus.HistogramVec
	modelTokens   *prometheus.CounterVec

	dbQueries *prometheus.CounterVec

	recalls *prometheus.CounterVec

	jobs    *prometheus.CounterVec
	jobRun  *prometheus.HistogramVec
	jobWait *prometheus.HistogramVec
	jobCost *prometheus.CounterVec

	api apiMetrics
}

// Job outcomes, the values of the outcome label of jobs_total.
const (
	OutcomeCompleted = "completed"
	OutcomeRetried   = "retried"
	OutcomeSnoozed   = "snoozed"
	OutcomeCancelled = "cancelled"
	OutcomeDiscarded = "discarded"
	OutcomePanicked  = "panicked"
)

// Outcomes lists every job outcome.
var Outcomes = []string{OutcomeCompleted, OutcomeRetried, OutcomeSnoozed, OutcomeCancelled, OutcomeDiscarded, OutcomePanicked}

// jobBuckets span a no-op job (1 ms) to a long fetch or model call (10 min).
var jobBuckets = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}

// newModelMetrics registers the collectors of model backend requests.
func (m *Metrics) newModelMetrics() {
	m.modelRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "model_requests_total",
		Help: "HTTP requests to model backends (each retry counts), by backend, capability and outcome (ok or error).",
	}, []string{"backend", "capability", "outcome"})
	m.modelErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "model_errors_total",
		Help: "Failed model backend requests by kind: rate_limited, server_error, timeout, connection, bad_response, rejected, circuit_open, canceled.",
	}, []string{"backend", "capability", "kind"})
	m.modelLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "model_request_duration_seconds",
		Help:    "Latency of one HTTP request to a model backend.",
		Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60},
	}, []string{"backend", "capability"})
	m.modelBatch = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "model_batch_size",
		Help:    "Inputs (texts, pairs, documents) per model backend request.",
		Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256},
	}, []string{"backend", "capability"})
	m.modelTokens = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "model_tokens_total",
		Help: "Tokens reported by model backends, by type (prompt, completion).",
	}, []string{"backend", "capability", "type"})
	m.Registry.MustRegister(m.modelRequests, m.modelErrors, m.modelLatency, m.modelBatch, m.modelTokens)
}

// PoliteWaitReasons are the reason label values of politeness_waits_total.
var PoliteWaitReasons = []string{"spacing", "budget", "recheck_budget"}

// RecheckStates are the state label values of recheck_citations_total.
var RecheckStates = []string{"unchanged", "edited", "moved", "gone", "unreachable"}

// newPolitenessMetrics registers the collectors of the fleet-wide
// politeness of fetches, their series at zero.
func (m *Metrics) newPolitenessMetrics() {
	m.politeWaits = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "politeness_waits_total",
		Help: "target_queue and recheck jobs told by the fleet-wide politeness to come back later (snoozed), by reason: spacing (not the domain's turn yet), budget (its budget of the UTC day is used up) or recheck_budget (the fleet's recheck fetches of the UTC day are used up).",
	}, []string{"reason"})
	m.rechecks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "recheck_citations_total",
		Help: "Cited spans checked again against their page, by state: unchanged, edited (the span's words are no longer in the page), moved (a permanent redirect), gone (404 or 410) or unreachable.",
	}, []string{"state"})
	m.budgetUsedUp = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: namespace, Name: "politeness_budgets_exhausted_total",
		Help: "Domains whose daily fetch budget a fetch of this process used up (once per domain and UTC day, fleet-wide).",
	})
	m.Registry.MustRegister(m.politeWaits, m.budgetUsedUp, m.rechecks)
	for _, r := range PoliteWaitReasons {
		m.politeWaits.WithLabelValues(r)
	}
	for _, s := range RecheckStates {
		m.rechecks.WithLabelValues(s)
	}
}

// Rechecked counts n cited spans checked again, by state.
func (m *Metrics) Rechecked(state string, n int) {
	if m != nil && n > 0 {
		m.rechecks.WithLabelValues(state).Add(float64(n))
	}
}

// PoliteWait counts one fetch told to come back later, by reason (spacing, budget).
func (m *Metrics) PoliteWait(reason string) {
	if m != nil {
		m.politeWaits.WithLabelValues(reason).Inc()
	}
}

// BudgetExhausted counts one domain whose daily budget a fetch of this
// process used up.
func (m *Metrics) BudgetExhausted() {
	if m != nil {
		m.budgetUsedUp.Inc()
	}
}

// New registers the collectors on a fresh registry, with the Go and process collectors.
func New() *Metrics {
	m := &Metrics{Registry: prometheus.NewRegistry()}
	m.nliEdges = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "nli_edges_total",
		Help: "NLI edges inserted, by relation.",
	}, []string{"relation"})
	m.nliSkipped = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "nli_pairs_skipped_total",
		Help: "Fragment/claim pairs not judged or not inserted: already_judged (pre-check), conflict (judged concurrently), unjudgeable (the model gave no usable answer) or blocked_domain (the fragment's domain is BLOCKED).",
	}, []string{"reason"})
	m.fetches = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "fetches_total",
		Help: "Page fetches by outcome (ok or the failure reason).",
	}, []string{"outcome"})
	m.fetchSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "fetch_duration_seconds",
		Help:    "How long a page fetch took (robots.txt and redirects included), by outcome.",
		Buckets: []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 60},
	}, []string{"outcome"})
	m.verdicts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "claim_verdicts_total",
		Help: "Verdicts given by posterior recomputes, one per claim per verify_nli round, by verdict.",
	}, []string{"verdict"})
	m.workerInfo = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: namespace, Name: "worker_info",
		Help: "1 per running worker process, labelled with its version.",
	}, []string{"version"})
	m.queueSlots = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: namespace, Name: "queue_workers",
		Help: "Concurrent jobs this process works per queue (0 for queues it does not serve).",
	}, []string{"queue"})
	m.searches = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "search_requests_total",
		Help: "Search backend requests of query targets, by outcome (ok, error, not_configured).",
	}, []string{"outcome"})
	m.academic = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "academic_steps_total",
		Help: "Academic steps (doi resolution, citation graph) by step and outcome (ok, not_resolved, skipped: no API reachable or configured).",
	}, []string{"step", "outcome"})
	m.rescued = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "jobs_rescued_total",
		Help: "Running jobs of a dead worker process this process made available again, by kind.",
	}, []string{"kind"})
	m.fetchBytes = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: namespace, Name: "fetch_bytes_total",
		Help: "Bytes of fetched page bodies.",
	})
	m.claims = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "claims_extracted_total",
		Help: "Claims extracted from pages, by result (stored, dropped_quote, dropped_span).",
	}, []string{"result"})
	m.quoteDropped = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: namespace, Name: "claim_quotes_rejected_total",
		Help: "Extracted claims dropped because their quote does not occur verbatim in the page version.",
	})
	m.newModelMetrics()
	m.newPolitenessMetrics()
	m.newAPIMetrics()
	m.dbQueries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "db_round_trips_total",
		Help: "Statements, batches and COPYs sent to Postgres by this process (River's own included), by type (query, batch, copy).",
	}, []string{"type"})
	m.recalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "verify_recalls_total",
		Help: "Candidate recalls of verify_nli rounds, by path: index_hit (task index cached in memory), index_load (built for this round), index_extend (an index of the task's earlier state extended with the fragments it lacked), sql (task too large for the index budget; Postgres full-text search).",
	}, []string{"path"})
	m.jobs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "jobs_total",
		Help: "Jobs worked by this process, by kind, queue and outcome (completed, retried, snoozed, cancelled, discarded, panicked).",
	}, []string{"kind", "queue", "outcome"})
	m.jobRun = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "job_run_seconds",
		Help:    "How long a job's work took, by kind and queue.",
		Buckets: jobBuckets,
	}, []string{"kind", "queue"})
	m.jobWait = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "job_queue_wait_seconds",
		Help:    "How long a job waited to be worked (attempted_at − scheduled_at), by kind and queue.",
		Buckets: jobBuckets,
	}, []string{"kind", "queue"})
	m.jobCost = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "job_cost_total",
		Help: "What jobs spent outside the fleet (internal/cost), by kind (the stage) and item: model_calls, tokens_in, tokens_out, searches, academic_calls, fetches, fetch_bytes. Failed attempts count.",
	}, []string{"kind", "item"})
	m.Registry.MustRegister(m.jobCost)
	m.Registry.MustRegister(m.dbQueries, m.recalls, m.jobs, m.jobRun, m.jobWait, m.fetchSeconds, m.verdicts, m.workerInfo, m.queueSlots, m.searches, m.academic, m.rescued)
	for _, o := range []string{"ok", "error", "not_configured"} {
		m.searches.WithLabelValues(o)
	}
	for _, v := range []string{"well_supported", "supported", "unverified", "likely_false", "contested"} {
		m.verdicts.WithLabelValues(v)
	}
	m.Registry.MustRegister(m.nliEdges, m.nliSkipped, m.fetches, m.fetchBytes, m.claims, m.quoteDropped,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, r := range []string{"supports", "refutes", "neutral"} {
		m.nliEdges.WithLabelValues(r)
	}
	for _, t := range []string{"query", "batch", "copy"} {
		m.dbQueries.WithLabelValues(t)
	}
	for _, p := range []string{"index_hit", "index_load", "index_extend", "sql"} {
		m.recalls.WithLabelValues(p)
	}
	for _, r := range []string{"already_judged", "conflict", "unjudgeable", "blocked_domain"} {
		m.nliSkipped.WithLabelValues(r)
	}
	return m
}

// NLIEdge counts n inserted edges of a relation.
func (m *Metrics) NLIEdge(relation string, n int) {
	if m != nil && n > 0 {
		m.nliEdges.WithLabelValues(relation).Add(float64(n))
	}
}

// NLISkipped counts n skipped pairs for a reason.
func (m *Metrics) NLISkipped(reason string, n int) {
	if m != nil && n > 0 {
		m.nliSkipped.WithLabelValues(reason).Add(float64(n))
	}
}

// Fetch counts one fetch outcome, its body size and how long it took.
func (m *Metrics) Fetch(outcome string, bytes int, seconds float64) {
	if m == nil {
		return
	}
	m.fetches.WithLabelValues(outcome).Inc()
	m.fetchSeconds.WithLabelValues(outcome).Observe(seconds)
	if bytes > 0 {
		m.fetchBytes.Add(float64(bytes))
	}
}

// Claims counts n extracted claims with a result.
func (m *Metrics) Claims(result string, n int) {
	if m != nil && n > 0 {
		m.claims.WithLabelValues(result).Add(float64(n))
	}
}

// ModelRequest records one HTTP request to a model backend: its outcome ("ok"
// or "error") and latency.
func (m *Metrics) ModelRequest(backend, capability, outcome string, seconds float64) {
	if m == nil {
		return
	}
	m.modelRequests.WithLabelValues(backend, capability, outcome).Inc()
	m.modelLatency.WithLabelValues(backend, capability).Observe(seconds)
}

// ModelError counts one failed model request by kind.
func (m *Metrics) ModelError(backend, capability, kind string) {
	if m != nil {
		m.modelErrors.WithLabelValues(backend, capability, kind).Inc()
	}
}

// ModelBatch records the number of inputs of one model request.
func (m *Metrics) ModelBatch(backend, capability string, n int) {
	if m != nil {
		m.modelBatch.WithLabelValues(backend, capability).Observe(float64(n))
	}
}

// ModelTokens counts tokens a backend reported (typ is "prompt" or "completion").
func (m *Metrics) ModelTokens(backend, capability, typ string, n int) {
	if m != nil && n > 0 {
		m.modelTokens.WithLabelValues(backend, capability, typ).Add(float64(n))
	}
}

// DBRoundTrip counts one statement, batch or COPY (typ) sent to Postgres.
func (m *Metrics) DBRoundTrip(typ string) {
	if m == nil {
		return
	}
	m.dbQueries.WithLabelValues(typ).Inc()
}

// Recall counts one verify_nli candidate recall by path (index_hit, index_load, index_extend, sql).
func (m *Metrics) Recall(path string) {
	if m != nil {
		m.recalls.WithLabelValues(path).Inc()
	}
}

// JobDone counts one worked job by kind, queue and outcome, with its run time.
func (m *Metrics) JobDone(kind, queue, outcome string, seconds float64) {
	if m == nil {
		return
	}
	m.jobs.WithLabelValues(kind, queue, outcome).Inc()
	m.jobRun.WithLabelValues(kind, queue).Observe(seconds)
}

// JobCost adds what one attempt of a job of kind spent (c) to
// job_cost_total.
func (m *Metrics) JobCost(kind string, c cost.Counts) {
	if m == nil {
		return
	}
	for i, v := range c.Values() {
		if v > 0 {
			m.jobCost.WithLabelValues(kind, cost.Items[i]).Add(float64(v))
		}
	}
}

// JobWait records how long a job waited in its queue before this attempt.
func (m *Metrics) JobWait(kind, queue string, seconds float64) {
	if m != nil {
		m.jobWait.WithLabelValues(kind, queue).Observe(max(seconds, 0))
	}
}

// PrepareJobs creates the series of the kinds and queues this process works
// at zero (jobs_total by outcome, job_cost_total by item), so dashboards see
// every outcome and item before it first happens.
func (m *Metrics) PrepareJobs(kindQueues map[string]string) {
	if m == nil {
		return
	}
	for kind, queue := range kindQueues {
		for _, o := range Outcomes {
			m.jobs.WithLabelValues(kind, queue, o)
		}
		for _, item := range cost.Items {
			m.jobCost.WithLabelValues(kind, item)
		}
	}
}

// Verdict counts n claims given a verdict by a posterior recompute.
func (m *Metrics) Verdict(verdict string, n int) {
	if m != nil && n > 0 {
		m.verdicts.WithLabelValues(verdict).Add(float64(n))
	}
}

// Worker records this process's version and its concurrency per queue.
func (m *Metrics) Worker(version string, slots map[string]int) {
	if m == nil {
		return
	}
	m.workerInfo.WithLabelValues(version).Set(1)
	for q, n := range slots {
		m.queueSlots.WithLabelValues(q).Set(float64(n))
	}
}

// ModelErrorKinds are the kind label values of model_errors_total.
var ModelErrorKinds = []string{"connection", "timeout", "rate_limited", "server_error", "rejected", "bad_response", "canceled", "circuit_open"}

// PrepareModel creates the request and error series of one backend and
// capability at zero, so dashboards see them before the first call or error.
func (m *Metrics) PrepareModel(backend, capability string) {
	if m == nil {
		return
	}
	for _, o := range []string{"ok", "error"} {
		m.modelRequests.WithLabelValues(backend, capability, o)
	}
	for _, k := range ModelErrorKinds {
		m.modelErrors.WithLabelValues(backend, capability, k)
	}
}

// Search counts one search request of a query target by outcome.
func (m *Metrics) Search(outcome string) {
	if m != nil {
		m.searches.WithLabelValues(outcome).Inc()
	}
}

// Rescued counts one job of a dead worker process this process rescued.
func (m *Metrics) Rescued(kind string) {
	if m != nil {
		m.rescued.WithLabelValues(kind).Inc()
	}
}

// Academic counts one academic step (doi, citation_graph) by outcome.
func (m *Metrics) Academic(step, outcome string) {
	if m != nil {
		m.academic.WithLabelValues(step, outcome).Inc()
	}
}
