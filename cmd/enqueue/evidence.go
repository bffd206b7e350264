package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/service"
)

// evidenceCmd is the evidence of record (ARCHITECTURE.md §5.7): with
// --task, the export as JSON Lines; list is Evidence.List.
func (a *app) evidenceCmd() *cobra.Command {
	var taskID int64
	cmd := &cobra.Command{
		Use:   "evidence",
		Short: "The evidence of record: --task N writes the task's evidence export as JSON Lines, one claim per line in E-number order; list gives spans",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("task") {
				return cmd.Help() // given nothing, as every command with sub-commands
			}
			if taskID <= 0 {
				return usageErr("--task is required (or use evidence list)")
			}
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			enc := json.NewEncoder(a.out)
			enc.SetEscapeHTML(false)
			for after := 0; ; {
				page, err := a.svc.Export(ctx, a.org, taskID, after, 0)
				if err != nil {
					return err
				}
				for _, it := range page.Items {
					if err := enc.Encode(it); err != nil {
						return fmt.Errorf("write the export: %w", err)
					}
				}
				if after = page.Next; after == 0 {
					return nil
				}
			}
		},
	}
	cmd.Flags().Int64Var(&taskID, "task", 0, "the task to export")
	cmd.AddCommand(a.evidenceListCmd())
	return cmd
}

func (a *app) evidenceListCmd() *cobra.Command {
	var f service.EvidenceFilter
	var limit int
	var cursor string
	c := &cobra.Command{
		Use:   "list",
		Short: "Evidence.List: the evidence spans of one claim, page or task, a page at a time (--cursor goes on)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := a.connect(cmd.Context()); err != nil {
				return err
			}
			page, err := a.svc.EvidenceList(cmd.Context(), a.org, f, limit, cursor)
			if errors.Is(err, service.ErrBadRequest) {
				return usageErr("%v", err)
			}
			if err != nil {
				return err
			}
			return a.emit(page, func(w io.Writer) {
				for _, s := range page.Evidence {
					conf := "—"
					if s.Confidence != nil {
						conf = fmt.Sprintf("%.2f", *s.Confidence)
					}
					fmt.Fprintf(w, "%s %-8s %s  “%s”\n    page %d version %d chars %d–%d", s.Source.EvidenceNo, s.Kind, conf,
						truncate(strings.Join(strings.Fields(s.Text), " "), 160), s.PageID, s.PageVersionID, s.StartChar, s.EndChar)
					if s.Source.EdgeID != nil {
						fmt.Fprintf(w, " edge %d", *s.Source.EdgeID)
					}
					if s.Source.Model != "" {
						fmt.Fprintf(w, " (%s)", s.Source.Model)
					}
					fmt.Fprintln(w)
				}
				if page.Next != "" {
					fmt.Fprintf(w, "more: --cursor %s\n", page.Next)
				}
			})
		},
	}
	c.Flags().Int64Var(&f.TaskID, "task", 0, "the task's evidence")
	c.Flags().Int64Var(&f.ClaimID, "claim", 0, "the claim's evidence (its origin quote and its NLI edges)")
	c.Flags().Int64Var(&f.PageID, "page", 0, "the evidence on one page (reached through one of your tasks)")
	c.Flags().IntVar(&limit, "limit", service.DefaultEvidenceLimit, fmt.Sprintf("spans per page, at most %d", service.MaxEvidenceLimit))
	c.Flags().StringVar(&cursor, "cursor", "", "go on from where the previous page ended (its next_cursor)")
	return c
}
