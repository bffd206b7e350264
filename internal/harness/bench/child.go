package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/fleet"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/store"
)

// The harness measures workers in their own processes, so that CPU time
// and peak RSS are the worker's alone: it runs its own executable with the
// "child" command. A child prints readyLine once its River client runs,
// works until SIGTERM, stops gracefully and prints its counters as JSON.
const readyLine = "fleetbench-child-ready"

// NoopArgs is the River baseline's job: it does nothing.
type NoopArgs struct {
	N int `json:"n"`
}

// Kind implements river.JobArgs.
func (NoopArgs) Kind() string { return "bench_noop" }

// profileDirEnv names a directory where children write CPU profiles.
const profileDirEnv = "FLEETBENCH_PROFILE_DIR"

// noopQueue is the queue of the River baseline.
const noopQueue = "bench"

// childReport is what a child prints when it stops.
type childReport struct {
	RoundTrips float64 `json:"round_trips"`
	// PeakRSS is the child's own VmHWM at its end: getrusage's ru_maxrss
	// of a child counts the harness's resident set at the fork (see
	// readHWM), which grows past a worker's once the harness has loaded a
	// few sections' data.
	PeakRSS   int64 `json:"peak_rss,omitempty"`
	PairReads int64 `json:"pair_reads,omitempty"` // verify-arm: PairFragments reads through the arm's pool
}

// RunChild is the child side: mode "fleet" runs the evidencefleet worker
// (queues and tuning from the EVF_* environment, as the worker binary),
// mode "noop" a River client with a no-op worker and the same River
// settings, on queue "bench" with -workers slots, mode "verify-arm" the
// fleet's workers in an arm of the trust-stamping comparison (stamping.go),
// mode "instant-server" the instant NLI over HTTP (instant.go) on -listen.
func RunChild(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("child", flag.ContinueOnError)
	mode := fs.String("mode", "fleet", "fleet or noop")
	workers := fs.Int("workers", 100, "noop: concurrent jobs")
	listen := fs.String("listen", "127.0.0.1:0", instantServerMode+": address to serve on")
	riverDefaults := fs.Bool("river-defaults", false, "noop: River's default fetch cooldown and poll interval, not the fleet's")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *mode == instantServerMode {
		return runInstantServer(*listen, stdout)
	}
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if dir := os.Getenv(profileDirEnv); dir != "" {
		name := fmt.Sprintf("%s-%s-%d.pprof", *mode, strings.Join(cfg.Queues, "+"), os.Getpid())
		if *mode == "noop" {
			name = fmt.Sprintf("noop-%d.pprof", os.Getpid())
		}
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	var m *metrics.Metrics
	var halt func() error
	var arm *armDB
	switch *mode {
	case "fleet":
		var opts []fleet.Option
		if os.Getenv(nliEnv) == instantInProcess {
			opts = append(opts, fleet.WithNLI(instantNLI{}))
		}
		w, err := fleet.New(ctx, cfg, log, opts...)
		if err != nil {
			return err
		}
		if err := w.Start(context.WithoutCancel(ctx)); err != nil {
			return err
		}
		m = w.Metrics()
		halt = func() error { return w.Stop(time.Minute) }
	case "noop":
		m = metrics.New()
		if halt, err = startNoop(ctx, cfg, log, m, *workers, *riverDefaults); err != nil {
			return err
		}
	case armMode:
		m = metrics.New()
		if halt, arm, err = startArm(ctx, cfg, log, m); err != nil {
			return err
		}
	default:
		return fmt.Errorf("child: unknown mode %q (want fleet, noop or %s)", *mode, armMode)
	}
	fmt.Fprintln(stdout, readyLine)
	<-ctx.Done()
	if err := halt(); err != nil {
		return fmt.Errorf("child: stop: %w", err)
	}
	rt, err := m.Sum("evidencefleet_db_round_trips_total", nil)
	if err != nil {
		return err
	}
	rep := childReport{RoundTrips: rt, PeakRSS: statusBytes(os.Getpid(), "VmHWM")}
	if arm != nil {
		rep.PairReads = arm.reads.Load()
	}
	return json.NewEncoder(stdout).Encode(rep)
}

// startNoop starts River's baseline: a client with the worker's River
// settings (fleet.Build's, without the fleet's middleware and workers, and
// the fetch cooldown of a fleet queue of as many slots; with riverDefaults,
// River's own fetch cooldown and poll interval) and a no-op
// worker on noopQueue with the given slots, on a pool sized as for a worker
// with that many.
func startNoop(ctx context.Context, cfg config.Config, log *slog.Logger, m *metrics.Metrics, slots int, riverDefaults bool) (halt func() error, err error) {
	cfg.Queues, cfg.TargetWorkers = []string{"target"}, slots
	pool, err := fleet.NewPool(ctx, cfg, m)
	if err != nil {
		return nil, err
	}
	parts, err := fleet.Build(cfg, store.NewStore(pool), log, m)
	if err != nil {
		pool.Close()
		return nil, err
	}
	parts.Fetcher.Close()
	ws := river.NewWorkers()
	river.AddWorker(ws, river.WorkFunc(func(context.Context, *river.Job[NoopArgs]) error { return nil }))
	rc := parts.River
	rc.Middleware, rc.Workers = nil, ws
	rc.Queues = map[string]river.QueueConfig{noopQueue: {MaxWorkers: slots, FetchCooldown: workers.FetchCooldown(slots)}}
	if riverDefaults {
		rc.FetchCooldown, rc.FetchPollInterval = 0, 0
		rc.Queues[noopQueue] = river.QueueConfig{MaxWorkers: slots}
	}
	client, err := river.NewClient(riverpgxv5.New(pool), rc)
	if err != nil {
		pool.Close()
		return nil, err
	}
	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		pool.Close()
		return nil, err
	}
	return func() error {
		sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err := client.Stop(sctx)
		pool.Close()
		return err
	}, nil
}

// proc is a child process seen from the harness.
type proc struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr *tailBuffer
}

// procStats is what one child used.
type procStats struct {
	CPUSeconds float64 // user + system
	MaxRSS     int64   // bytes, peak resident set (its own VmHWM, else getrusage's)
	RoundTrips float64 // statements, batches and COPYs it sent to Postgres
	PairReads  int64   // verify-arm: PairFragments reads through the arm's pool
}

// startProc starts exe as a child in mode with env added to the harness's
// environment, and waits until it is working.
func startProc(exe string, env []string, mode string, extra ...string) (*proc, error) {
	args := append([]string{"child", "-mode", mode}, extra...)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, lines: make(chan string, 16), stderr: &tailBuffer{max: 8 << 10}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start child: %w", err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	select {
	case l, ok := <-p.lines:
		if ok && l == readyLine {
			return p, nil
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("child did not start (%q): %s", l, p.stderr.String())
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("child did not start within a minute: %s", p.stderr.String())
	}
}

// stop ends the child gracefully and reads what it used.
func (p *proc) stop() (procStats, error) {
	var st procStats
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return st, fmt.Errorf("signal child: %w", err)
	}
	var rep childReport
	var parseErr error
	for l := range p.lines {
		if strings.HasPrefix(l, "{") {
			parseErr = json.Unmarshal([]byte(l), &rep)
		}
	}
	if err := p.cmd.Wait(); err != nil {
		return st, fmt.Errorf("child: %w: %s", err, p.stderr.String())
	}
	if parseErr != nil {
		return st, fmt.Errorf("child report: %w", parseErr)
	}
	st, err := usageOf(p.cmd.ProcessState)
	if err != nil {
		return st, err
	}
	st.RoundTrips, st.PairReads = rep.RoundTrips, rep.PairReads
	if rep.PeakRSS > 0 {
		st.MaxRSS = rep.PeakRSS
	}
	return st, nil
}

// usageOf reads an exited child's CPU seconds and peak RSS (getrusage).
func usageOf(ps *os.ProcessState) (procStats, error) {
	var st procStats
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return st, errors.New("child: no resource usage on this platform")
	}
	st.CPUSeconds = tv(ru.Utime) + tv(ru.Stime)
	st.MaxRSS = ru.Maxrss * 1024 // kilobytes on Linux
	return st, nil
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
