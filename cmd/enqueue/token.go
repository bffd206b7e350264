package main

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/apitoken"
	"github.com/evidencefleet/evidencefleet/internal/config"
)

// orgCmd holds an organization's API tokens (internal/apitoken): the
// bearer tokens the service API acts for that organization on.
func (a *app) orgCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "org", Short: "An organization's API tokens (create, list, rotate, revoke) and fair share of the workers (--org is required, never the default)"}
	cmd.AddCommand(a.tokenCmd(apitoken.Organization), a.shareCmd())
	return cmd
}

// operatorCmd holds the operator tokens: an operator's API token belongs
// to no organization.
func (a *app) operatorCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "operator", Short: "The operators' API tokens (no organization): create, list, rotate, revoke"}
	cmd.AddCommand(a.tokenCmd(apitoken.Operator))
	return cmd
}

func (a *app) tokenCmd(kind apitoken.Kind) *cobra.Command {
	whose := "the organization's (--org)"
	if kind == apitoken.Operator {
		whose = "the operators'"
	}
	cmd := &cobra.Command{Use: "token", Short: "Bearer tokens of the service API, " + whose}
	cmd.AddCommand(a.tokenCreateCmd(kind), a.tokenListCmd(kind), a.tokenRotateCmd(kind), a.tokenRevokeCmd(kind))
	return cmd
}

// tokenOwner is the organization a token command acts for: --org, which
// an organization's token command requires given explicitly (a token made
// for the default organization by accident would be a security slip), and
// an operator's refuses. Then it connects.
func (a *app) tokenOwner(cmd *cobra.Command, kind apitoken.Kind) (string, error) {
	given := cmd.Flags().Changed("org")
	switch {
	case kind == apitoken.Organization && !given:
		return "", usageErr("--org is required: an organization's token acts for the organization it names, so none is assumed")
	case kind == apitoken.Operator && given:
		return "", usageErr("--org: an operator token belongs to no organization (enqueue org token … makes an organization's)")
	}
	org := ""
	if kind == apitoken.Organization {
		org = a.org
	}
	return org, a.connect(cmd.Context())
}

// tokenLifetime is --ttl, else EVF_API_TOKEN_TTL, within
// EVF_API_TOKEN_MAX_TTL.
func tokenLifetime(cmd *cobra.Command, ttl time.Duration) (time.Duration, error) {
	bounds, err := config.LoadAPIToken()
	if err != nil {
		return 0, &exitError{code: 2, msg: err.Error()}
	}
	if !cmd.Flags().Changed("ttl") {
		return bounds.TTL, nil
	}
	if ttl <= 0 || ttl > bounds.MaxTTL {
		return 0, usageErr("--ttl %s: want a positive duration of at most %s (EVF_API_TOKEN_MAX_TTL)", ttl, bounds.MaxTTL)
	}
	return ttl, nil
}

const ttlUsage = "the token's lifetime, e.g. 720h for 30 days (default: EVF_API_TOKEN_TTL, 2160h; at most EVF_API_TOKEN_MAX_TTL, 8760h)"

func (a *app) tokenCreateCmd(kind apitoken.Kind) *cobra.Command {
	var name string
	var ttl time.Duration
	c := &cobra.Command{
		Use:   "create",
		Short: "Make a token and print its secret, alone on stdout's one line, this once (id, expiry and usage on stderr)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lifetime, err := tokenLifetime(cmd, ttl)
			if err != nil {
				return err
			}
			org, err := a.tokenOwner(cmd, kind)
			if err != nil {
				return err
			}
			secret, tok, err := apitoken.IssueFor(cmd.Context(), a.store, kind, org, name, lifetime)
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
				whom = "organization " + strconv.Quote(org)
			}
			fmt.Fprintf(a.errOut, "token %d (%s) for %s, expires %s: the line above is its secret, shown only now; send it as the header \"Authorization: Bearer <secret>\"\n",
				tok.ID, tok.Display(), whom, tok.ExpiresAt.UTC().Format(time.RFC3339))
			return nil
		},
	}
	c.Flags().StringVar(&name, "name", "", "what the token is for (at most 200 characters), shown by list")
	c.Flags().DurationVar(&ttl, "ttl", 0, ttlUsage)
	return c
}

func (a *app) tokenRotateCmd(kind apitoken.Kind) *cobra.Command {
	var grace, ttl time.Duration
	c := &cobra.Command{
		Use:   "rotate ID",
		Short: "Replace a token without downtime: make a new one (same name) and let the old one work for --grace more, in one transaction; the new secret is printed alone on stdout, this once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return usageErr("token id %q: want the id token list shows", args[0])
			}
			if grace < 0 || grace > apitoken.MaxGrace {
				return usageErr("--grace %s: want 0 to %s", grace, apitoken.MaxGrace)
			}
			lifetime, err := tokenLifetime(cmd, ttl)
			if err != nil {
				return err
			}
			org, err := a.tokenOwner(cmd, kind)
			if err != nil {
				return err
			}
			secret, rot, err := apitoken.Rotate(cmd.Context(), a.store, kind, org, id, grace, lifetime)
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.emit(struct {
					apitoken.Rotation
					Secret string `json:"secret"`
				}{rot, secret}, nil)
			}
			fmt.Fprintln(a.out, secret)
			fmt.Fprintf(a.errOut, "token %d (%s) replaces token %d (%s), which works until %s; the new one expires %s. The line above is its secret, shown only now\n",
				rot.New.ID, rot.New.Display(), rot.Old.ID, rot.Old.Display(), rot.Old.ExpiresAt.UTC().Format(time.RFC3339), rot.New.ExpiresAt.UTC().Format(time.RFC3339))
			return nil
		},
	}
	c.Flags().DurationVar(&grace, "grace", time.Hour, "how long the old token keeps working, for clients to move to the new secret (0: it stops now)")
	c.Flags().DurationVar(&ttl, "ttl", 0, "the new "+ttlUsage[len("the "):])
	return c
}

func (a *app) tokenListCmd(kind apitoken.Kind) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "The tokens, revoked and expired ones included: id, name, hint, created, last used, expires, revoked (never a secret)",
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
				fmt.Fprintln(tw, "id\tname\ttoken\tcreated\tlast used\texpires\trevoked")
				now := time.Now()
				for _, t := range toks {
					expires := t.ExpiresAt.UTC().Format(time.RFC3339)
					if !now.Before(t.ExpiresAt) {
						expires += " (expired)"
					}
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, t.Display(), t.CreatedAt.UTC().Format(time.RFC3339),
						timeOr(t.LastUsedAt, "never"), expires, timeOr(t.RevokedAt, "-"))
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
