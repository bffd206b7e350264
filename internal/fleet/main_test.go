package fleet_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/fleet"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
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
	// Postgres: more of them run at once than go test's default.
	if err := pgtest.SetDefaultParallel(4); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

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
