package workers_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// settled works the task's one target to its end and returns the target's
// status and error and the job's final state, attempts and snoozes.
func settled(t *testing.T, f *testfleet.TxFleet, task int64) (status, reason, state string, attempts, snoozes int) {
	t.Helper()
	f.Drain(t)
	if err := f.Tx.QueryRow(t.Context(), `SELECT t.status, COALESCE(t.error, ''), j.state, j.attempt, COALESCE((j.metadata->>'snoozes')::int, 0)
		FROM targets t JOIN river_job j ON j.kind = 'target_queue' AND (j.args->>'task_id')::bigint = t.task_id
		WHERE t.task_id = $1`, task).Scan(&status, &reason, &state, &attempts, &snoozes); err != nil {
		t.Fatalf("target of task %d: %v\n%s", task, err, testfleet.JobDump(t, f.Tx))
	}
	return status, reason, state, attempts, snoozes
}

// TestDayLongRetryAfterEndsFailedWithinTheCap: a server answering every
// request 429 with Retry-After of a day parks the job at most
// EVF_SERVER_WAIT_SNOOZES times for at most EVF_SERVER_WAIT_MAX each; then
// each refusal is an attempt, and the last fails the target.
func TestDayLongRetryAfterEndsFailedWithinTheCap(t *testing.T) {
	t.Parallel()
	const url = "https://busy.example.org/article"
	f := testfleet.InTx(t, testfleet.Options{Pages: []corpus.Page{{URL: url, ContentType: "text/html", Body: []byte("slow down"),
		Status: http.StatusTooManyRequests, Headers: map[string]string{"Retry-After": "86400"}}}})
	task := f.CreateTask(t, "Busy servers answer eventually.")
	f.AddTargets(t, task, url)
	waits := f.Config.ServerWaitMax
	for {
		before := time.Now()
		res := f.WorkNext(t, jobs.KindTargetQueue)
		if res == nil {
			break
		}
		if res.EventKind == river.EventKindJobSnoozed {
			if wait := res.Job.ScheduledAt.Sub(before); wait > waits+time.Minute {
				t.Errorf("snoozed for %s, want at most EVF_SERVER_WAIT_MAX %s", wait.Round(time.Second), waits)
			}
		}
	}
	status, reason, state, attempts, snoozes := settled(t, f, task)
	if status != "failed" || !strings.Contains(reason, "429") || !strings.Contains(reason, "giving up after") {
		t.Errorf("target %s (%q), want failed naming the 429 and the attempts", status, reason)
	}
	if state != "cancelled" || snoozes != f.Config.ServerWaitSnoozes || attempts != 8 {
		t.Errorf("job %s after %d attempts and %d snoozes, want cancelled after 8 and %d", state, attempts, snoozes, f.Config.ServerWaitSnoozes)
	}
}

// TestGarbageLLMAnswerFailsTheTargetOnItsLastAttempt: an LLM that never
// answers in the expected format makes the job retry; its last attempt
// fails the target with the reason instead of leaving it "seen" behind a
// discarded job.
func TestGarbageLLMAnswerFailsTheTargetOnItsLastAttempt(t *testing.T) {
	t.Parallel()
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"x","object":"chat.completion","created":0,"model":"garbage","choices":[{"index":0,"message":{"role":"assistant","content":"bananas are yellow"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":3,"total_tokens":4}}`)
	}))
	t.Cleanup(llm.Close)
	const url = "https://garbage-llm.example.org/page"
	f := testfleet.InTx(t, testfleet.Options{Pages: []corpus.Page{testfleet.Page(url, "Sea ice",
		"Arctic sea ice has declined in recent decades in area and volume.")},
		Adjust: func(c *config.Config) {
			c.LLM = config.Model{Backend: "openai", URL: llm.URL + "/v1", ModelName: "garbage", Concurrency: 2, Retries: 0,
				BreakerFailures: 1000, BreakerCooldown: time.Second}
		}})
	task := f.CreateTask(t, "Arctic sea ice is declining.")
	f.AddTargets(t, task, url)
	status, reason, state, attempts, _ := settled(t, f, task)
	if status != "failed" || !strings.Contains(reason, "giving up after 8 attempts") || !strings.Contains(reason, "extract claims") {
		t.Errorf("target %s (%q), want failed giving up on the claim extraction", status, reason)
	}
	if state != "cancelled" || attempts != 8 {
		t.Errorf("job %s after %d attempts, want cancelled after 8", state, attempts)
	}
}

// TestThousandsOfDeclaredIDsTakeBoundedLocks: a page declaring 20,000 DOIs
// about itself and linking 20,000 more is stored with a bounded number of
// advisory locks (one per kept id), not one per declared id, which would
// exhaust Postgres's lock table ("out of shared memory").
func TestThousandsOfDeclaredIDsTakeBoundedLocks(t *testing.T) {
	t.Parallel()
	const url = "https://ids.example.org/paper"
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Many ids</title>`)
	for i := range 20000 {
		fmt.Fprintf(&b, `<meta name="citation_doi" content="10.5555/self.%d">`, i)
	}
	b.WriteString(`</head><body><article><h1>Many ids</h1><p>Arctic sea ice has declined in recent decades in area and volume.</p><p>`)
	for i := range 20000 {
		fmt.Fprintf(&b, `doi:10.5555/linked.%d `, i)
	}
	b.WriteString(`</p></article></body></html>`)
	f := testfleet.InTx(t, testfleet.Options{Pages: []corpus.Page{{URL: url, ContentType: "text/html", Body: []byte(b.String())}},
		Adjust: func(c *config.Config) { c.PageMaxElements = 50_000 }})
	task := f.CreateTask(t, "Arctic sea ice is declining.")
	f.AddTargets(t, task, url)
	status, reason, state, _, _ := settled(t, f, task)
	if status != "extracted" || state != "completed" {
		t.Fatalf("target %s (%q), job %s; want extracted and completed", status, reason, state)
	}
	var locks int
	if err := f.Tx.QueryRow(t.Context(), `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()`).Scan(&locks); err != nil {
		t.Fatal(err)
	}
	if locks > 300 {
		t.Errorf("%d advisory locks held, want at most 300", locks)
	}
}
