package fleet_test

import (
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
)

// TestSIGTERMStopsSoftly sends SIGTERM to a worker process, idle or in the
// middle of work, and requires: /healthz and /readyz answered 200 while it
// ran; it exits 0 within EVF_SHUTDOWN_TIMEOUT plus a few seconds; the jobs
// it was running were allowed to finish (none left running, none cancelled
// by the shutdown).
func TestSIGTERMStopsSoftly(t *testing.T) {
	t.Parallel()
	// Long enough for a job running at the signal to end on a machine busy
	// with the package's other process tests: the exit comes as soon as the
	// jobs have ended, not at the timeout.
	const shutdownTimeout = 15 * time.Second
	const grace = 5 * time.Second
	tests := []struct {
		name string
		busy bool // SIGTERM while jobs are running
	}{
		{name: "idle", busy: false},
		{name: "busy", busy: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := climateWorkload(t, 20)
			url := pgtest.URL(t)
			pool := openPool(t, url)
			if tc.busy {
				seedTask(t, pool, w, w.claims, true)
			}
			addr := freeAddr(t)
			env := deterministicEnv()
			env["EVF_METRICS_ADDR"] = addr
			env["EVF_SHUTDOWN_TIMEOUT"] = shutdownTimeout.String()
			p := startWorker(t, "worker", workerEnv(url, w.archive, env))

			client := &http.Client{Timeout: 2 * time.Second}
			status := map[string]int{}
			get := func(path string) int {
				resp, err := client.Get("http://" + addr + path)
				if err != nil {
					return 0
				}
				defer resp.Body.Close()
				_, _ = io.Copy(io.Discard, resp.Body)
				return resp.StatusCode
			}
			up := pollUntil(30*time.Second, 20*time.Millisecond, func() bool {
				if !p.running() {
					return true
				}
				for _, path := range []string{"/healthz", "/readyz"} {
					status[path] = get(path)
				}
				return status["/healthz"] == http.StatusOK && status["/readyz"] == http.StatusOK
			})
			if !p.running() {
				t.Fatalf("worker exited before it was signalled\n%s", p.logTail(40))
			}
			if !up {
				t.Fatalf("worker not healthy and ready within 30s: /healthz %d, /readyz %d\n%s",
					status["/healthz"], status["/readyz"], p.logTail(40))
			}
			if code := get("/metrics"); code != http.StatusOK {
				t.Errorf("/metrics answered %d, want 200", code)
			}

			var running []string
			if tc.busy {
				ok := pollUntil(30*time.Second, 5*time.Millisecond, func() bool {
					running = queryStrings(t, pool, `SELECT id::text FROM river_job WHERE state = 'running' ORDER BY id`)
					return len(running) > 0
				})
				if !ok {
					t.Fatalf("no job ever ran\n%s\n%s", testfleet.JobDump(t, pool), p.logTail(40))
				}
			}

			start := time.Now()
			p.signal(t, syscall.SIGTERM)
			code, exited := p.wait(shutdownTimeout + grace)
			elapsed := time.Since(start)
			if !exited {
				t.Fatalf("worker still running %s after SIGTERM (EVF_SHUTDOWN_TIMEOUT=%s)\n%s",
					shutdownTimeout+grace, shutdownTimeout, p.logTail(40))
			}
			t.Logf("exit code %d %s after SIGTERM, with %d jobs running at the signal", code, elapsed.Round(time.Millisecond), len(running))
			if code != 0 {
				t.Errorf("exit code %d after SIGTERM, want 0\n%s", code, p.logTail(40))
			}
			log := p.log()
			for _, want := range []string{"shutting down", "worker stopped"} {
				if !strings.Contains(log, want) {
					t.Errorf("worker log lacks %q\n%s", want, p.logTail(40))
				}
			}
			if strings.Contains(log, "soft stop timed out") {
				t.Errorf("soft stop timed out: running jobs were cancelled\n%s", p.logTail(40))
			}
			if get("/healthz") != 0 {
				t.Errorf("/healthz still answers after the worker exited")
			}

			stuck := queryStrings(t, pool, `SELECT concat_ws(' ', id, kind) FROM river_job WHERE state = 'running'`)
			if len(stuck) > 0 {
				t.Errorf("jobs left running after a graceful stop: %v\n%s", stuck, testfleet.JobDump(t, pool))
			}
			if len(running) > 0 {
				failed := queryStrings(t, pool, `SELECT concat_ws(' ', id, kind, state, errors[array_length(errors, 1)]->>'error')
					FROM river_job WHERE id::text = ANY($1::text[]) AND (state NOT IN ('completed', 'available', 'scheduled')
					OR COALESCE(array_length(errors, 1), 0) > 0)`, running)
				if len(failed) > 0 {
					t.Errorf("jobs running at SIGTERM did not finish cleanly: %v", failed)
				}
			}
		})
	}
}
