package fleet_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	evferrs "github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/models"
)

// slowLLM is the test chat server whose first claim extraction is held:
// entered is closed when it arrives, and it answers once hold returns.
type slowLLM struct {
	servers *testfleet.ModelServers
	entered chan struct{}
	once    sync.Once
}

func newSlowLLM(t *testing.T, hold func()) *slowLLM {
	s := &slowLLM{servers: testfleet.StartModelServers(t), entered: make(chan struct{})}
	s.servers.EditClaims = func(_ string, claims []models.LLMClaim) []models.LLMClaim {
		first := false
		s.once.Do(func() { first = true; close(s.entered) })
		if first {
			hold()
		}
		return claims
	}
	return s
}

// lifelineRun is one task with one target whose claim extraction goes to
// the slow LLM, and the environment of its worker processes.
func lifelineRun(t *testing.T, llm *slowLLM, extra map[string]string) (workload, map[string]string) {
	t.Helper()
	const url = "https://lifeline.example.org/sea-ice"
	dir := t.TempDir()
	if err := corpus.WriteArchive(dir, []corpus.Page{testfleet.Page(url, "Sea ice",
		"Arctic sea ice has declined in recent decades in area and volume.",
		"Polar bears depend on the sea ice to hunt seals.")}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"EVF_LLM_BACKEND": "openai", "EVF_LLM_URL": llm.servers.OpenAI.URL + "/v1", "EVF_LLM_MODEL": "sentences"}
	for k, v := range extra {
		env[k] = v
	}
	return workload{archive: dir, hypothesis: "Arctic sea ice is declining.", urls: []string{url}}, env
}

// TestKilledWorkersJobResumesWithinSeconds: a worker killed with SIGKILL in
// the middle of a job, under the default settings (River's own rescuer
// waits 15 minutes): another process finds its liveness lock free and the
// job completes there within 20 s of the kill.
func TestKilledWorkersJobResumesWithinSeconds(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	llm := newSlowLLM(t, func() { <-release })
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	w, env := lifelineRun(t, llm, nil)
	url := pgtest.URL(t)
	pool := openPool(t, url)
	seedTask(t, pool, w, nil, true)

	doomed := startWorker(t, "doomed", workerEnv(url, w.archive, env))
	select {
	case <-llm.entered:
	case <-time.After(60 * time.Second):
		t.Fatalf("the target_queue job never reached claim extraction\n%s", doomed.logTail(30))
	}
	survivor := startWorker(t, "survivor", workerEnv(url, w.archive, env))
	doomed.kill(t)
	killed := time.Now()
	close(release)

	done := pollUntil(60*time.Second, 50*time.Millisecond, func() bool {
		return queryInt(t, pool, `SELECT count(*) FROM river_job WHERE kind = 'target_queue' AND state = 'completed'`) == 1
	})
	took := time.Since(killed)
	if !done {
		t.Fatalf("the killed worker's job did not complete elsewhere\n%s\n%s", testfleet.JobDump(t, pool), survivor.logTail(30))
	}
	// Logged, not asserted: the recorded rescue below is the lifeline's
	// (River's own rescuer would wait 15 minutes and say so otherwise).
	t.Logf("completed on another process %s after the kill", took.Round(100*time.Millisecond))
	var attemptedBy, errs []string
	if err := pool.QueryRow(t.Context(), `SELECT attempted_by, ARRAY(SELECT e->>'error' FROM unnest(errors) e)
		FROM river_job WHERE kind = 'target_queue'`).Scan(&attemptedBy, &errs); err != nil {
		t.Fatal(err)
	}
	if len(attemptedBy) != 2 || attemptedBy[0] == attemptedBy[1] || len(errs) != 1 || !strings.Contains(errs[0], evferrs.WorkerDied) {
		t.Errorf("attempted by %v with errors %q: want two processes and the rescue recorded", attemptedBy, errs)
	}
	if !strings.Contains(survivor.log(), "rescued a job of a dead worker process") {
		t.Error("no log line for the rescue")
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM targets WHERE status = 'extracted'`); n != 1 {
		t.Errorf("%d extracted targets, want 1", n)
	}
}

// TestLiveSlowWorkerIsNeverRescued: a job that runs for many rescue
// intervals on a live process, with another process watching, is never
// taken from it.
func TestLiveSlowWorkerIsNeverRescued(t *testing.T) {
	t.Parallel()
	const interval = 300 * time.Millisecond
	llm := newSlowLLM(t, func() { time.Sleep(15 * interval) })
	w, env := lifelineRun(t, llm, map[string]string{"EVF_LIFELINE_INTERVAL": interval.String()})
	url := pgtest.URL(t)
	pool := openPool(t, url)
	seedTask(t, pool, w, nil, true)

	slow := startWorker(t, "slow", workerEnv(url, w.archive, env))
	select {
	case <-llm.entered:
	case <-time.After(60 * time.Second):
		t.Fatalf("the target_queue job never reached claim extraction\n%s", slow.logTail(30))
	}
	watcher := startWorker(t, "watcher", workerEnv(url, w.archive, env))
	if !pollUntil(60*time.Second, 50*time.Millisecond, func() bool {
		return queryInt(t, pool, `SELECT count(*) FROM river_job WHERE kind = 'target_queue' AND state = 'completed'`) == 1
	}) {
		t.Fatalf("the slow job did not complete\n%s\n%s", testfleet.JobDump(t, pool), slow.logTail(30))
	}
	var attempt int
	var attemptedBy, errs []string
	if err := pool.QueryRow(t.Context(), `SELECT attempt, attempted_by, ARRAY(SELECT e->>'error' FROM unnest(errors) e)
		FROM river_job WHERE kind = 'target_queue'`).Scan(&attempt, &attemptedBy, &errs); err != nil {
		t.Fatal(err)
	}
	if attempt != 1 || len(attemptedBy) != 1 || len(errs) != 0 {
		t.Errorf("attempt %d by %v with errors %q: the live process's job was taken from it", attempt, attemptedBy, errs)
	}
	if strings.Contains(watcher.log(), "rescued a job") {
		t.Errorf("the watcher rescued a job of a live process:\n%s", watcher.logTail(20))
	}
}
