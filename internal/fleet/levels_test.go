package fleet_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestLevelChangeReachesBothWorkerProcesses: no worker process keeps domain
// levels in memory (verify_nli reads a fragment's level when it builds the
// pairs, rerank when it ranks), so a level a person changes with the real
// `enqueue domain set` is the level the next jobs of every process stamp.
// Two processes take in the pages (Wikipedia: LOW by the built-in policy);
// the CLI sets en.wikipedia.org TRUSTED; then new claims, each verified by
// a job of its own, and a ranking for each come in rounds until each process
// has judged a claim. Every NLI edge and ranked row written after the
// change carries TRUSTED, and the jobs' attempted_by (each process logs its
// client id) names which process wrote them.
func TestLevelChangeReachesBothWorkerProcesses(t *testing.T) {
	t.Parallel() // with the other process tests that mark themselves so
	enqueue := buildEnqueue(t)
	w := climateWorkload(t, 6)
	url := pgtest.URL(t)
	pool := openPool(t, url)
	env := deterministicEnv()
	env["EVF_NLI_WORKERS"], env["EVF_RERANK_WORKERS"] = "1", "1" // one job of a kind at a time: both processes take some
	task := seedTask(t, pool, w, nil, true)
	a := startWorker(t, "a", workerEnv(url, w.archive, env))
	b := startWorker(t, "b", workerEnv(url, w.archive, env))
	waitIdle(t, pool, 60*time.Second, a, b)
	const domain = "en.wikipedia.org"
	if got := nliLevelsFrom(t, pool, domain); len(got) != 1 || got["LOW"] == 0 {
		t.Fatalf("NLI edges from %s before the change by source level: %v, want LOW only", domain, got)
	}
	names := map[string]string{clientID(t, a): a.name, clientID(t, b): b.name}

	var changed struct {
		OldLevel string `json:"old_level"`
		Level    string `json:"level"`
		Changed  bool   `json:"changed"`
	}
	out := runEnqueue(t, enqueue, url, "domain", "set", domain, "TRUSTED", "--reason", "checked by the fleet test", "--by", "levels-test", "--json")
	if err := json.Unmarshal(out, &changed); err != nil || !changed.Changed || changed.OldLevel != "LOW" || changed.Level != "TRUSTED" {
		t.Fatalf("enqueue domain set: %s (%v), want LOW → TRUSTED", out, err)
	}
	setAt := time.Now()
	lastJob := int64(queryInt(t, pool, `SELECT COALESCE(max(id), 0) FROM river_job`))

	judged := map[string]int{} // claims judged after the change, by process
	ranked := map[string]int{} // rankings made after the change, by process
	firstDone := map[string]time.Duration{}
	for round := 0; judged[a.name] == 0 || judged[b.name] == 0; round++ {
		if round == 10 {
			t.Fatalf("after %d rounds, claims judged by process: %v: the two processes did not both take work", round, judged)
		}
		addJudgedClaims(t, pool, task, w, round, 4)
		waitIdle(t, pool, 60*time.Second, a, b)
		for _, j := range jobsAfter(t, pool, lastJob) {
			name, ok := names[j.client]
			if !ok {
				t.Fatalf("job %d (%s) attempted by %q, neither worker's client id %v", j.id, j.kind, j.client, names)
			}
			if d, seen := firstDone[name]; !seen || j.finalized.Sub(setAt) < d {
				firstDone[name] = j.finalized.Sub(setAt)
			}
			switch j.kind {
			case jobs.KindVerifyNLI:
				levels := nliLevelsOf(t, pool, j.claim)
				switch {
				case len(levels) == 0: // nothing recalled for it: the claim shows nothing
				case len(levels) != 1 || levels["TRUSTED"] == 0:
					t.Errorf("claim %d, judged by process %s (job %d) after the change: NLI edges by source level %v, want TRUSTED only",
						j.claim, name, j.id, levels)
				default:
					judged[name]++
				}
			case jobs.KindRerank:
				rows := queryStrings(t, pool, `SELECT DISTINCT format('%s %s', trust_level, trust_weight) FROM task_rankings
					WHERE task_id = $1 AND query = $2`, task, j.query)
				if len(rows) != 1 || rows[0] != "TRUSTED 0.75" {
					t.Errorf("ranking for %q by process %s (job %d) after the change: levels and weights %v, want TRUSTED 0.75",
						j.query, name, j.id, rows)
				}
				ranked[name]++
			}
			lastJob = max(lastJob, j.id)
		}
	}
	if got := nliLevelsFrom(t, pool, domain); got["LOW"] == 0 || got["TRUSTED"] == 0 || len(got) != 2 {
		t.Errorf("NLI edges from %s by source level: %v, want the LOW ones from before the change and TRUSTED ones after", domain, got)
	}
	t.Logf("after the CLI's change: claims judged by process %v, rankings made %v; first job of each finished %v after the change",
		judged, ranked, firstDone)
	a.stop(t, 15*time.Second)
	b.stop(t, 15*time.Second)
}

// buildEnqueue builds the real enqueue command (with the race detector when
// this test binary has it, so the build reuses the test's compiled packages)
// and returns its path.
func buildEnqueue(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "enqueue")
	args := []string{"build", "-o", bin}
	if info, ok := debug.ReadBuildInfo(); ok && slices.ContainsFunc(info.Settings, func(s debug.BuildSetting) bool {
		return s.Key == "-race" && s.Value == "true"
	}) {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "github.com/evidencefleet/evidencefleet/cmd/enqueue")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(cmd.Args[1:], " "), err, out)
	}
	return bin
}

// runEnqueue runs the enqueue command against the database and returns
// its standard output; it fails the test unless the command exits 0.
func runEnqueue(t *testing.T, bin, dbURL string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--database-url", dbURL}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("enqueue %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return out
}

var clientIDLog = regexp.MustCompile(`msg="worker started" client_id=(\S+)`)

// clientID is the River client id a worker process logged when it started.
func clientID(t *testing.T, p *workerProc) string {
	t.Helper()
	m := clientIDLog.FindStringSubmatch(p.log())
	if m == nil {
		t.Fatalf("worker %s logged no client id\n%s", p.name, p.logTail(20))
	}
	return m[1]
}

// addJudgedClaims adds n new hypothesis claims to the task, each with a
// verify_nli job of its own (a shard of that one claim) and a rerank job
// for its text, in one transaction. The store's AddHypotheses enqueues no
// dispatch, so no other job judges these claims.
func addJudgedClaims(t *testing.T, pool *pgxpool.Pool, task int64, w workload, round, n int) {
	t.Helper()
	ctx := context.Background()
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("%s (round %d, claim %d)", w.claims[(round*n+i)%len(w.claims)], round, i)
	}
	client := insertOnlyClient(t, pool)
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // no-op after commit
	added, err := store.New(tx).AddHypotheses(ctx, task, texts)
	if err != nil {
		t.Fatalf("add claims: %v", err)
	}
	var params []river.InsertManyParams
	for i, c := range added {
		params = append(params, river.InsertManyParams{Args: jobs.VerifyShard(task, c.ID, c.ID)},
			river.InsertManyParams{Args: jobs.RerankArgs{TaskID: task, Query: texts[i], TopK: 5}})
	}
	if _, err := client.InsertManyTx(ctx, tx, params); err != nil {
		t.Fatalf("insert jobs: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// finishedJob is a verify_nli shard or rerank job with the process that
// worked it.
type finishedJob struct {
	id        int64
	kind      string
	claim     int64  // verify_nli: the shard's one claim
	query     string // rerank
	client    string // attempted_by of its last attempt
	finalized time.Time
}

// jobsAfter returns the verify_nli and rerank jobs after id, in order; each
// must have completed.
func jobsAfter(t *testing.T, pool *pgxpool.Pool, id int64) []finishedJob {
	t.Helper()
	rows, err := pool.Query(context.Background(), `
		SELECT id, kind, state, COALESCE((args->>'claim_from')::bigint, 0), COALESCE(args->>'query', ''),
		       COALESCE(attempted_by[cardinality(attempted_by)], ''), COALESCE(finalized_at, now())
		FROM river_job WHERE id > $1 AND kind IN ('verify_nli', 'rerank') ORDER BY id`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []finishedJob
	for rows.Next() {
		var j finishedJob
		var state string
		if err := rows.Scan(&j.id, &j.kind, &state, &j.claim, &j.query, &j.client, &j.finalized); err != nil {
			t.Fatal(err)
		}
		if state != "completed" {
			t.Fatalf("%s job %d ended %s", j.kind, j.id, state)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// nliLevelsOf counts a claim's NLI edges by source trust level.
func nliLevelsOf(t *testing.T, pool *pgxpool.Pool, claim int64) map[string]int {
	t.Helper()
	return levelCounts(t, pool, `SELECT COALESCE(source_trust_level, 'none'), count(*)::int FROM edges
		WHERE target_type = 'claim' AND target_id = $1 AND relation IN `+nliRelations+` GROUP BY 1`, claim)
}

// nliLevelsFrom counts the NLI edges from a domain's fragments by source
// trust level.
func nliLevelsFrom(t *testing.T, pool *pgxpool.Pool, domain string) map[string]int {
	t.Helper()
	return levelCounts(t, pool, `SELECT COALESCE(e.source_trust_level, 'none'), count(*)::int FROM edges e
		JOIN fragments f ON f.id = e.source_id JOIN pages p ON p.id = f.page_id
		WHERE e.source_type = 'fragment' AND e.relation IN `+nliRelations+` AND p.domain = $1
		GROUP BY 1`, domain)
}

func levelCounts(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) map[string]int {
	t.Helper()
	rows, err := pool.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var level string
		var n int
		if err := rows.Scan(&level, &n); err != nil {
			t.Fatal(err)
		}
		out[level] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
