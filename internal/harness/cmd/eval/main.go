// Command eval measures the configured models and the whole fleet on real
// labelled data (`make eval`):
//
//   - NLI pair accuracy and per-class F1 of the configured NLI backend on
//     every label<TAB>premise<TAB>hypothesis *.tsv file of -nli-data;
//   - end to end on Climate-FEVER (-claims): the claims' Wikipedia evidence
//     is replayed as article pages, one task gets every claim as a
//     hypothesis and every article as a target, an in-process fleet
//     (queues target, embed, nli) runs it to completion, and the verdicts
//     and the judged gold evidence pairs are scored;
//   - the same claims in open mode (-open, the default): one task with only
//     the claims, each a query target, searched in the replay archive by the
//     offline search backend; both modes' retrieval of the gold evidence
//     articles, searches and fetches per claim and verdict quality side by side.
//
// Models and fleet tuning come from the environment exactly as for the
// worker (`worker config`); DATABASE_URL names the Postgres server. By
// default the fleet runs in a scratch database created on that server and
// dropped afterwards. Tables go to stdout (-json for a machine-readable
// summary), progress to stderr.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/eval"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.Is(err, errUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage error")

// run parses args, evaluates and writes the report to stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	claims := fs.String("claims", "testdata/climate-fever/climate-fever-dev.jsonl", "Climate-FEVER JSONL file for the end-to-end run (\"\" skips it)")
	nliDir := fs.String("nli-data", "testdata/nli/report", "directory of label<TAB>premise<TAB>hypothesis *.tsv files (\"\" skips the pair evaluation)")
	limit := fs.Int("limit", 0, "use only the first N claims (0: all)")
	nliLimit := fs.Int("nli-limit", 0, "use only the first N rows of each NLI file (0: all)")
	asJSON := fs.Bool("json", false, "print a JSON summary instead of tables")
	freshDB := fs.Bool("fresh-db", true, "run the fleet in a scratch database on DATABASE_URL's server, dropped afterwards (false: migrate and use DATABASE_URL itself)")
	timeout := fs.Duration("timeout", 30*time.Minute, "longest the fleet may take")
	logLevel := fs.String("log-level", "warn", "fleet log level on stderr: debug, info, warn or error")
	openMode := fs.Bool("open", true, "run the claims a second time in open mode (only the claims, each a query target searched in the replay archive) and a third time self-directed (each claim its own task; the planner searches)")
	sentencesOnly := fs.Bool("sentences-only", false, "judge the NLI pairs and the claims' gold evidence sentences alone, and run no fleet: seconds, for a change of model")
	selfClaims := fs.Int("self-claims", 100, "claims of the self-directed run (the first ones of the file; 0: all): each is its own task, which takes longer")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "eval: unexpected arguments %q\n", fs.Args())
		return errUsage
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(stderr, "eval: -log-level %q: %v\n", *logLevel, err)
		return errUsage
	}
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	rep, err := eval.Run(ctx, eval.Options{
		Config:             cfg,
		ClaimsFile:         *claims,
		Limit:              *limit,
		NLIDir:             *nliDir,
		NLILimit:           *nliLimit,
		FreshDB:            *freshDB,
		Timeout:            *timeout,
		Log:                slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
		Progress:           stderr,
		OpenMode:           *openMode,
		SelfDirectedClaims: *selfClaims,
		SentencesOnly:      *sentencesOnly,
	})
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return eval.WriteText(stdout, rep)
}
