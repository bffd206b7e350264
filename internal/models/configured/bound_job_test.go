package configured_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// The job's side of issue 24, point 5: an embed job whose TEI server
// answers 64 MiB of numbers is refused at the answer's bound, recorded and
// retried with River's backoff like any garbage answer, until its attempts
// are used up — never looping, never reading 64 MiB. It measures allocation
// (runtime.MemStats.TotalAlloc, the whole process), so it does not run in
// parallel.
func TestEmbedJobMeetingA64MiBAnswerIsRetriedThenDiscarded(t *testing.T) {
	const body = 64<<20 + 1<<10
	var requests atomic.Int64
	block := bytes.Repeat([]byte("-0.0123456789012345,"), 3200)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if _, err := w.Write([]byte("[[")); err != nil {
			return
		}
		for left := body; left > 0; left -= len(block) {
			if _, err := w.Write(block); err != nil {
				return
			}
		}
		_, _ = w.Write([]byte("0.5]]"))
	}))
	t.Cleanup(srv.Close)
	f := testfleet.InTx(t, testfleet.Options{
		Pages: []corpus.Page{testfleet.Page("https://en.wikipedia.org/wiki/Sea_level_rise", "Sea level rise",
			"Between 1901 and 2018, the global mean sea level rose by 15 to 25 centimetres.",
			"The rate of sea level rise has accelerated in recent decades.")},
		Adjust: func(c *config.Config) {
			c.Embed = config.Model{Backend: "tei", URL: srv.URL, ModelName: "BAAI/bge-small-en-v1.5"}
		},
	})
	task := f.CreateTask(t, "Sea level rise is accelerating.")
	f.AddTargets(t, task, "https://en.wikipedia.org/wiki/Sea_level_rise")
	f.Drain(t, jobs.KindTargetQueue)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := f.WorkNext(t, jobs.KindEmbed)
	runtime.ReadMemStats(&after)
	if r == nil {
		t.Fatal("no embed job was queued")
	}
	id := r.Job.ID
	state, lastErr, _ := testfleet.JobRow(t, f.Tx, id)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("attempt 1: job %s, allocated %.1f MiB while the server answered %.0f MiB; error: %s",
		state, float64(alloc)/(1<<20), float64(body)/(1<<20), lastErr)
	const bound = "answer with an item over 384.2 KiB for one embedding (dimension not known yet, at most 8192 assumed)"
	if state != "retryable" && state != "available" { // a short backoff is left available (River's scheduler)
		t.Errorf("after an oversized answer the job is %s, want it retried", state)
	}
	if !strings.Contains(lastErr, remoteerr.ErrBadResponse.Error()) || !strings.Contains(lastErr, bound) {
		t.Errorf("recorded error %q does not name the bound %q as a garbage answer", lastErr, bound)
	}
	if alloc > 32<<20 {
		t.Errorf("allocated %.1f MiB working the job, want at most 32 MiB", float64(alloc)/(1<<20))
	}

	f.Drain(t, jobs.KindEmbed)
	var attempts, maxAttempts, errs int
	if err := f.Tx.QueryRow(context.Background(), `SELECT state, attempt, max_attempts, cardinality(errors) FROM river_job WHERE id = $1`, id).
		Scan(&state, &attempts, &maxAttempts, &errs); err != nil {
		t.Fatal(err)
	}
	t.Logf("in the end: job %s after %d of %d attempts, %d errors recorded, %d requests", state, attempts, maxAttempts, errs, requests.Load())
	if state != "discarded" || attempts != maxAttempts || errs != maxAttempts || requests.Load() != int64(maxAttempts) {
		t.Errorf("job %s after %d of %d attempts with %d errors and %d requests; want discarded after every attempt, one request each",
			state, attempts, maxAttempts, errs, requests.Load())
	}
}
