// Command worker runs an evidencefleet worker process: it works the River
// queues named in EVF_QUEUES and serves /metrics, /healthz and /readyz on
// EVF_METRICS_ADDR. `worker migrate` applies River's and the evidence
// schema's migrations; `worker config` lists every environment variable;
// `worker mcp --org ORG` serves the MCP tools on stdin/stdout.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/api"
	"github.com/evidencefleet/evidencefleet/internal/apiserver"
	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/fleet"
	"github.com/evidencefleet/evidencefleet/internal/mcpserver"
	"github.com/evidencefleet/evidencefleet/internal/membudget"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/internal/version"
	"github.com/evidencefleet/evidencefleet/migrations"
	"github.com/evidencefleet/evidencefleet/store"
)

func main() {
	root := rootCmd()
	usageErrors(root)
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(exitCode(err))
	}
}

// usageError is a command line or configuration that is wrong: exit 2,
// as enqueue's (errs.ExitUsage).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitCode is the process's exit status for err: 2 (errs.ExitUsage) for a
// wrong command line or configuration, 1 (errs.ExitFailure) when the
// command could not do its work (docs/getting-started.md: "Exit codes").
func exitCode(err error) int {
	if errors.As(err, new(usageError)) {
		return errs.ExitUsage
	}
	return errs.ExitFailure
}

// usageErrors makes a wrong flag, an argument a command does not take and
// an unknown command of c or any command under it a usageError.
func usageErrors(c *cobra.Command) {
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	if c.Args == nil {
		c.Args = cobra.NoArgs
	}
	check := c.Args
	c.Args = func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
	for _, sub := range c.Commands() {
		usageErrors(sub)
	}
}

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "worker",
		Short:         "Run an evidencefleet worker (configured by DATABASE_URL and EVF_* variables; see `worker config`)",
		Version:       version.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.Load()
			if err != nil {
				return usageError{err}
			}
			log := newLogger(cfg)
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return fleet.Run(ctx, cfg, log)
		},
	}
	root.AddCommand(&cobra.Command{
		Use:   "migrate",
		Short: "Apply River's and the evidence schema's migrations (safe to run from several pods at once; connects to EVF_DATABASE_DIRECT_URL when set)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			url := os.Getenv("EVF_DATABASE_DIRECT_URL") // its session lock cannot pass a transaction pooler
			if url == "" {
				var err error
				if url, err = databaseURL(); err != nil {
					return err
				}
			}
			cfg := config.Config{LogLevel: os.Getenv("EVF_LOG_LEVEL"), LogFormat: os.Getenv("EVF_LOG_FORMAT")}
			log := newLogger(cfg)
			ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Minute)
			defer cancel()
			pool, err := pgxpool.New(ctx, url)
			if err != nil {
				return usageError{fmt.Errorf("database URL: %w", err)}
			}
			defer pool.Close()
			res, err := migrations.Up(ctx, pool, log)
			if err != nil {
				return store.ExplainDB(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "migrated: river versions applied %v, evidence versions applied %v\n",
				res.RiverVersions, res.EvidenceVersions)
			return nil
		},
	})
	var markdown bool
	configCmd := &cobra.Command{
		Use:   "config",
		Short: "List every environment variable with its default and meaning, then the page memory budget this environment gives",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if markdown {
				return config.UsageMarkdown(cmd.OutOrStdout())
			}
			if err := config.Usage(cmd.OutOrStdout()); err != nil {
				return err
			}
			return printPageMemory(cmd.OutOrStdout())
		},
	}
	configCmd.Flags().BoolVar(&markdown, "markdown", false, "print the table in Markdown (as in docs/configuration.md)")
	root.AddCommand(configCmd)
	root.AddCommand(mcpCmd(), apiCmd())
	return root
}

// printPageMemory prints the page memory budget (fleet.PageMemoryPlan)
// of the environment's settings under this process's memory limit, as a
// worker started with the same environment would admit its pages.
func printPageMemory(w io.Writer) error {
	cfg, err := config.LoadWithoutDatabase()
	if err != nil {
		return err
	}
	plan := fleet.PageMemoryPlan(cfg, membudget.MemoryLimit())
	_, err = fmt.Fprintf(w, "\n%s.\n%s.\n", plan, plan.Bound())
	return err
}

// databaseURL is the worker's: EVF_DATABASE_URL wins over DATABASE_URL.
func databaseURL() (string, error) {
	url := os.Getenv("EVF_DATABASE_URL")
	if url == "" {
		url = os.Getenv("DATABASE_URL")
	}
	if url == "" {
		return "", usageError{fmt.Errorf("no database: set EVF_DATABASE_URL or DATABASE_URL")}
	}
	return url, nil
}

// apiCmd serves the HTTP API, the MCP server over HTTP and River UI
// (internal/apiserver) on EVF_API_ADDR.
func apiCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "api",
		Short: "Serve the HTTP API (/v1, OpenAPI 3.1 at /v1/openapi.json), MCP at /mcp and River UI at /riverui/ on EVF_API_ADDR",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.Load()
			if err != nil {
				return usageError{err}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return apiserver.Run(ctx, cfg, newLogger(cfg))
		},
	}
	c.AddCommand(&cobra.Command{
		Use:   "openapi",
		Short: "Print the API's OpenAPI 3.1 document (what /v1/openapi.json serves) without a database",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			doc, err := api.Document()
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(append(doc, '\n'))
			return err
		},
	})
	return c
}

// mcpCmd serves the MCP tools (internal/mcpserver) on stdin and stdout for
// one organization, inserting jobs with an insert-only River client: the
// workers of the fleet do them.
func mcpCmd() *cobra.Command {
	var org string
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the fleet's MCP tools to an AI assistant on stdin/stdout, acting for one organization (--org)",
		Long: `Serve the fleet's MCP tools (create_task, queue_targets, get_status,
get_evidence, check_citations, stop_task, feedback) over stdio, the way an
AI assistant starts a local MCP server. Every call acts for --org: its
tasks only are created, read and changed. The process only inserts jobs;
running workers do them. Logs go to stderr (stdout is the protocol).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if strings.TrimSpace(org) == "" {
				return usageError{errors.New("--org is required: the organization every call acts for")}
			}
			url, err := databaseURL()
			if err != nil {
				return err
			}
			log := newLogger(config.Config{LogLevel: os.Getenv("EVF_LOG_LEVEL"), LogFormat: os.Getenv("EVF_LOG_FORMAT")})
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			pcfg, err := store.PoolConfig(url)
			if err != nil {
				return fmt.Errorf("database URL: %w", err)
			}
			pool, err := pgxpool.NewWithConfig(ctx, pcfg)
			if err != nil {
				return fmt.Errorf("connect: %w", err)
			}
			defer pool.Close()
			if err := pool.Ping(ctx); err != nil {
				return fmt.Errorf("connect: %w", err)
			}
			client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
			if err != nil {
				return fmt.Errorf("river client: %w", err)
			}
			svc := service.New(store.NewStore(pool), client)
			err = mcpserver.New(svc, mcpserver.Options{Org: org, Logger: log}).Run(ctx, &mcp.StdioTransport{})
			if ctx.Err() != nil {
				return nil // stopped by a signal
			}
			return err
		},
	}
	c.Flags().StringVar(&org, "org", "", "the organization (tenant) every call acts for (required)")
	return c
}

func newLogger(cfg config.Config) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level}
	if strings.EqualFold(cfg.LogFormat, "text") {
		return slog.New(slog.NewTextHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, opts))
}
