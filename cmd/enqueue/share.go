package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/store"
)

// shareCmd shows or sets an organization's fair share (internal/workers
// fairshare.go): the fraction of a kind's running jobs it may hold while
// another organization's jobs of that kind wait.
func (a *app) shareCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "share [FRACTION|default]",
		Short: "Show or set the organization's (--org) fair share of the workers: a fraction in (0, 1] of a kind's running jobs it may hold while another organization's wait (1 = no limit; default = EVF_ORG_SHARE)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("org") {
				return usageErr("--org is required: a share belongs to the organization it names, so none is assumed")
			}
			var share float64
			if len(args) == 1 && args[0] != "default" {
				v, err := strconv.ParseFloat(args[0], 64)
				if err != nil || math.IsNaN(v) || v <= 0 || v > 1 {
					return usageErr("share %q: want a fraction in (0, 1], such as 0.25, or default", args[0])
				}
				share = v
			}
			if err := a.connect(cmd.Context()); err != nil {
				return err
			}
			ctx := cmd.Context()
			switch {
			case len(args) == 0:
			case share == 0:
				if _, err := a.store.ClearOrganizationShare(ctx, a.org); err != nil {
					return fmt.Errorf("clear the share of %q: %w", a.org, err)
				}
			default:
				if _, err := a.store.SetOrganizationShare(ctx, store.SetOrganizationShareParams{OrganizationID: a.org, Share: share}); err != nil {
					return fmt.Errorf("set the share of %q: %w", a.org, err)
				}
			}
			set, err := a.store.OrganizationShare(ctx, a.org)
			switch {
			case store.IsNotFound(err):
				return a.emit(map[string]any{"organization_id": a.org, "share": nil}, func(w io.Writer) {
					fmt.Fprintf(w, "organization %q: the default share (EVF_ORG_SHARE of the workers)\n", a.org)
				})
			case err != nil:
				return fmt.Errorf("read the share of %q: %w", a.org, err)
			}
			return a.emit(map[string]any{"organization_id": a.org, "share": set.Share, "updated_at": set.UpdatedAt}, func(w io.Writer) {
				fmt.Fprintf(w, "organization %q: share %g, set %s\n", a.org, set.Share, set.UpdatedAt.UTC().Format(time.RFC3339))
			})
		},
	}
}
