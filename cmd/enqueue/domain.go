package main

import (
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/domainpolicy"
	"github.com/evidencefleet/evidencefleet/internal/verification"
	"github.com/evidencefleet/evidencefleet/store"
)

// domainCmd reads and sets domains' levels of record (ARCHITECTURE.md §5.5).
func (a *app) domainCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "domain", Short: "Read and set the trust levels of domains (every change audited)"}
	cmd.AddCommand(a.domainListCmd(), a.domainShowCmd(), a.domainSetCmd(), a.domainBlockCmd(), a.domainUnblockCmd(), a.domainClearCmd())
	return cmd
}

func (a *app) domainListCmd() *cobra.Command {
	var level string
	var limit int32
	c := &cobra.Command{
		Use:   "list",
		Short: "Domains with their level, who set it and why, best level first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var only *string
			if level != "" {
				l := strings.ToUpper(level)
				if !domainpolicy.IsLevel(l) {
					return usageErr("--level %q: want one of %s", level, strings.Join(domainpolicy.Levels, ", "))
				}
				only = &l
			}
			if err := a.connect(cmd.Context()); err != nil {
				return err
			}
			rows, err := store.New(a.pool).ListDomains(cmd.Context(), store.ListDomainsParams{Level: only, MaxRows: limit})
			if err != nil {
				return fmt.Errorf("list domains: %w", err)
			}
			return a.emit(map[string]any{"domains": rows}, func(w io.Writer) {
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "domain\tlevel\tset by\twhy\tflag")
				for _, r := range rows {
					by := r.LevelSource
					if r.LevelSetBy != "" {
						by += " " + r.LevelSetBy
					}
					flag := ""
					if r.FlaggedAt != nil {
						flag = "flagged: " + r.FlagReason
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Domain, r.TrustLevel, by, r.LevelRule, flag)
				}
				tw.Flush()
			})
		},
	}
	c.Flags().StringVar(&level, "level", "", "only domains of this level")
	c.Flags().Int32Var(&limit, "limit", 1000, "at most this many domains")
	return c
}

func (a *app) domainShowCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "show DOMAIN",
		Short: "A domain's level of record, its block or flag, and every change made to it (by people and source verification)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			domain, err := domainpolicy.NormalizeDomain(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			if err := a.connect(cmd.Context()); err != nil {
				return err
			}
			q := store.New(a.pool)
			rows, err := q.ListDomains(cmd.Context(), store.ListDomainsParams{Domain: &domain, MaxRows: 1})
			if err != nil {
				return fmt.Errorf("read domain %s: %w", domain, err)
			}
			if len(rows) == 0 {
				return fmt.Errorf("domain %s: not seen yet (its first page gives it the policy's level)", domain)
			}
			row := rows[0]
			// an operator's read (database credentials): the fleet's rows and
			// every organization's view's
			changes, err := q.DomainLevelChanges(cmd.Context(), store.DomainLevelChangesParams{Domain: domain, AllViews: true})
			if err != nil {
				return fmt.Errorf("read the changes of %s: %w", domain, err)
			}
			return a.emit(map[string]any{"domain": row, "changes": changes}, func(w io.Writer) {
				fmt.Fprintf(w, "%s (site %s): %s, set by %s %s at %s: %s\n", row.Domain, row.Site, row.TrustLevel,
					row.LevelSource, row.LevelSetBy, row.LevelSetAt.UTC().Format(time.RFC3339), row.LevelRule)
				fmt.Fprintf(w, "claims: %d, %d rejected\n", row.TotalClaims, row.RejectedClaims)
				if row.BlockedAt != nil {
					r := verification.RestoreFor(row.Domain, row.BlockReason)
					fmt.Fprintf(w, "blocked at %s (%s); restore: %s (gives back %s; risk %s: %s)\n", row.BlockedAt.UTC().Format(time.RFC3339),
						row.BlockReason, r.Via, row.OriginalTrustLevel, r.Risk, r.RiskReason)
				}
				if row.FlaggedAt != nil {
					fmt.Fprintf(w, "flagged for review at %s: %s\n", row.FlaggedAt.UTC().Format(time.RFC3339), row.FlagReason)
				}
				for _, c := range changes {
					fmt.Fprintf(w, "  %s  %-8s %s → %s in %s by %s (%s): %s\n", c.At.UTC().Format(time.RFC3339), c.Action, deref(c.OldLevel), c.NewLevel,
						changeScope(c), changeActor(c), c.Source, c.Reason)
				}
			})
		},
	}
}

func (a *app) domainSetCmd() *cobra.Command {
	return a.domainEditCmd("set DOMAIN LEVEL", "Set a domain's level of record (PRIMARY, GOVERNMENT, ACADEMIC, TRUSTED, LOW, UNVERIFIED)", 2,
		func(args []string) (store.DomainLevelEdit, error) {
			level := strings.ToUpper(args[1])
			if !domainpolicy.IsLevel(level) || level == domainpolicy.Blocked {
				return store.DomainLevelEdit{}, usageErr("level %q: want one of %s (to block, use domain block)", args[1],
					strings.Join(domainpolicy.Levels[:len(domainpolicy.Levels)-1], ", "))
			}
			return store.DomainLevelEdit{Level: level}, nil
		})
}

func (a *app) domainBlockCmd() *cobra.Command {
	return a.domainEditCmd("block DOMAIN", "Block a domain: its pages are not fetched and its fragments not judged or ranked; unblock gives back its level", 1,
		func([]string) (store.DomainLevelEdit, error) {
			return store.DomainLevelEdit{Level: domainpolicy.Blocked}, nil
		})
}

func (a *app) domainUnblockCmd() *cobra.Command {
	return a.domainEditCmd("unblock DOMAIN", "Unblock a domain, giving back the level its block replaced", 1,
		func([]string) (store.DomainLevelEdit, error) { return store.DomainLevelEdit{Unblock: true}, nil })
}

func (a *app) domainClearCmd() *cobra.Command {
	return a.domainEditCmd("clear DOMAIN", "Forget the levels people and source verification set for a domain (and its block or flag): it gets the domain policy's level (EVF_DOMAIN_POLICY, else the built-in policy)", 1,
		func(args []string) (store.DomainLevelEdit, error) {
			policy, err := domainpolicy.Load(os.Getenv("EVF_DOMAIN_POLICY"))
			if err != nil {
				return store.DomainLevelEdit{}, err
			}
			d := policy.Decide(args[0])
			return store.DomainLevelEdit{Clear: true, PolicyLevel: d.Level, PolicyRule: d.Rule}, nil
		})
}

// domainEditCmd is a command that changes one domain's level: edit reads
// the change from the arguments (the domain is the first).
func (a *app) domainEditCmd(use, short string, nargs int, edit func(args []string) (store.DomainLevelEdit, error)) *cobra.Command {
	var reason, by string
	var view bool
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(nargs),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := edit(args)
			if err != nil {
				return err
			}
			e.Reason, e.By = reason, by
			if view {
				if e.Clear {
					e = store.DomainLevelEdit{Clear: true, Reason: reason, By: by}
				}
				e.Org = a.org
			}
			return a.changeDomain(cmd, args[0], e)
		},
	}
	reviewerFlags(c, &reason, &by)
	c.Flags().BoolVar(&view, "org-view", false, "change only the view of --org (its tasks see and stamp it; a block there is one vote toward the fleet's quorum) instead of the fleet's level of record")
	return c
}

// reviewerFlags are the flags every change takes: why (required) and who.
func reviewerFlags(c *cobra.Command, reason, by *string) {
	who := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		who = u.Username
	}
	c.Flags().StringVar(reason, "reason", "", "why (required; recorded with the change)")
	c.Flags().StringVar(by, "by", who, "who makes the change")
}

// requireReviewer refuses a change without why and who.
func requireReviewer(reason, by string) error {
	if strings.TrimSpace(reason) == "" {
		return usageErr("--reason is required: every change is recorded with why")
	}
	if strings.TrimSpace(by) == "" {
		return usageErr("--by is required: every change is recorded with who")
	}
	return nil
}

// changeDomain applies a person's change with one store call.
func (a *app) changeDomain(cmd *cobra.Command, arg string, edit store.DomainLevelEdit) error {
	domain, err := domainpolicy.NormalizeDomain(arg)
	if err != nil {
		return usageErr("%v", err)
	}
	if err := requireReviewer(edit.Reason, edit.By); err != nil {
		return err
	}
	edit.Domain = domain
	if err := a.connect(cmd.Context()); err != nil {
		return err
	}
	res, err := a.store.ChangeDomainLevel(cmd.Context(), edit)
	if err != nil {
		return err
	}
	return a.emit(res, func(w io.Writer) {
		if !res.Changed {
			fmt.Fprintf(w, "%s: already %s, nothing changed\n", res.Domain, res.Level)
			return
		}
		fmt.Fprintf(w, "%s: %s → %s\n", res.Domain, res.OldLevel, res.Level)
	})
}

func deref(s *string) string {
	if s == nil {
		return "—"
	}
	return *s
}

// changeScope is where an audit row's change holds: the fleet, or one
// organization's view.
func changeScope(c store.DomainLevelChangesRow) string {
	if c.Scope == "organization" {
		return c.OrganizationID + "'s view"
	}
	return "the fleet"
}

// changeActor names who made an audit row's change.
func changeActor(c store.DomainLevelChangesRow) string {
	switch c.ActorKind {
	case "organization":
		s := "organization " + c.ActorOrganizationID
		if c.ActorTokenID != nil {
			s += fmt.Sprintf(" (token %d)", *c.ActorTokenID)
		}
		return s + ", " + c.SetBy
	case "operator":
		if c.ActorTokenID != nil {
			return fmt.Sprintf("operator %s (token %d)", c.SetBy, *c.ActorTokenID)
		}
		return "operator " + c.SetBy
	case "rule":
		return "the rule on the evidence of " + strings.Join(c.RuleOrganizations, ", ")
	}
	return c.SetBy
}
