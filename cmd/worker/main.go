// Command worker runs an evidencefleet worker process: it works the River
// queues named in EVF_QUEUES and serves /metrics, /healthz and /readyz on
// EVF_METRICS_ADDR. `worker migrate` applies River's and the evidence
// schema's migrations; `worker config` lists every environment variable.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/fleet"
	"github.com/evidencefleet/evidencefleet/internal/version"
	"github.com/evidencefleet/evidencefleet/migrations"
)

func main() {
	if err := rootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
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
				return err
			}
			log := newLogger(cfg)
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return fleet.Run(ctx, cfg, log)
		},
	}
	root.AddCommand(&cobra.Command{
		Use:   "migrate",
		Short: "Apply River's and the evidence schema's migrations (safe to run from several pods at once)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The worker's order: EVF_DATABASE_URL wins over DATABASE_URL.
			url := os.Getenv("EVF_DATABASE_URL")
			if url == "" {
				url = os.Getenv("DATABASE_URL")
			}
			if url == "" {
				return fmt.Errorf("no database: set EVF_DATABASE_URL or DATABASE_URL")
			}
			cfg := config.Config{LogLevel: os.Getenv("EVF_LOG_LEVEL"), LogFormat: os.Getenv("EVF_LOG_FORMAT")}
			log := newLogger(cfg)
			ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Minute)
			defer cancel()
			pool, err := pgxpool.New(ctx, url)
			if err != nil {
				return fmt.Errorf("connect: %w", err)
			}
			defer pool.Close()
			res, err := migrations.Up(ctx, pool, log)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "migrated: river versions applied %v, evidence versions applied %v\n",
				res.RiverVersions, res.EvidenceVersions)
			return nil
		},
	})
	var markdown bool
	configCmd := &cobra.Command{
		Use:   "config",
		Short: "List every environment variable with its default and meaning",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if markdown {
				return config.UsageMarkdown(cmd.OutOrStdout())
			}
			return config.Usage(cmd.OutOrStdout())
		},
	}
	configCmd.Flags().BoolVar(&markdown, "markdown", false, "print the table in Markdown (as in the README)")
	root.AddCommand(configCmd)
	return root
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
