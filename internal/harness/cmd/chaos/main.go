// Command chaos runs the fleet under failure and compares it with a clean
// run (`make chaos`): -workers worker processes (bin/worker) on a
// Climate-FEVER replay workload, one SIGKILLed and started again about
// every -kill-every until -kills kills, Postgres restarted in immediate mode
// once half way (the command in WITH_POSTGRES_RESTART, which
// scripts/with-postgres.sh exports), then the graph is compared by natural
// keys with a one-process clean run, and duplicate rows, lost work and
// discarded jobs are counted. It exits 1 unless the graphs are identical
// and all three counts are 0. DATABASE_URL names the server; both runs use
// scratch databases on it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/chaos"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := chaos.Options{Progress: stderr, RestartPostgres: os.Getenv("WITH_POSTGRES_RESTART"), DatabaseURL: os.Getenv("DATABASE_URL")}
	fs.StringVar(&o.WorkerBin, "worker", "bin/worker", "worker binary")
	fs.StringVar(&o.ClaimsFile, "claims", "testdata/climate-fever/climate-fever-dev.jsonl", "Climate-FEVER JSONL")
	fs.IntVar(&o.Limit, "limit", 0, "records used (0: all)")
	fs.IntVar(&o.Workers, "workers", 3, "worker processes of the chaos run")
	fs.IntVar(&o.Kills, "kills", 30, "SIGKILLs")
	fs.DurationVar(&o.KillEvery, "kill-every", 0, "mean spacing of the kills (0: the clean run's time over -kills)")
	fs.DurationVar(&o.Timeout, "timeout", 15*time.Minute, "for each run")
	noRestart := fs.Bool("no-pg-restart", false, "do not restart Postgres")
	short := fs.Bool("short", false, "the CI version: 60 records, 10 kills")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *short {
		o.Limit, o.Kills = 60, 10
	}
	if *noRestart {
		o.RestartPostgres = ""
	}
	if o.DatabaseURL == "" {
		return errors.New("DATABASE_URL is not set (make chaos starts a throwaway Postgres)")
	}
	if o.RestartPostgres == "" && !*noRestart {
		return errors.New("WITH_POSTGRES_RESTART is not set: run through scripts/with-postgres.sh, or pass -no-pg-restart")
	}
	res, err := chaos.Run(ctx, o)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "chaos: %d claims, %d articles; %d workers, %d SIGKILLs (%d with work pending, about every %s), %d Postgres restart(s), %d worker exits restarted\n",
			res.Claims, res.Articles, res.Workers, res.Kills, res.KillsMidWork, res.KillEvery, res.PostgresRestarts, res.Exits)
		fmt.Fprintf(stdout, "clean run %.1f s, chaos run %.1f s; jobs rescued %d\n", res.CleanSeconds, res.ChaosSeconds, res.Rescued)
		fmt.Fprintf(stdout, "graph identical to the clean run: %v (%s)\n", res.Identical, res.GraphRows)
		fmt.Fprintf(stdout, "duplicates %d, lost %d, discarded %d, cancelled for work not done %d\n", res.Duplicates, res.Lost, res.Discarded, res.Cancelled)
		if res.Diff != "" {
			fmt.Fprintf(stdout, "differences:\n%s\n", res.Diff)
		}
	}
	if !res.Identical || res.Duplicates+res.Lost+res.Discarded+res.Cancelled > 0 {
		return fmt.Errorf("the chaos run lost or changed work")
	}
	return nil
}
