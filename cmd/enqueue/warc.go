package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// exportCmd groups the exports in standard formats other tools read.
func (a *app) exportCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "export", Short: "Export a task's evidence in formats other tools read"}
	cmd.AddCommand(a.exportWARCCmd())
	return cmd
}

// exportWARCCmd writes a task's evidence as WARC (service.ExportWARC) and
// its CDXJ index beside it.
func (a *app) exportWARCCmd() *cobra.Command {
	var taskID int64
	var out string
	cmd := &cobra.Command{
		Use:   "warc",
		Short: "Write the task's evidence — every page version it cites, as the HTTP response it was captured in — as a WARC file (ISO 28500) with a CDXJ index beside it, for web-archive tools (ReplayWeb.page, pywb, warcio)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if taskID <= 0 {
				return usageErr("--task is required")
			}
			if out == "" {
				out = fmt.Sprintf("task-%d.warc.gz", taskID)
			}
			if !strings.HasSuffix(out, ".warc.gz") {
				return usageErr("--out %q: the file's name must end in .warc.gz", out)
			}
			index := strings.TrimSuffix(out, ".warc.gz") + ".cdxj"
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			warc, err := os.CreateTemp(filepath.Dir(out), ".warc-*.tmp")
			if err != nil {
				return fmt.Errorf("export warc: %w", err)
			}
			defer os.Remove(warc.Name())
			cdxj, err := os.CreateTemp(filepath.Dir(out), ".cdxj-*.tmp")
			if err != nil {
				warc.Close()
				return fmt.Errorf("export warc: %w", err)
			}
			defer os.Remove(cdxj.Name())
			res, err := a.svc.ExportWARC(ctx, a.org, taskID, warc, cdxj, filepath.Base(out))
			if cerr := warc.Close(); err == nil && cerr != nil {
				err = cerr
			}
			if cerr := cdxj.Close(); err == nil && cerr != nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			for _, f := range []string{warc.Name(), cdxj.Name()} {
				if err := os.Chmod(f, 0o644); err != nil {
					return fmt.Errorf("export warc: %w", err)
				}
			}
			if err := os.Rename(warc.Name(), out); err != nil {
				return fmt.Errorf("export warc: %w", err)
			}
			if err := os.Rename(cdxj.Name(), index); err != nil {
				return fmt.Errorf("export warc: %w", err)
			}
			fmt.Fprintf(a.out, "%s: %d response records, %d bytes; index %s\n", out, res.Records, res.Bytes, index)
			if res.Uncaptured > 0 {
				fmt.Fprintf(a.out, "%d of the %d page versions of the task's evidence have no captured response (fetched before captures were kept, or an API's abstract)\n", res.Uncaptured, res.Versions)
			}
			return nil
		},
	}
	cmd.Flags().Int64Var(&taskID, "task", 0, "the task to export")
	cmd.Flags().StringVar(&out, "out", "", "the WARC file to write (default task-N.warc.gz); its index goes beside it as .cdxj")
	return cmd
}
