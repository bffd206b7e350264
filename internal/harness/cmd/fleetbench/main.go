// Command fleetbench is the `make bench` harness: River's own no-op baseline
// and evidencefleet's job kinds measured on the same Postgres (DATABASE_URL)
// in one run, medians over repetitions printed beside the River figures.
//
//	fleetbench [-quick] [-reps N] [flags]   run and print the table
//	fleetbench -only hostile [-quick]       the worker's peak RSS on hostile pages
//	fleetbench child -mode fleet|noop       a worker process (started by the harness)
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/bench"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		if err := bench.RunChild(os.Args[2:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "fleetbench child:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "fleetbench:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fleetbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "small sizes: a run of a few minutes")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	markdownFrom := fs.String("markdown-from", "", "measure nothing: print the report saved by -json in this file as a Markdown table (docs/performance.md's)")
	data := fs.String("data", "testdata", "directory with climate-fever/climate-fever-dev.jsonl and nli/{tune,report}/*.tsv")
	profiles := fs.String("profile-dir", "", "write a CPU profile of every worker child into this directory")
	o := bench.Full
	reps := fs.Int("reps", 0, "repetitions per measurement (0: the preset's)")
	riverJobs := fs.Int("river-jobs", 0, "no-op jobs burnt down and jobs inserted per measurement")
	noopWorkers := fs.Int("noop-workers", 0, "River baseline: concurrent no-op jobs (its burn-down is bounded by workers / 50 ms fetch cooldown)")
	claims := fs.Int("claims", 0, "claims of the synthetic verify_nli task")
	frags := fs.Int("fragments", 0, "fragments of the synthetic verify_nli task")
	perJob := fs.Int("claims-per-job", 0, "claims per verify_nli job")
	workers := fs.Int("nli-workers", 0, "concurrent verify_nli jobs per process")
	procs := fs.String("procs", "", "worker processes for the scaling measurement, e.g. 1,2,4")
	stampingReps := fs.Int("stamping-reps", 0, "runs of each arm of the verify_nli trust-stamping comparison (0: the preset's)")
	bigClaims := fs.Int("big-task-claims", 0, "claims of the one large task verified on 1 and 2 processes (0: the preset's)")
	sizes := fs.String("retrieval-sizes", "", "graph sizes for the retrieval latency, e.g. 10000,100000,1000000")
	climate := fs.Int("climate-claims", 0, "Climate-FEVER claims for the pipeline (-1: all 386; 0: the preset's)")
	keep := fs.Bool("keep", false, "keep the scratch databases (their URLs are printed) for inspection")
	skipClimate := fs.Bool("no-climate", false, "skip the Climate-FEVER pipeline")
	only := fs.String("only", "", "run only these sections (comma-separated: "+strings.Join(bench.Sections, ",")+")")
	hostileTimeout := fs.Duration("hostile-timeout", 0, "hostile pages: bound of each run's wait for the target and embed queues to drain (0: 10m, with -quick 3m)")
	hostilePages := fs.String("hostile-pages", "", "hostile pages: run only these pages (comma-separated names, e.g. formatting-bomb), with the ordinary ones")
	hostileCeiling := fs.Int64("hostile-rss-ceiling", 4096, "hostile pages: MiB; a worker whose resident set passes it is killed (sparing the machine) and the section fails; 0: none")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *markdownFrom != "" {
		return printMarkdown(stdout, *markdownFrom)
	}
	if *quick {
		o = bench.Quick
	}
	setInt := func(dst *int, v int) {
		if v != 0 {
			*dst = v
		}
	}
	setInt(&o.Reps, *reps)
	setInt(&o.RiverJobs, *riverJobs)
	setInt(&o.NoopWorkers, *noopWorkers)
	setInt(&o.VerifyClaims, *claims)
	setInt(&o.VerifyFragments, *frags)
	setInt(&o.ClaimsPerJob, *perJob)
	setInt(&o.NLIWorkers, *workers)
	setInt(&o.StampingReps, *stampingReps)
	setInt(&o.BigTaskClaims, *bigClaims)
	setInt(&o.ClimateClaims, *climate)
	if *skipClimate {
		o.ClimateClaims = 0
	}
	var err error
	if *procs != "" {
		if o.Procs, err = ints(*procs); err != nil {
			return fmt.Errorf("-procs: %w", err)
		}
	}
	if *sizes != "" {
		if o.RetrievalSizes, err = ints(*sizes); err != nil {
			return fmt.Errorf("-retrieval-sizes: %w", err)
		}
	}
	if *only != "" {
		o.Only = strings.Split(*only, ",")
	}
	o.Hostile = hostileOptions(*hostileTimeout, *hostileCeiling, *hostilePages, *quick)
	o.DatabaseURL = os.Getenv("DATABASE_URL")
	if o.DatabaseURL == "" {
		return fmt.Errorf("DATABASE_URL is not set: run `make bench`, which starts a throwaway Postgres")
	}
	o.DataDir = *data
	o.Keep = *keep
	if o.Exe, err = os.Executable(); err != nil {
		return err
	}
	if *profiles != "" {
		abs, err := filepath.Abs(*profiles)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return err
		}
		os.Setenv("FLEETBENCH_PROFILE_DIR", abs)
	}
	o.Progress = stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := bench.Run(ctx, o)
	if err != nil {
		return err
	}
	return output(stdout, rep, *asJSON)
}

// hostileOptions are the hostile section's flags, with the presets' timeouts.
func hostileOptions(timeout time.Duration, ceilingMiB int64, pages string, quick bool) bench.HostileOptions {
	hopts := bench.HostileOptions{Timeout: timeout, RSSCeiling: ceilingMiB << 20}
	if pages != "" {
		hopts.Pages = strings.Split(pages, ",")
	}
	if hopts.Timeout == 0 {
		hopts.Timeout = 10 * time.Minute
		if quick {
			hopts.Timeout = 3 * time.Minute
		}
	}
	return hopts
}

// output prints the report as JSON or as tables; a failed hostile section
// is an error once printed.
func output(w io.Writer, rep *bench.Report, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
		return rep.Hostile.Err()
	}
	if err := printTable(w, rep); err != nil {
		return err
	}
	if rep.Hostile != nil {
		if err := rep.Hostile.WriteTable(w); err != nil {
			return err
		}
	}
	return rep.Hostile.Err()
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func printTable(w io.Writer, rep *bench.Report) error {
	fmt.Fprintf(w, "make bench: measured at %s; %d CPUs, %s, PostgreSQL %s, %d repetitions (medians), %.0f s in all\n",
		rep.Measured, rep.CPUs, rep.Go, rep.Postgres, rep.Options.Reps, rep.Seconds)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	section := ""
	for _, r := range rep.Rows {
		if r.Section != section {
			section = r.Section
			fmt.Fprintf(tw, "\n%s\t\t\t\n", section)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r.Metric, format(r.Value), r.Unit, r.Baseline)
	}
	return tw.Flush()
}

// printMarkdown prints the report saved by -json in file as docs/performance.md's
// table: the run's provenance, then a row per measure.
func printMarkdown(w io.Writer, file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var rep bench.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	fmt.Fprintf(w, "`make bench` at commit `%s`, %s, %d CPUs, %s, PostgreSQL %s, %d repetitions (medians), %.0f s in all:\n\n",
		rep.Measured.Commit, rep.Measured.At.UTC().Format("2006-01-02 15:04 UTC"), rep.CPUs, rep.Go,
		strings.Fields(rep.Postgres + " ?")[0], rep.Options.Reps, rep.Seconds)
	fmt.Fprintln(w, "| section | measure | median | River baseline, same run |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "| %s | %s | %s %s | %s |\n", r.Section, r.Metric, format(r.Value), r.Unit, r.Baseline)
	}
	return nil
}

func format(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}
