package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/jobs"
)

func (a *app) taskCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "task", Short: "Manage tasks"}
	var hypothesis, budget, retrieval, key string
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a task; its hypothesis becomes claim E1. Prints the task id",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if strings.TrimSpace(hypothesis) == "" {
				return usageErr("--hypothesis is required")
			}
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			task, _, err := a.svc.CreateTaskOnce(ctx, a.org, intake.TaskSpec{Hypothesis: hypothesis, Budget: budget, Retrieval: retrieval, IdempotencyKey: key})
			if err != nil {
				return err
			}
			return a.emit(task, func(w io.Writer) { fmt.Fprintln(w, task.TaskID) })
		},
	}
	create.Flags().StringVar(&hypothesis, "hypothesis", "", "the hypothesis to check (required)")
	create.Flags().StringVar(&budget, "budget", "standard", "the task's budget class: "+strings.Join(intake.BudgetClasses, ", "))
	create.Flags().StringVar(&key, "idempotency-key", "", "a key that makes the create safe to retry: run again with it, the first run's task is printed, no second is made")
	create.Flags().StringVar(&retrieval, "retrieval", "given", "given (only the targets you add) or self_directed (the fleet also searches for the task's claims)")
	cmd.AddCommand(create, a.taskListCmd(), a.taskShowCmd(), a.taskStopCmd(), a.taskEventsCmd())
	cmd.AddCommand(a.lifecycleCmds()...)
	return cmd
}

// taskStopCmd stops a task (its jobs cancel themselves and nothing more is
// added to it) and optionally enqueues its cleanup.
func (a *app) taskStopCmd() *cobra.Command {
	var taskID int64
	var cleanup string
	stop := &cobra.Command{
		Use:   "stop",
		Short: "Stop a task: its waiting jobs cancel themselves; --cleanup soft|hard also deletes its data (ARCHITECTURE.md §5.6)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if taskID <= 0 {
				return usageErr("--task is required")
			}
			switch cleanup {
			case "", jobs.CleanupSoft, jobs.CleanupHard:
			default:
				return usageErr("--cleanup %q: want soft or hard", cleanup)
			}
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			res, err := a.svc.StopTask(ctx, a.org, taskID, cleanup)
			if err != nil {
				return err
			}
			return a.emit(res, func(w io.Writer) {
				fmt.Fprintf(w, "task %d stopped\n", taskID)
				if cleanup != "" {
					fmt.Fprintf(w, "%s cleanup queued as job %d (watch it with `enqueue status --task %d`)\n", cleanup, res.CleanupJobID, taskID)
				}
			})
		},
	}
	stop.Flags().Int64Var(&taskID, "task", 0, "task id (required)")
	stop.Flags().StringVar(&cleanup, "cleanup", "", "also delete the task's data: soft (its claims, edges, targets; shared pages stay) or hard (then every orphan)")
	return stop
}

func (a *app) claimCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "claim", Short: "Manage a task's claims"}
	var taskID int64
	var file string
	var texts []string
	add := &cobra.Command{
		Use:   "add",
		Short: "Add hypothesis claims to a task (--text, repeatable, or --file with JSON lines {\"text\": …} or {\"claim\": …})",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if taskID <= 0 {
				return usageErr("--task is required")
			}
			if (len(texts) == 0) == (file == "") {
				return usageErr("give exactly one of --text (repeatable) or --file")
			}
			if file != "" {
				var err error
				if texts, err = readClaimsFile(file); err != nil {
					return &exitError{code: 2, msg: err.Error()}
				}
			}
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			added, err := a.svc.AddClaims(ctx, a.org, taskID, texts)
			if err != nil {
				return err
			}
			return a.emit(map[string]any{"task_id": taskID, "claims": added}, func(w io.Writer) {
				for _, c := range added {
					state := "added"
					if !c.New {
						state = "exists"
					}
					fmt.Fprintf(w, "E%d\t%s\t%s\n", c.EvidenceNo, state, c.Text)
				}
			})
		},
	}
	add.Flags().Int64Var(&taskID, "task", 0, "task id (required)")
	add.Flags().StringArrayVar(&texts, "text", nil, "claim text (repeatable: one claim each)")
	add.Flags().StringVar(&file, "file", "", "JSON-lines file of claims")
	cmd.AddCommand(add)
	cmd.AddCommand(a.claimLinkCmds()...)
	return cmd
}

// readClaimsFile reads JSON lines with a "text" or "claim" field (the
// Climate-FEVER format has "claim"); blank lines are skipped, and a line
// with text that is not UTF-8 or a lone surrogate escape is refused
// (file:line: text: lone surrogate).
func readClaimsFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxClaimLineBytes)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if len(out) == intake.MaxBatch {
			return nil, fmt.Errorf("%s:%d: more than %d claims in one file (split it)", path, n, intake.MaxBatch)
		}
		if err := jobs.CheckJSONText([]byte(line)); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		var rec struct {
			Text  string `json:"text"`
			Claim string `json:"claim"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		t := rec.Text
		if t == "" {
			t = rec.Claim
		}
		if strings.TrimSpace(t) == "" {
			return nil, fmt.Errorf("%s:%d: no \"text\" or \"claim\" field", path, n)
		}
		if err := jobs.CheckText(strings.TrimSpace(t), jobs.MaxTextRunes); err != nil {
			return nil, fmt.Errorf("%s:%d: claim %v", path, n, err)
		}
		out = append(out, t)
	}
	if err := scanErr(sc, path, n, maxClaimLineBytes); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no claims", path)
	}
	return out, nil
}

func (a *app) targetCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "target", Short: "Manage a task's targets"}
	var taskID int64
	var urls, dois, queries []string
	var file string
	add := &cobra.Command{
		Use:   "add",
		Short: "Add URL, DOI and search-query targets to a task and enqueue target_queue jobs (one batch insert)",
		Long: `Add targets to a task and enqueue a target_queue job for each, all in one
transaction: every target is checked first as the worker will check it, and
one bad target inserts nothing (exit 2, naming the flag or file line).

  --url     a page to fetch (http or https)
  --doi     a paper, resolved through the academic APIs: 10.1234/abc,
            doi:10.1234/abc or https://doi.org/10.1234/abc
  --query   a search: the worker's web search (EVF_SEARCH_URL) turns it
            into url targets and, for a scholarly query, the academic
            APIs into doi targets
  --file    one target per line (# comments and blank lines skipped): a
            URL, or a DOI in one of the forms above

The flags repeat and mix. A target already added to the task is not queued
again (reported as skipped).`,
		Example: `  enqueue target add --task 7 --url https://en.wikipedia.org/wiki/Sea_ice
  enqueue target add --task 7 --doi 10.1038/nature12345 --query "arctic sea ice decline" --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if taskID <= 0 {
				return usageErr("--task is required")
			}
			type input struct{ source, kind, value string }
			var inputs []input
			for _, f := range []struct {
				kind   string
				values []string
			}{{jobs.TargetURL, urls}, {jobs.TargetDOI, dois}, {jobs.TargetQuery, queries}} {
				for _, v := range f.values {
					inputs = append(inputs, input{"--" + f.kind, f.kind, v})
				}
			}
			if file != "" {
				lines, err := readLines(file)
				if err != nil {
					return &exitError{code: 2, msg: err.Error()}
				}
				for _, l := range lines {
					inputs = append(inputs, input{fmt.Sprintf("%s:%d", file, l.no), fileLineKind(l.text), l.text})
				}
			}
			if len(inputs) == 0 {
				return usageErr("give --url, --doi or --query (each repeatable) or --file")
			}
			var targets []jobs.Target
			var problems []string
			for _, in := range inputs {
				t, err := jobs.Target{Kind: in.kind, Value: in.value}.Normalized()
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s %q: %v", in.source, in.value, err))
					continue
				}
				targets = append(targets, t)
			}
			if len(problems) > 0 {
				return &exitError{code: 2, msg: "invalid targets, nothing inserted:\n  " + strings.Join(problems, "\n  ")}
			}
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			res, err := a.svc.AddTargets(ctx, a.org, taskID, targets)
			if err != nil {
				return err
			}
			return a.emit(res, func(w io.Writer) {
				fmt.Fprintf(w, "%d targets: %d jobs inserted, %d already queued or done\n", len(targets), res.Inserted, res.Skipped)
			})
		},
	}
	add.Flags().Int64Var(&taskID, "task", 0, "task id (required)")
	add.Flags().StringArrayVar(&urls, "url", nil, "URL to take in (repeatable)")
	add.Flags().StringArrayVar(&dois, "doi", nil, "DOI to take in: 10.xxxx/…, doi:10.xxxx/… or https://doi.org/10.xxxx/… (repeatable)")
	add.Flags().StringArrayVar(&queries, "query", nil, "search query whose results to take in (repeatable)")
	add.Flags().StringVar(&file, "file", "", "file with one URL or DOI per line (# comments allowed)")
	cmd.AddCommand(add)
	return cmd
}

// fileLineKind tells a DOI line of a target file (10.xxxx/…, doi:…,
// info:doi/… or a doi.org link) from a URL line.
func fileLineKind(text string) string {
	l := strings.ToLower(text)
	for _, p := range []string{"10.", "doi:", "info:doi/"} {
		if strings.HasPrefix(l, p) {
			return jobs.TargetDOI
		}
	}
	if u, err := url.Parse(l); err == nil && (u.Scheme == "http" || u.Scheme == "https") &&
		(u.Host == "doi.org" || u.Host == "dx.doi.org" || u.Host == "www.doi.org") && strings.HasPrefix(u.Path, "/10.") {
		return jobs.TargetDOI
	}
	return jobs.TargetURL
}

// fileLine is a line of a target file, numbered from 1.
type fileLine struct {
	no   int
	text string
}

// readLines reads a target file: one target per line, blank lines and lines
// starting with # skipped; a line that is not UTF-8 is refused.
func readLines(path string) ([]fileLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []fileLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4<<10), maxTargetLineBytes)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if err := jobs.CheckUTF8(fmt.Sprintf("%s:%d", path, n), text); err != nil {
			return nil, err
		}
		if len(out) == intake.MaxBatch {
			return nil, fmt.Errorf("%s:%d: more than %d targets in one file (split it)", path, n, intake.MaxBatch)
		}
		out = append(out, fileLine{n, text})
	}
	if err := scanErr(sc, path, n, maxTargetLineBytes); err != nil {
		return nil, err
	}
	return out, nil
}

// Longest lines the input files may have: a claim of jobs.MaxTextRunes
// characters (up to 4 bytes each, escaped in JSON) and a target.
const (
	maxClaimLineBytes  = 64 << 10
	maxTargetLineBytes = 16 << 10
)

// scanErr reports a file's read error, naming the line that was too long.
func scanErr(sc *bufio.Scanner, path string, lastLine, maxLine int) error {
	switch err := sc.Err(); {
	case err == nil:
		return nil
	case errors.Is(err, bufio.ErrTooLong):
		return fmt.Errorf("%s:%d: line longer than %d bytes", path, lastLine+1, maxLine)
	default:
		return fmt.Errorf("%s: %w", path, err)
	}
}
