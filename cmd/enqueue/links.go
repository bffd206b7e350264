package main

import (
	"fmt"
	"io"
	"os"
	"os/user"

	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/service"
)

// claimLinkCmds are `claim link` and `claim links`: claim dependencies
// (ARCHITECTURE.md §5.8).
func (a *app) claimLinkCmds() []*cobra.Command {
	var taskID int64
	var from, to, relation, reason, by string
	var weight float64
	link := &cobra.Command{
		Use:   "link",
		Short: "Link two claims of a task: --from E3 --to E1 --relation depends_on means E3 depends on E1 (E1's belief flows into E3's propagated belief, times --weight; contradicts with sign −1)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().NFlag() == 0 {
				return cmd.Help() // given nothing, as every command with sub-commands (accept, reject)
			}
			if taskID <= 0 || from == "" || to == "" || relation == "" {
				return usageErr("--task, --from, --to and --relation are required")
			}
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			l, err := a.svc.LinkClaims(ctx, a.org, taskID, from, to, relation, weight, by, reason)
			if err != nil {
				return err
			}
			return a.emit(l, func(w io.Writer) { writeLink(w, l) })
		},
	}
	link.Flags().Int64Var(&taskID, "task", 0, "task id (required)")
	link.Flags().StringVar(&from, "from", "", "the dependent claim's E-number (required)")
	link.Flags().StringVar(&to, "to", "", "the E-number of the claim it depends on (required)")
	link.Flags().StringVar(&relation, "relation", "", "depends_on or contradicts (required)")
	link.Flags().Float64Var(&weight, "weight", 1, "how much of the parent's log-odds flows in, in [0, 1]")
	link.Flags().StringVar(&reason, "reason", "", "why (recorded with the link)")
	who := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		who = u.Username
	}
	link.Flags().StringVar(&by, "by", who, "who makes the link")
	link.AddCommand(a.claimLinkReviewCmds()...)

	var listTask int64
	links := &cobra.Command{
		Use:   "links",
		Short: "List a task's claim links (from depends on / contradicts to), in E-number order",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if listTask <= 0 {
				return usageErr("--task is required")
			}
			ctx := cmd.Context()
			if err := a.connect(ctx); err != nil {
				return err
			}
			ls, err := a.svc.ClaimLinks(ctx, a.org, listTask)
			if err != nil {
				return err
			}
			return a.emit(ls, func(w io.Writer) {
				for _, l := range ls {
					writeLink(w, l)
				}
			})
		},
	}
	links.Flags().Int64Var(&listTask, "task", 0, "task id (required)")
	return []*cobra.Command{link, links}
}

func writeLink(w io.Writer, l service.ClaimLink) {
	fmt.Fprintf(w, "%s\t%s\t%s\tweight %.2f\t%s\t%s\t%s\n", l.From, l.Relation, l.To, l.Weight, l.Status, l.CreatedBy, l.Reason)
}
