package eval

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/graphsnap"
	"github.com/evidencefleet/evidencefleet/internal/ident"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/configured"
	"github.com/evidencefleet/evidencefleet/internal/nlimodel"
	"github.com/evidencefleet/evidencefleet/internal/version"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// TaskHypothesis is the hypothesis (claim E1) of the evaluation task; the
// dataset's claims are added as further hypothesis claims.
const TaskHypothesis = "Climate-FEVER evaluation"

// FleetQueues are the queues the evaluation fleet serves, and FleetKinds the
// job kinds it waits for.
var (
	FleetQueues = []string{jobs.QueueTarget, jobs.QueueEmbed, jobs.QueueNLI}
	FleetKinds  = []string{jobs.KindTargetQueue, jobs.KindEmbed, jobs.KindVerifyNLI}
)

// Options configure Run.
type Options struct {
	// Config is the worker configuration (config.Load): it chooses the model
	// backends and the fleet's tuning. Its DatabaseURL names the server.
	Config config.Config
	// ClaimsFile is a Climate-FEVER JSONL file; "" skips the end-to-end run.
	ClaimsFile string
	// Limit keeps only the first Limit claims (0: all).
	Limit int
	// SentencesOnly judges the claims file's gold pairs alone and runs no
	// fleet: the quick loop for a change of model.
	SentencesOnly bool
	// NLIDir holds label<TAB>premise<TAB>hypothesis *.tsv files; "" skips
	// the pair evaluation.
	NLIDir string
	// NLILimit keeps only the first NLILimit rows of each file (0: all).
	NLILimit int
	// FreshDB runs the fleet in a scratch database created on the server of
	// Config.DatabaseURL and dropped afterwards, so that neither existing
	// data nor other workers on that database touch the measurement.
	// Otherwise Config.DatabaseURL itself is migrated and used.
	FreshDB bool
	// Timeout bounds the fleet phase (0: 30 minutes).
	Timeout time.Duration
	// Log receives the fleet's log (nil: discarded).
	Log *slog.Logger
	// Progress, when set, receives a line about the fleet's progress every
	// ten seconds.
	Progress io.Writer
	// OpenMode runs the claims a second time in open mode (ModeOpen), in
	// a scratch database of its own when FreshDB.
	OpenMode bool
	// SelfDirectedClaims bounds the claims of the self-directed run (each
	// its own task; the first ones of the file), 0 for all.
	SelfDirectedClaims int
}

// Models are the model ids in use, so that numbers are attributable.
type Models struct {
	Embed        string `json:"embed"`
	EmbedBackend string `json:"embed_backend"`
	NLI          string `json:"nli"`
	NLIBackend   string `json:"nli_backend"`
	LLM          string `json:"llm"`
	LLMBackend   string `json:"llm_backend"`
}

// NLIFileResult is the pair evaluation of one TSV file.
type NLIFileResult struct {
	File           string  `json:"file"`
	Model          string  `json:"model"`
	Scores         Scores  `json:"scores"`
	Seconds        float64 `json:"seconds"`
	PairsPerSecond float64 `json:"pairs_per_second"`
}

// FleetResult is the end-to-end evaluation on Climate-FEVER claims.
type FleetResult struct {
	Mode       Mode   `json:"mode"`
	ClaimsFile string `json:"claims_file"`
	Claims     int    `json:"claims"`
	Articles   int    `json:"articles"` // replay pages built
	TaskID     int64  `json:"task_id"`
	// TaskIDs are the tasks of the run when it has one per claim (self-directed
	// mode: each claim is its own task, in record order); else empty.
	TaskIDs []int64 `json:"task_ids,omitempty"`

	WallSeconds   float64                   `json:"wall_seconds"` // fleet start until idle
	JobsCompleted int                       `json:"jobs_completed"`
	JobsPerSecond float64                   `json:"jobs_per_second"`
	Jobs          map[string]map[string]int `json:"jobs"` // kind → state → count
	// Timings say where the wall time went, per job kind.
	Timings []KindTiming `json:"timings"`
	// Workers is the per-queue concurrency of the fleet, CPUs the machine's.
	Workers map[string]int `json:"workers"`
	CPUs    int            `json:"cpus"`

	Pages           int            `json:"pages"`
	Fragments       int            `json:"fragments"`
	Edges           int            `json:"nli_edges"`
	EdgesByRelation map[string]int `json:"nli_edges_by_relation"`
	ExtractedClaims int            `json:"extracted_claims"`
	FailedTargets   []string       `json:"failed_targets"`
	// ModelsSeen are the model ids recorded in the graph (edges.nli_model,
	// fragments.embed_model): they should equal the configured ones.
	NLIModelsSeen   []string `json:"nli_models_seen"`
	EmbedModelsSeen []string `json:"embed_models_seen"`
	// GraphDigest is the SHA-256 of the whole graph by natural keys with
	// its posteriors (internal/graphsnap); equal digests mean equal graphs.
	GraphDigest string `json:"graph_digest"`
	GraphRows   string `json:"graph_rows"`

	// Verdicts counts the dataset claims' verdicts; ClaimScores compares
	// them (VerdictClass) with the gold claim labels.
	Verdicts    map[string]int `json:"verdicts"`
	ClaimScores Scores         `json:"claim_scores"`

	// Gold evidence pairs (see match.go): PairScores compares the stored
	// edges' nli_label with the gold label, for the judged pairs.
	GoldPairs       int    `json:"gold_pairs"`
	SkippedEvidence int    `json:"skipped_evidence"` // evidence that is not a gold pair
	Located         int    `json:"located"`          // sentence found in its page version
	Straddling      int    `json:"straddling"`       // located across two or more fragments
	Judged          int    `json:"judged"`           // an overlapping fragment has an edge to the claim
	PairScores      Scores `json:"pair_scores"`

	// Retrieval against judgement (see oracle.go): the claims with a gold
	// pair, and with one the fleet judged; the verdicts of a perfect judge
	// on the judged gold pairs (the fleet's retrieval) and on all of them.
	ClaimsWithGold int `json:"claims_with_gold_pairs"`
	ClaimsJudged   int `json:"claims_with_a_judged_gold_pair"`
	// JudgedByLabel is Judged per gold label (models.Supports, …).
	JudgedByLabel map[string]Reach `json:"judged_by_gold_label"`
	OracleJudged  Scores           `json:"oracle_judge_on_judged_pairs"`
	OracleAll     Scores           `json:"oracle_judge_on_all_gold_pairs"`

	// Retrieval is what the fleet reached of the gold evidence articles
	// and what it spent (openmode.go).
	Retrieval Retrieval `json:"retrieval"`
}

// KindTiming is where the fleet's time went for one job kind: the number of
// finished jobs, when the last one finished (seconds after the fleet
// started), and the total and longest run time of their last attempts
// (a snoozed verify_nli's waits are not run time).
type KindTiming struct {
	Kind           string  `json:"kind"`
	Jobs           int     `json:"jobs"`
	LastFinishedAt float64 `json:"last_finished_at"`
	BusySeconds    float64 `json:"busy_seconds"`
	LongestSeconds float64 `json:"longest_seconds"`
}

// Report is everything Run measured.
type Report struct {
	// Measured names the commit and time of the run: docs/quality.md quotes it
	// with every figure.
	Measured     version.Provenance `json:"measured"`
	NLIData      string             `json:"nli_data,omitempty"` // the directory of the NLI pairs
	Models       Models             `json:"models"`
	NLI          []NLIFileResult    `json:"nli"`
	ClimateFever *FleetResult       `json:"climate_fever,omitempty"`
	// ClimateFeverSentences is the configured NLI on every gold pair of the
	// claims file judged alone (SentenceExamples): the model without the
	// fleet.
	ClimateFeverSentences *Scores `json:"climate_fever_sentences,omitempty"`
	// ClimateFeverRelatedness is how the configured embedder's cosine
	// alone ranks the same pairs (relatedness): the reference for
	// ClimateFeverSentences.Separation.
	ClimateFeverRelatedness *Separation `json:"climate_fever_relatedness,omitempty"`
	// ClimateFeverOpen is the same claims in open mode (Options.OpenMode).
	ClimateFeverOpen *FleetResult `json:"climate_fever_open,omitempty"`
	// ClimateFeverSelfDirected is the same claims, each its own
	// self-directed task (Options.OpenMode).
	ClimateFeverSelfDirected *FleetResult `json:"climate_fever_self_directed,omitempty"`
	TotalSeconds             float64      `json:"total_seconds"`
	DatabaseIsTemp           bool         `json:"scratch_database"`
}

// ConfiguredModels builds the configured backends (configured.New) to read their
// model ids.
func ConfiguredModels(cfg config.Config) (Models, error) {
	m, err := configured.New(cfg, nil)
	if err != nil {
		return Models{}, err
	}
	mc := cfg.Models()
	out := Models{EmbedBackend: mc["embed"].Backend, NLIBackend: mc["nli"].Backend, LLMBackend: mc["llm"].Backend}
	if m.Embedder != nil {
		out.Embed = m.Embedder.Model()
	}
	if m.NLI != nil {
		out.NLI = m.NLI.Model()
	}
	if m.LLM != nil {
		out.LLM = m.LLM.Model()
	}
	return out, nil
}

// Run evaluates the configured NLI backend on opts.NLIDir, then the whole
// fleet on opts.ClaimsFile.
func Run(ctx context.Context, opts Options) (*Report, error) {
	begin := time.Now()
	models, err := ConfiguredModels(opts.Config)
	if err != nil {
		return nil, err
	}
	rep := &Report{Measured: version.Measured(ctx), NLIData: opts.NLIDir,
		Models: models, NLI: []NLIFileResult{}, DatabaseIsTemp: opts.FreshDB}
	if opts.NLIDir != "" {
		nli, err := configured.NewNLI(opts.Config, nil)
		if err != nil {
			return nil, err
		}
		if rep.NLI, err = RunNLIFiles(ctx, nli, opts.Config.Models()["nli"].Batch, opts.NLIDir, opts.NLILimit); err != nil {
			return nil, err
		}
	}
	if opts.ClaimsFile != "" {
		if rep.ClimateFeverSentences, rep.ClimateFeverRelatedness, err = runSentences(ctx, opts); err != nil {
			return nil, err
		}
	}
	if opts.ClaimsFile != "" && !opts.SentencesOnly {
		if rep.ClimateFever, err = RunFleet(ctx, opts); err != nil {
			return nil, err
		}
		if opts.OpenMode {
			if rep.ClimateFeverOpen, err = RunFleetMode(ctx, opts, ModeOpen); err != nil {
				return nil, fmt.Errorf("open mode: %w", err)
			}
			if rep.ClimateFeverSelfDirected, err = RunFleetMode(ctx, opts, ModeSelfDirected); err != nil {
				return nil, fmt.Errorf("self-directed mode: %w", err)
			}
		}
	}
	rep.TotalSeconds = time.Since(begin).Seconds()
	return rep, nil
}

// runSentences judges the claims file's gold pairs alone with the
// configured NLI, and ranks them by the configured embedder's cosine.
func runSentences(ctx context.Context, opts Options) (*Scores, *Separation, error) {
	records, err := readClaims(opts.ClaimsFile, opts.Limit)
	if err != nil {
		return nil, nil, err
	}
	ms, err := configured.New(opts.Config, nil)
	if err != nil {
		return nil, nil, err
	}
	pairs, _ := GoldPairs(records)
	examples := SentenceExamples(records, pairs)
	mc := opts.Config.Models()
	s, err := EvaluateNLI(ctx, ms.NLI, mc["nli"].Batch, examples)
	if err != nil {
		return nil, nil, fmt.Errorf("gold sentences: %w", err)
	}
	rel, err := relatedness(ctx, ms.Embedder, mc["embed"].Batch, examples)
	if err != nil {
		return nil, nil, fmt.Errorf("gold sentences: %w", err)
	}
	return &s, rel, nil
}

// RunNLIFiles evaluates nli on every *.tsv file of dir (at most limit rows
// each when limit > 0), judging batch pairs per call.
func RunNLIFiles(ctx context.Context, nli models.NLI, batch int, dir string, limit int) ([]NLIFileResult, error) {
	files, err := NLIDataFiles(dir)
	if err != nil {
		return nil, err
	}
	out := make([]NLIFileResult, 0, len(files))
	for _, f := range files {
		examples, err := ReadNLIFile(f)
		if err != nil {
			return nil, err
		}
		if limit > 0 && len(examples) > limit {
			examples = examples[:limit]
		}
		start := time.Now()
		scores, err := EvaluateNLI(ctx, nli, batch, examples)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
		secs := time.Since(start).Seconds()
		r := NLIFileResult{File: filepath.Base(f), Model: nli.Model(), Scores: scores, Seconds: secs}
		if secs > 0 {
			r.PairsPerSecond = float64(len(examples)) / secs
		}
		out = append(out, r)
	}
	return out, nil
}

// EvaluateNLI judges the examples with nli, batch pairs per call (≤ 0: 32),
// and scores the predictions against the gold labels.
func EvaluateNLI(ctx context.Context, nli models.NLI, batch int, examples []NLIExample) (Scores, error) {
	if batch <= 0 {
		batch = 32
	}
	pairs := Pairs(examples)
	var c Confusion
	conf, correct := make([]float64, 0, len(pairs)), make([]bool, 0, len(pairs))
	judged := make([]models.Judgement, 0, len(pairs))
	for start := 0; start < len(pairs); start += batch {
		end := min(start+batch, len(pairs))
		js, err := nli.Judge(ctx, pairs[start:end])
		if err != nil {
			return Scores{}, fmt.Errorf("NLI with %s, pairs %d–%d: %w", nli.Model(), start+1, end, err)
		}
		if len(js) != end-start {
			return Scores{}, fmt.Errorf("NLI with %s returned %d judgements for %d pairs", nli.Model(), len(js), end-start)
		}
		for i, j := range js {
			c.Add(examples[start+i].Gold, j.Label)
			conf = append(conf, j.Confidence)
			correct = append(correct, j.Label == examples[start+i].Gold)
		}
		judged = append(judged, js...)
	}
	s, err := Score(&c, NLILabels)
	if err != nil {
		return s, err
	}
	r := nlimodel.NewReliability(conf, correct, 10)
	s.Calibration = &r
	s.Separation = separation(examples, judged)
	return s, nil
}

// RunFleet builds the replay corpus of the claims file's evidence, runs a
// fleet on it in-process until the task's jobs are done, and scores the
// verdicts and the judged gold evidence pairs: RunFleetMode in ModeGiven.
func RunFleet(ctx context.Context, opts Options) (*FleetResult, error) {
	return RunFleetMode(ctx, opts, ModeGiven)
}

// readClaims reads the first limit (0: all) Climate-FEVER records of file
// and checks their gold labels.
func readClaims(file string, limit int) ([]corpus.Record, error) {
	records, err := corpus.ReadClimateFever(file)
	if err != nil {
		return nil, fmt.Errorf("claims: %w", err)
	}
	if limit > 0 && len(records) > limit {
		records = records[:limit]
	}
	if len(records) == 0 {
		return nil, fmt.Errorf("claims: %s has no records", file)
	}
	for _, r := range records {
		if _, ok := ClaimGoldClass(r.ClaimLabel); !ok {
			return nil, fmt.Errorf("claims: claim %s has label %q, want one of %v", r.ClaimID, r.ClaimLabel, ClaimClasses)
		}
	}
	return records, nil
}

// TaskClaims are the evaluation task and its claim per record.
type TaskClaims struct {
	Task   int64
	Claims []int64 // claim id per record
}

// EnqueueTask creates the task, its hypothesis claims (one per record, in
// order) and a target_queue job per page, in one transaction.
func EnqueueTask(ctx context.Context, st *store.Store, client *river.Client[pgx.Tx], records []corpus.Record, pages []corpus.Page) (TaskClaims, error) {
	targets := make([]jobs.Target, 0, len(pages))
	for _, p := range pages {
		t, err := jobs.Target{Kind: jobs.TargetURL, Value: p.URL}.Normalized()
		if err != nil {
			return TaskClaims{}, fmt.Errorf("target %s: %w", p.URL, err)
		}
		targets = append(targets, t)
	}
	return EnqueueTargets(ctx, st, client, records, targets)
}

// EnqueueTargets is EnqueueTask with normalised targets of any kind.
func EnqueueTargets(ctx context.Context, st *store.Store, client *river.Client[pgx.Tx], records []corpus.Record, targets []jobs.Target) (TaskClaims, error) {
	var out TaskClaims
	texts := make([]string, len(records))
	for i, r := range records {
		texts[i] = r.Claim
	}
	err := st.InTx(ctx, func(tx pgx.Tx, _ *store.Queries) error {
		task, err := intake.CreateTask(ctx, client, tx, "evaluation", intake.TaskSpec{Hypothesis: TaskHypothesis})
		if err != nil {
			return err
		}
		out.Task = task.ID
		added, err := intake.AddHypotheses(ctx, client, tx, task.ID, texts)
		if err != nil {
			return err
		}
		out.Claims = make([]int64, len(added))
		for i, a := range added {
			out.Claims[i] = a.ID
		}
		_, err = intake.AddTargets(ctx, client, tx, task.ID, targets)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("create evaluation task: %w", err)
	}
	return out, nil
}

// waitIdle polls river_job until no job of FleetKinds of the tasks is
// available, pending, running, retryable or scheduled, twice in a row —
// and, with untilCompleted, every task is completed (a self-directed
// task's planner steps between its jobs).
func waitIdle(ctx context.Context, pool *pgxpool.Pool, tasks []int64, untilCompleted bool, timeout time.Duration, progress io.Writer) error {
	deadline := time.Now().Add(timeout)
	lastReport := time.Now()
	quiet := 0
	for {
		var pending, done, open int
		err := pool.QueryRow(ctx, `
			SELECT count(*) FILTER (WHERE state IN ('available','pending','running','retryable','scheduled')),
			       count(*) FILTER (WHERE state = 'completed'),
			       (SELECT count(*) FROM tasks WHERE id = ANY($3::bigint[]) AND status <> 'completed')
			FROM river_job
			WHERE args ? 'task_id' AND args ->> 'task_id' = ANY($1::text[]) AND kind = ANY($2::text[])`,
			taskArgs(tasks), FleetKinds, tasks).Scan(&pending, &done, &open)
		if err != nil {
			return fmt.Errorf("wait for the fleet: %w", err)
		}
		if pending == 0 && (!untilCompleted || open == 0) {
			if quiet++; quiet >= 2 {
				return nil
			}
		} else {
			quiet = 0
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("wait for the fleet: %d jobs of %d tasks still pending after %s (%d completed, %d tasks open)", pending, len(tasks), timeout, done, open)
		}
		if progress != nil && time.Since(lastReport) >= 10*time.Second {
			lastReport = time.Now()
			fmt.Fprintf(progress, "eval: fleet running: %d jobs pending, %d completed, %d tasks open\n", pending, done, open)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for the fleet: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// taskArgs are task ids as river_job args hold them (text).
func taskArgs(tasks []int64) []string {
	out := make([]string, len(tasks))
	for i, t := range tasks {
		out[i] = fmt.Sprint(t)
	}
	return out
}

// tasks are the run's tasks: TaskIDs, or its one task.
func (r *FleetResult) tasks() []int64 {
	if len(r.TaskIDs) > 0 {
		return r.TaskIDs
	}
	return []int64{r.TaskID}
}

func readGraph(ctx context.Context, st *store.Store, res *FleetResult) error {
	res.Jobs = map[string]map[string]int{}
	for _, task := range res.tasks() {
		counts, err := st.TaskJobCounts(ctx, fmt.Sprint(task))
		if err != nil {
			return fmt.Errorf("job counts: %w", err)
		}
		for _, c := range counts {
			if res.Jobs[c.Kind] == nil {
				res.Jobs[c.Kind] = map[string]int{}
			}
			res.Jobs[c.Kind][c.State] += int(c.N)
			if c.State == "completed" && slices.Contains(FleetKinds, c.Kind) {
				res.JobsCompleted += int(c.N)
			}
		}
	}
	if res.WallSeconds > 0 {
		res.JobsPerSecond = float64(res.JobsCompleted) / res.WallSeconds
	}
	pool := st.DB()
	err := pool.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM task_pages WHERE task_id = ANY($1::bigint[])),
		       (SELECT count(*) FROM fragments f JOIN task_pages tp ON tp.page_version_id = f.page_version_id WHERE tp.task_id = ANY($1::bigint[])),
		       (SELECT count(*) FROM claims WHERE task_id = ANY($1::bigint[]) AND kind = 'extracted')`,
		res.tasks()).Scan(&res.Pages, &res.Fragments, &res.ExtractedClaims)
	if err != nil {
		return fmt.Errorf("count pages: %w", err)
	}
	res.EdgesByRelation = map[string]int{}
	rows, err := pool.Query(ctx, `
		SELECT e.relation, count(*) FROM edges e JOIN claims c ON c.id = e.target_id
		WHERE c.task_id = ANY($1::bigint[]) AND e.source_type = 'fragment' AND e.target_type = 'claim'
		  AND e.relation IN ('supports','refutes','neutral')
		GROUP BY e.relation`, res.tasks())
	if err != nil {
		return fmt.Errorf("count edges: %w", err)
	}
	for rows.Next() {
		var rel string
		var n int
		if err := rows.Scan(&rel, &n); err != nil {
			rows.Close()
			return fmt.Errorf("count edges: %w", err)
		}
		res.EdgesByRelation[rel] = n
		res.Edges += n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("count edges: %w", err)
	}
	if res.NLIModelsSeen, err = graphsnap.Strings(ctx, pool, `
		SELECT DISTINCT e.nli_model FROM edges e JOIN claims c ON c.id = e.target_id
		WHERE c.task_id = ANY($1::bigint[]) AND e.nli_model IS NOT NULL ORDER BY 1`, res.tasks()); err != nil {
		return fmt.Errorf("NLI models: %w", err)
	}
	if res.EmbedModelsSeen, err = graphsnap.Strings(ctx, pool, `
		SELECT DISTINCT f.embed_model FROM fragments f JOIN task_pages tp ON tp.page_version_id = f.page_version_id
		WHERE tp.task_id = ANY($1::bigint[]) AND f.embed_model IS NOT NULL ORDER BY 1`, res.tasks()); err != nil {
		return fmt.Errorf("embedding models: %w", err)
	}
	res.FailedTargets = []string{}
	for _, task := range res.tasks() {
		failed, err := st.TaskFailedTargets(ctx, task)
		if err != nil {
			return fmt.Errorf("failed targets: %w", err)
		}
		for _, f := range failed {
			res.FailedTargets = append(res.FailedTargets, f.Value+": "+f.Error)
		}
	}
	return nil
}

// readTimings summarises the finished jobs of the task per kind.
func readTimings(ctx context.Context, pool *pgxpool.Pool, tasks []int64, start time.Time) ([]KindTiming, error) {
	rows, err := pool.Query(ctx, `
		SELECT kind, count(*)::int,
		       COALESCE(EXTRACT(EPOCH FROM max(finalized_at) - $3::timestamptz), 0)::float8,
		       COALESCE(EXTRACT(EPOCH FROM sum(finalized_at - attempted_at)), 0)::float8,
		       COALESCE(EXTRACT(EPOCH FROM max(finalized_at - attempted_at)), 0)::float8
		FROM river_job
		WHERE args ? 'task_id' AND args ->> 'task_id' = ANY($1::text[]) AND kind = ANY($2::text[]) AND finalized_at IS NOT NULL
		GROUP BY kind ORDER BY 3`, taskArgs(tasks), FleetKinds, start)
	if err != nil {
		return nil, fmt.Errorf("job timings: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (KindTiming, error) {
		var k KindTiming
		err := r.Scan(&k.Kind, &k.Jobs, &k.LastFinishedAt, &k.BusySeconds, &k.LongestSeconds)
		return k, err
	})
	if err != nil {
		return nil, fmt.Errorf("job timings: %w", err)
	}
	if out == nil {
		out = []KindTiming{}
	}
	return out, nil
}

// scoreClaims compares each record's claim verdict with its gold label.
func scoreClaims(ctx context.Context, pool *pgxpool.Pool, records []corpus.Record, claimIDs []int64, res *FleetResult) error {
	rows, err := pool.Query(ctx, `SELECT id, verdict FROM claims WHERE id = ANY($1::bigint[])`, claimIDs)
	if err != nil {
		return fmt.Errorf("read verdicts: %w", err)
	}
	verdicts := map[int64]string{}
	for rows.Next() {
		var id int64
		var v string
		if err := rows.Scan(&id, &v); err != nil {
			rows.Close()
			return fmt.Errorf("read verdicts: %w", err)
		}
		verdicts[id] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read verdicts: %w", err)
	}
	res.Verdicts = map[string]int{}
	var c Confusion
	for i, r := range records {
		v, ok := verdicts[claimIDs[i]]
		if !ok {
			return fmt.Errorf("claim %s (id %d) has no row", r.ClaimID, claimIDs[i])
		}
		pred, ok := VerdictClass(v)
		if !ok {
			return fmt.Errorf("claim %s: unknown verdict %q", r.ClaimID, v)
		}
		gold, _ := ClaimGoldClass(r.ClaimLabel)
		res.Verdicts[v]++
		c.Add(gold, pred)
	}
	res.ClaimScores, err = Score(&c, ClaimClasses)
	return err
}

// scorePairs locates each gold evidence sentence among the fragments of its
// page version and compares the NLI edge of the claim and the fragment
// holding most of the sentence (see match.go) with the gold label.
func scorePairs(ctx context.Context, pool *pgxpool.Pool, records []corpus.Record, claimIDs []int64, res *FleetResult) error {
	pairs, skipped := GoldPairs(records)
	res.GoldPairs, res.SkippedEvidence = len(pairs), skipped

	type version struct {
		id      int64
		content string
		frags   []FragmentSpan
	}
	versions := map[string]*version{} // normalised page URL → version the task saw
	byID := map[int64]*version{}
	rows, err := pool.Query(ctx, `
		SELECT p.url, COALESCE(p.final_url, ''), pv.id, pv.content
		FROM task_pages tp JOIN pages p ON p.id = tp.page_id JOIN page_versions pv ON pv.id = tp.page_version_id
		WHERE tp.task_id = ANY($1::bigint[])`, res.tasks())
	if err != nil {
		return fmt.Errorf("read page versions: %w", err)
	}
	for rows.Next() {
		var u, final string
		v := &version{}
		if err := rows.Scan(&u, &final, &v.id, &v.content); err != nil {
			rows.Close()
			return fmt.Errorf("read page versions: %w", err)
		}
		versions[u] = v
		if final != "" {
			versions[final] = v
		}
		byID[v.id] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read page versions: %w", err)
	}
	ids := make([]int64, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	rows, err = pool.Query(ctx, `SELECT id, page_version_id, start_char, end_char FROM fragments WHERE page_version_id = ANY($1::bigint[])`, ids)
	if err != nil {
		return fmt.Errorf("read fragments: %w", err)
	}
	for rows.Next() {
		var f FragmentSpan
		var pv int64
		var s, e int32
		if err := rows.Scan(&f.ID, &pv, &s, &e); err != nil {
			rows.Close()
			return fmt.Errorf("read fragments: %w", err)
		}
		f.Start, f.End = int(s), int(e)
		byID[pv].frags = append(byID[pv].frags, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read fragments: %w", err)
	}

	type key struct{ claim, fragment int64 }
	edges := map[key]string{}
	rows, err = pool.Query(ctx, `
		SELECT target_id, source_id, COALESCE(nli_label, relation) FROM edges
		WHERE source_type = 'fragment' AND target_type = 'claim' AND relation IN ('supports','refutes','neutral')
		  AND target_id = ANY($1::bigint[])`, claimIDs)
	if err != nil {
		return fmt.Errorf("read edges: %w", err)
	}
	for rows.Next() {
		var k key
		var label string
		if err := rows.Scan(&k.claim, &k.fragment, &label); err != nil {
			rows.Close()
			return fmt.Errorf("read edges: %w", err)
		}
		edges[k] = label
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read edges: %w", err)
	}

	var c Confusion
	judged := make([]bool, len(pairs))
	for i, p := range pairs {
		norm, err := ident.NormalizeURL(p.URL)
		if err != nil {
			continue
		}
		v := versions[norm]
		if v == nil {
			continue
		}
		span, ok := Locate(v.content, p.Sentence)
		if !ok {
			continue
		}
		res.Located++
		ov := Overlaps(v.frags, span)
		if len(ov) > 1 {
			res.Straddling++
		}
		claim := claimIDs[p.Record]
		label, _, ok := PickEdge(ov, func(fid int64) (string, bool) {
			l, ok := edges[key{claim, fid}]
			return l, ok
		})
		if !ok {
			continue
		}
		res.Judged++
		judged[i] = true
		c.Add(p.Gold, label)
	}
	if res.PairScores, err = Score(&c, NLILabels); err != nil {
		return err
	}
	return scoreRetrieval(records, pairs, judged, res)
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
