package fleet_test

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/fleet"
)

// workerProcessEnv, set to 1, turns the test binary into a worker process:
// TestMain runs fleet.Run with the configuration of the environment, the way
// cmd/worker does, instead of the tests. The tests start such processes to
// kill, signal and run them side by side.
const workerProcessEnv = "EVF_TEST_WORKER_PROCESS"

func TestMain(m *testing.M) {
	if os.Getenv(workerProcessEnv) == "1" {
		os.Exit(runWorkerProcess())
	}
	// The tests spend most of their time waiting on worker processes and
	// Postgres, so more of them run at once than go test's default
	// (-parallel = GOMAXPROCS, 2 on a 2-CPU machine); an explicit -parallel
	// wins.
	flag.Parse()
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		if err := flag.Set("test.parallel", strconv.Itoa(max(testParallel, runtime.GOMAXPROCS(0)))); err != nil {
			fmt.Fprintln(os.Stderr, "fleet tests:", err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}

// testParallel is how many of this package's parallel tests run at once
// unless -parallel says otherwise.
const testParallel = 4

// runWorkerProcess is the body of a worker subprocess; it returns the exit
// code: 0 after a clean shutdown, 1 when Run failed, 2 on a bad configuration.
func runWorkerProcess() int {
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log.Info("test worker process", slog.Int("pid", os.Getpid()))
	if err := fleet.Run(ctx, cfg, log); err != nil {
		log.Error("worker failed", slog.Any("error", err))
		return 1
	}
	return 0
}
