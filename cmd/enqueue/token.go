package main

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/apitoken"
)

// orgCmd holds an organisation's API tokens (internal/apitoken): the
// bearer tokens the service API acts for that organisation on.
func (a *app) orgCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "org", Short: "An organisation's API tokens (create, list, revoke) and fair share of the workers (--org is required, never the default)"}
	cmd.AddCommand(a.tokenCmd(apitoken.Organization), a.shareCmd())
	return cmd
}

// operatorCmd holds the operator tokens: an operator's API token belongs
// to no organisation.
func (a *app) operatorCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "operator", Short: "The operators' API tokens (no organisation): create, list, revoke"}
	cmd.AddCommand(a.tokenCmd(apitoken.Operator))
	return cmd
}

func (a *app) tokenCmd(kind apitoken.Kind) *cobra.Command {
	whose := "the organisation's (--org)"
	if kind == apitoken.Operator {
		whose = "the operators'"
	}
	cmd := &cobra.Command{Use: "token", Short: "Bearer tokens of the service API, " + whose}
	cmd.AddCommand(a.tokenCreateCmd(kind), a.tokenListCmd(kind), a.tokenRevokeCmd(kind))
	return cmd
}

// tokenOwner is the organisation a token command acts for: --org, which
// an organisation's token command requires given explicitly (a token made
// for the default organisation by accident would be a security slip), and
// an operator's refuses. Then it connects.
func (a *app) tokenOwner(cmd *cobra.Command, kind apitoken.Kind) (string, error) {
	given := cmd.Flags().Changed("org")
	switch {
	case kind == apitoken.Organization && !given:
		return "", usageErr("--org is required: an organisation's token acts for the organisation it names, so none is assumed")
	case kind == apitoken.Operator && given:
		return "", usageErr("--org: an operator token belongs to no organisation (enqueue org token … makes an organisation's)")
	}
	org := ""
	if kind == apitoken.Organization {
		org = a.org
	}
	return org, a.connect(cmd.Context())
}

func (a *app) tokenCreateCmd(kind apitoken.Kind) *cobra.Command {
	var name string
	c := &cobra.Command{
		Use:   "create",
		Short: "Make a token and print its secret, alone on stdout's one line, this once (id and usage on stderr)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			org, err := a.tokenOwner(cmd, kind)
			if err != nil {
				return err
			}
			secret, tok, err := apitoken.Issue(cmd.Context(), a.store, kind, org, name)
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.emit(struct {
					apitoken.Token
					Secret string `json:"secret"`
				}{tok, secret}, nil)
			}
			fmt.Fprintln(a.out, secret)
			whom := "the operators"
			if org != "" {
				whom = "organisation " + strconv.Quote(org)
			}
			fmt.Fprintf(a.errOut, "token %d (%s) for %s: the line above is its secret, shown only now; send it as the header \"Authorization: Bearer <secret>\"\n",
				tok.ID, tok.Display(), whom)
			return nil
		},
	}
	c.Flags().StringVar(&name, "name", "", "what the token is for (at most 200 characters), shown by list")
	return c
}

func (a *app) tokenListCmd(kind apitoken.Kind) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "The tokens, revoked ones included: id, name, hint, created, last used, revoked (never a secret)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			org, err := a.tokenOwner(cmd, kind)
			if err != nil {
				return err
			}
			toks, err := apitoken.List(cmd.Context(), a.store, kind, org)
			if err != nil {
				return err
			}
			return a.emit(map[string]any{"tokens": toks}, func(w io.Writer) {
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "id\tname\ttoken\tcreated\tlast used\trevoked")
				for _, t := range toks {
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, t.Display(), t.CreatedAt.UTC().Format(time.RFC3339),
						timeOr(t.LastUsedAt, "never"), timeOr(t.RevokedAt, "-"))
				}
				tw.Flush()
			})
		},
	}
}

func (a *app) tokenRevokeCmd(kind apitoken.Kind) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a token: the API refuses it (401) from the next request on",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return usageErr("token id %q: want the id token list shows", args[0])
			}
			org, err := a.tokenOwner(cmd, kind)
			if err != nil {
				return err
			}
			tok, was, err := apitoken.Revoke(cmd.Context(), a.store, kind, org, id)
			if err != nil {
				return err
			}
			return a.emit(map[string]any{"token": tok, "was_revoked": was}, func(w io.Writer) {
				at := timeOr(tok.RevokedAt, "")
				if was {
					fmt.Fprintf(w, "token %d (%s) was already revoked at %s\n", tok.ID, tok.Display(), at)
					return
				}
				fmt.Fprintf(w, "token %d (%s) revoked at %s\n", tok.ID, tok.Display(), at)
			})
		},
	}
}

// timeOr is *t in RFC 3339 (UTC), or none when t is nil.
func timeOr(t *time.Time, none string) string {
	if t == nil {
		return none
	}
	return t.UTC().Format(time.RFC3339)
}
