// Command enqueue is the evidencefleet command line: create tasks, add
// hypothesis claims and targets, insert any job kind, watch a task's progress
// and export its evidence graph. Every command connects to the database given
// by --database-url, else EVF_DATABASE_URL, else DATABASE_URL (as the worker
// reads them), and takes --json for machine-readable output.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/evidencefleet/evidencefleet/internal/belief"
	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/internal/verification"
	"github.com/evidencefleet/evidencefleet/internal/version"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// exitError carries a specific exit code.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func main() {
	err := newRoot().Execute()
	if err == nil {
		return
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintln(os.Stderr, "enqueue:", msg)
	}
	os.Exit(exitCode(err))
}

// exitCode is the process's exit code for err: a command's own code
// (exitError), else the error vocabulary's (errs.ExitCode: bad input 2,
// anything else 1).
func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return errs.ExitCode(err)
}

// app is shared by the commands.
type app struct {
	jsonOut bool
	dbURL   string // --database-url
	org     string // --org: the caller's organization (internal/service)
	out     io.Writer
	errOut  io.Writer
	pool    *pgxpool.Pool
	store   *store.Store
	svc     *service.Service
	client  *river.Client[pgx.Tx]
}

func newRoot() *cobra.Command {
	a := &app{}
	root := &cobra.Command{
		Use:   "enqueue",
		Short: "Hand work to the evidencefleet worker fleet and read its results",
		Long: `Hand work to the evidencefleet worker fleet and read its results.

Every command but --version and help connects to Postgres: --database-url,
else EVF_DATABASE_URL, else DATABASE_URL (the worker reads the same two
variables). Task commands act for one organization (--org, default
"default"): another organization's task is not found. org token commands
make, list and revoke an organization's API tokens and need --org given;
operator token commands the operators' (no --org). Exit status: 0
done, 1 failed, 2 usage error; status --wait also exits 3 (a job was
discarded) and 4 (timed out); cite check exits 3 when the text cites an id
the task does not have.`,
		Version:       version.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			a.out, a.errOut = cmd.OutOrStdout(), cmd.ErrOrStderr()
			if err := checkArgsUTF8(cmd, args); err != nil {
				return err
			}
			// the belief numbers the store's recomputations read (feedback, links)
			bp, err := config.LoadBelief()
			if err != nil {
				return &exitError{code: 2, msg: err.Error()}
			}
			quorum, err := config.LoadTrustQuorum()
			if err != nil {
				return &exitError{code: 2, msg: err.Error()}
			}
			cmd.SetContext(verification.WithQuorum(belief.WithParams(cmd.Context(), bp), quorum))
			return nil
		},
	}
	root.PersistentFlags().BoolVar(&a.jsonOut, "json", false, "machine-readable JSON output")
	root.PersistentFlags().StringVar(&a.dbURL, "database-url", "", "Postgres connection string (default: $EVF_DATABASE_URL, else $DATABASE_URL)")
	root.PersistentFlags().StringVar(&a.org, "org", "default", "your organization (tenant): its tasks only are created, read and changed")
	root.AddCommand(a.taskCmd(), a.claimCmd(), a.targetCmd(), a.jobCmd(), a.statusCmd(), a.graphCmd(), a.reportCmd(), a.materialsCmd(), a.domainCmd(), a.feedbackCmd(), a.evidenceCmd(), a.exportCmd(), a.citeCmd(), a.orgCmd(), a.operatorCmd())
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		// `enqueue task shwo --task 1`: the word, not the flag, is wrong
		if words := cmd.Flags().Args(); cmd.HasAvailableSubCommands() && len(words) > 0 {
			return unknownCommand(cmd, words[0])
		}
		return &exitError{code: 2, msg: err.Error() + flagSuggestion(cmd, err)}
	})
	a.wrap(root)
	return root
}

// wrap makes every command close the connection it opened, whether it
// succeeds or fails (cobra skips post-run hooks on errors), explains an
// unmigrated database, and turns argument-count errors into usage errors
// (exit 2). A command with sub-commands refuses a word that names none of
// them (exit 2, with suggestions) and, given nothing to do, prints its
// help (exit 0).
func (a *app) wrap(c *cobra.Command) {
	if c.HasSubCommands() {
		c.SuggestionsMinimumDistance = 2
		c.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return nil
		}
		if c.RunE == nil {
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
			c.Annotations = map[string]string{helpOnly: "true"}
		}
	}
	if !c.HasParent() {
		// a parent that only prints its help shows no usage line of its own
		c.SetUsageTemplate(strings.Replace(c.UsageTemplate(), "{{if .Runnable}}",
			`{{if and .Runnable (not (index .Annotations "`+helpOnly+`"))}}`, 1))
	}
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			defer a.close()
			return a.explain(cmd.Context(), run(cmd, args))
		}
	}
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return &exitError{code: 2, msg: err.Error()}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		a.wrap(sub)
	}
}

func (a *app) close() {
	if a.pool != nil {
		a.pool.Close()
		a.pool = nil
	}
}

// databaseURL is --database-url, else EVF_DATABASE_URL, else DATABASE_URL:
// the worker reads the two variables in that order too (internal/config).
func (a *app) databaseURL() (string, error) {
	for _, url := range []string{a.dbURL, os.Getenv("EVF_DATABASE_URL"), os.Getenv("DATABASE_URL")} {
		if url != "" {
			return url, nil
		}
	}
	return "", usageErr("no database: give --database-url or set EVF_DATABASE_URL or DATABASE_URL")
}

// connect opens the pool and an insert-only River client.
func (a *app) connect(ctx context.Context) error {
	url, err := a.databaseURL()
	if err != nil {
		return err
	}
	pcfg, err := store.PoolConfig(url)
	if err != nil {
		return fmt.Errorf("database URL: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return fmt.Errorf("connect: %w", err)
	}
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		pool.Close()
		return fmt.Errorf("river client: %w", err)
	}
	a.pool, a.store, a.client = pool, store.NewStore(pool), client
	a.svc = service.New(a.store, client)
	return nil
}

// emit prints v as JSON with --json, else calls human.
func (a *app) emit(v any, human func(w io.Writer)) error {
	if a.jsonOut {
		enc := json.NewEncoder(a.out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	human(a.out)
	return nil
}

// helpOnly annotates a command whose only run is printing its help.
const helpOnly = "evf:help-only"

// unknownCommand is the usage error for a word that names no sub-command
// of cmd, with the sub-commands it may have meant (cobra's suggestions:
// within two edits, or starting with the word).
func unknownCommand(cmd *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q", word)
	if cmd.HasParent() {
		msg += fmt.Sprintf(" for %q", cmd.CommandPath())
	}
	if s := cmd.SuggestionsFor(word); len(s) > 0 {
		for i := range s {
			s[i] = strconv.Quote(s[i])
		}
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	} else {
		msg += fmt.Sprintf("; %q lists the commands", cmd.CommandPath()+" --help")
	}
	return &exitError{code: 2, msg: msg}
}

// flagSuggestion is "; did you mean --task?" for an unknown flag within two
// edits of one of the command's flags, else "".
func flagSuggestion(cmd *cobra.Command, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return ""
	}
	var near []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && editDistance(name, f.Name) <= 2 {
			near = append(near, strconv.Quote("--"+f.Name))
		}
	})
	if len(near) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(near, " or ") + "?"
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
		}
		prev = cur
	}
	return prev[len(b)]
}

// undefinedTable is SQLSTATE 42P01: a relation the statement names does not
// exist.
const undefinedTable = "42P01"

// explain turns the error of a database without the fleet's tables
// (SQLSTATE 42P01, undefined_table: never migrated, or migrated by an
// older version) into what to do about it; other errors pass unchanged.
func (a *app) explain(ctx context.Context, err error) error {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) || pg.Code != undefinedTable {
		return err
	}
	var some bool
	if a.store != nil {
		some, _ = a.store.HasSomeSchema(ctx)
	}
	if some {
		return &exitError{code: errs.ExitFailure, msg: fmt.Sprintf("the database's evidencefleet schema is older than this enqueue (%s): run `worker migrate`", pg.Message)}
	}
	return &exitError{code: errs.ExitFailure, msg: "the database has no evidencefleet schema: run `worker migrate`"}
}

// checkArgsUTF8 refuses, as a usage error naming it, a flag value or an
// argument that is not valid UTF-8 ("--text #2: invalid UTF-8"): whatever a
// command does with it, the fleet stores no text it was not given.
func checkArgsUTF8(cmd *cobra.Command, args []string) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		values := []string{f.Value.String()}
		if list, ok := f.Value.(pflag.SliceValue); ok {
			values = list.GetSlice()
		}
		for i, v := range values {
			name := "--" + f.Name
			if len(values) > 1 {
				name += fmt.Sprintf(" #%d", i+1)
			}
			if err == nil {
				err = jobs.CheckUTF8(name, v)
			}
		}
	})
	for i, arg := range args {
		if err == nil {
			err = jobs.CheckUTF8(fmt.Sprintf("argument %d", i+1), arg)
		}
	}
	if err != nil {
		return &exitError{code: 2, msg: err.Error()}
	}
	return nil
}

func usageErr(format string, args ...any) error {
	return &exitError{code: 2, msg: fmt.Sprintf(format, args...)}
}

// forTask starts a command on one task: --task is required (a usage error
// without it), then the connection.
func (a *app) forTask(cmd *cobra.Command, taskID int64) (context.Context, error) {
	if taskID <= 0 {
		return nil, usageErr("--task is required")
	}
	ctx := cmd.Context()
	return ctx, a.connect(ctx)
}
