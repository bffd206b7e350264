package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/apitoken"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// tokenBundle is a migrated database without a fleet (token commands need
// no worker) and an authenticator on it, as the service API has.
type tokenBundle struct {
	*bundle
	pool *pgxpool.Pool
	auth *apitoken.Authenticator
}

func setupTokens(t *testing.T) *tokenBundle {
	t.Helper()
	b := &bundle{ctx: context.Background(), url: pgtest.URL(t)}
	pool, err := pgxpool.New(b.ctx, b.url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return &tokenBundle{bundle: b, pool: pool, auth: apitoken.NewAuthenticator(store.NewStore(pool))}
}

func (b *tokenBundle) tokens(t *testing.T) int {
	t.Helper()
	var n int
	if err := b.pool.QueryRow(b.ctx, `SELECT count(*) FROM api_tokens`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// create runs a token create command and returns its secret: stdout must
// be exactly one line, the secret alone, and stderr must not repeat it.
func (b *tokenBundle) create(t *testing.T, args ...string) string {
	t.Helper()
	r := b.run(t, args...)
	if r.err != nil {
		t.Fatalf("enqueue %s: exit %d: %v\n%s", strings.Join(args, " "), r.code(), r.err, r.stderr)
	}
	secret, ok := strings.CutSuffix(r.stdout, "\n")
	if !ok || strings.ContainsAny(secret, "\n \t") {
		t.Fatalf("enqueue %s: stdout %q, want the secret alone on one line", strings.Join(args, " "), r.stdout)
	}
	if _, ok := apitoken.Parse(secret); !ok {
		t.Fatalf("enqueue %s: stdout %q is not a secret", strings.Join(args, " "), secret)
	}
	if strings.Contains(r.stderr, secret[len(secret)-30:]) || !strings.Contains(r.stderr, "Authorization: Bearer") {
		t.Errorf("enqueue %s: stderr %q shows the secret or not how to use it", strings.Join(args, " "), r.stderr)
	}
	return secret
}

// TestOrgTokenCommands: org token create needs an explicit --org, prints
// the secret alone on stdout, and the token authenticates as that
// organization; list never shows a secret; revoke of another
// organization's id is not found and changes nothing; a revoked token no
// longer authenticates.
func TestOrgTokenCommands(t *testing.T) {
	t.Parallel()
	b := setupTokens(t)
	if r := b.run(t, "org", "token", "create", "--name", "ci"); r.code() != 2 || r.stdout != "" || !strings.Contains(r.err.Error(), "--org is required") {
		t.Errorf("create without --org: exit %d (%v), stdout %q; want 2, --org is required", r.code(), r.err, r.stdout)
	}
	if r := b.run(t, "org", "token", "list"); r.code() != 2 {
		t.Errorf("list without --org: exit %d (%v), want 2", r.code(), r.err)
	}
	if n := b.tokens(t); n != 0 {
		t.Fatalf("%d tokens made without --org", n)
	}

	secret := b.create(t, "org", "token", "create", "--org", "acme", "--name", "ci")
	p, err := b.auth.Authenticate(b.ctx, secret)
	if err != nil || p.Kind != apitoken.Organization || p.Org != "acme" {
		t.Fatalf("the printed secret authenticates as %+v, %v; want organization acme", p, err)
	}
	var created struct {
		ID     int64  `json:"id"`
		Kind   string `json:"kind"`
		Org    string `json:"organization_id"`
		Secret string `json:"secret"`
	}
	b.mustRunJSON(t, &created, "--org", "globex", "org", "token", "create")
	if q, err := b.auth.Authenticate(b.ctx, created.Secret); err != nil || created.Kind != "organization" || created.Org != "globex" ||
		q != (apitoken.Principal{TokenID: created.ID, Kind: apitoken.Organization, Org: "globex"}) {
		t.Errorf("create --json: %+v authenticates as %+v, %v", created, q, err)
	}

	list := b.mustRun(t, "org", "token", "list", "--org", "acme")
	if !strings.Contains(list, "ci") || !strings.Contains(list, secret[:16]+"…") || strings.Contains(list, secret[16:]) {
		t.Errorf("list shows no token ci with its hint, or its secret:\n%s", list)
	}
	var listed struct{ Tokens []map[string]any }
	b.mustRunJSON(t, &listed, "org", "token", "list", "--org", "acme")
	js, _ := json.Marshal(listed)
	if len(listed.Tokens) != 1 || listed.Tokens[0]["name"] != "ci" || listed.Tokens[0]["last_used_at"] == nil ||
		strings.Contains(string(js), secret[16:]) || strings.Contains(string(js), "hash") {
		t.Errorf("list --json: %s", js)
	}
	if out := b.mustRun(t, "org", "token", "list", "--org", "initech"); strings.Count(out, "\n") != 1 {
		t.Errorf("another organization lists:\n%s", out)
	}

	id := fmt.Sprint(p.TokenID)
	if r := b.run(t, "org", "token", "revoke", "--org", "globex", id); r.code() != 1 || !strings.Contains(r.err.Error(), "does not exist") {
		t.Errorf("revoke of acme's token as globex: exit %d (%v), want 1, does not exist", r.code(), r.err)
	}
	if _, err := b.auth.Authenticate(b.ctx, secret); err != nil {
		t.Errorf("after another organization's revoke: %v", err)
	}
	for _, bad := range []string{"x", "0", "-3"} {
		if r := b.run(t, "org", "token", "revoke", "--org", "acme", bad); r.code() != 2 {
			t.Errorf("revoke %q: exit %d (%v), want 2", bad, r.code(), r.err)
		}
	}
	if out := b.mustRun(t, "org", "token", "revoke", "--org", "acme", id); !strings.HasPrefix(out, "token "+id+" (evf_org_") || !strings.Contains(out, " revoked at ") {
		t.Errorf("revoke printed %q", out)
	}
	if _, err := b.auth.Authenticate(b.ctx, secret); !errors.Is(err, apitoken.ErrInvalidToken) {
		t.Errorf("the revoked token authenticates: %v", err)
	}
	if out := b.mustRun(t, "org", "token", "revoke", "--org", "acme", id); !strings.Contains(out, "already revoked") {
		t.Errorf("second revoke printed %q", out)
	}
	if _, err := b.auth.Authenticate(b.ctx, created.Secret); err != nil {
		t.Errorf("globex's token after acme's revoke: %v", err)
	}
}

// TestOperatorTokenCommands: operator tokens take no --org, authenticate
// as operators, are listed and revoked apart from organizations' tokens.
func TestOperatorTokenCommands(t *testing.T) {
	t.Parallel()
	b := setupTokens(t)
	if r := b.run(t, "operator", "token", "create", "--org", "acme"); r.code() != 2 || r.stdout != "" {
		t.Errorf("operator token create --org: exit %d (%v), stdout %q; want 2", r.code(), r.err, r.stdout)
	}
	op := b.create(t, "operator", "token", "create", "--name", "oncall")
	org := b.create(t, "org", "token", "create", "--org", "acme")
	p, err := b.auth.Authenticate(b.ctx, op)
	if err != nil || !p.Operator() || p.Org != "" || !strings.HasPrefix(op, "evf_op_") {
		t.Fatalf("operator secret %.10s… authenticates as %+v, %v", op, p, err)
	}
	q, err := b.auth.Authenticate(b.ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	if out := b.mustRun(t, "operator", "token", "list"); !strings.Contains(out, "oncall") || strings.Contains(out, "evf_org_") {
		t.Errorf("operator token list:\n%s", out)
	}
	if out := b.mustRun(t, "org", "token", "list", "--org", "acme"); strings.Contains(out, "oncall") || strings.Contains(out, "evf_op_") {
		t.Errorf("org token list shows the operator token:\n%s", out)
	}
	if r := b.run(t, "org", "token", "revoke", "--org", "acme", fmt.Sprint(p.TokenID)); r.code() != 1 {
		t.Errorf("an organization revoking the operator token: exit %d (%v), want 1", r.code(), r.err)
	}
	if r := b.run(t, "operator", "token", "revoke", fmt.Sprint(q.TokenID)); r.code() != 1 {
		t.Errorf("operator token revoke of an organization's token: exit %d (%v), want 1", r.code(), r.err)
	}
	b.mustRun(t, "operator", "token", "revoke", fmt.Sprint(p.TokenID))
	if _, err := b.auth.Authenticate(b.ctx, op); !errors.Is(err, apitoken.ErrInvalidToken) {
		t.Errorf("the revoked operator token authenticates: %v", err)
	}
	if _, err := b.auth.Authenticate(b.ctx, org); err != nil {
		t.Errorf("acme's token after the operator's revoke: %v", err)
	}
}

// TestTokenLifetimeAndRotateCommands: create takes --ttl within
// EVF_API_TOKEN_MAX_TTL and prints the expiry; list shows expiry and
// last use; rotate prints the new secret alone on stdout, and the old
// secret works through its --grace only.
func TestTokenLifetimeAndRotateCommands(t *testing.T) {
	t.Parallel()
	b := setupTokens(t)
	if r := b.run(t, "org", "token", "create", "--org", "acme", "--ttl", "9000h"); r.code() != 2 || !strings.Contains(r.err.Error(), "EVF_API_TOKEN_MAX_TTL") {
		t.Errorf("--ttl over the maximum: exit %d (%v), want 2 naming EVF_API_TOKEN_MAX_TTL", r.code(), r.err)
	}
	r := b.run(t, "org", "token", "create", "--org", "acme", "--name", "ci", "--ttl", "48h")
	if r.err != nil || !strings.Contains(r.stderr, ", expires 20") {
		t.Fatalf("create --ttl 48h: %v, stderr %q", r.err, r.stderr)
	}
	old := strings.TrimSpace(r.stdout)
	p, err := b.auth.Authenticate(b.ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	if list := b.mustRun(t, "org", "token", "list", "--org", "acme"); !strings.Contains(list, "expires") || !strings.Contains(list, "last used") {
		t.Errorf("list shows no expiry or last use:\n%s", list)
	}

	id := fmt.Sprint(p.TokenID)
	if r := b.run(t, "org", "token", "rotate", "--org", "globex", id); r.code() != 1 || !strings.Contains(r.err.Error(), "does not exist") {
		t.Errorf("rotate of acme's token as globex: exit %d (%v), want 1, does not exist", r.code(), r.err)
	}
	r = b.run(t, "org", "token", "rotate", "--org", "acme", id, "--grace", "1h")
	secret, ok := strings.CutSuffix(r.stdout, "\n")
	if r.err != nil || !ok || strings.Contains(secret, "\n") || strings.Contains(r.stderr, secret) {
		t.Fatalf("rotate: %v, stdout %q, stderr %q; want the new secret alone on stdout", r.err, r.stdout, r.stderr)
	}
	q, err := b.auth.Authenticate(b.ctx, secret)
	if err != nil || q.Org != "acme" || q.TokenID == p.TokenID {
		t.Fatalf("the new secret: %+v, %v", q, err)
	}
	if _, err := b.auth.Authenticate(b.ctx, old); err != nil {
		t.Errorf("the old secret in its grace: %v", err)
	}
	// a second rotation, of no grace: the replaced token stops at once
	if r := b.run(t, "org", "token", "rotate", "--org", "acme", fmt.Sprint(q.TokenID), "--grace", "0s"); r.err != nil {
		t.Fatal(r.err)
	}
	if _, err := b.auth.Authenticate(b.ctx, secret); !errors.Is(err, apitoken.ErrInvalidToken) {
		t.Errorf("a token rotated with no grace: %v, want refused", err)
	}
	if r := b.run(t, "org", "token", "rotate", "--org", "acme", id, "--grace", "-1h"); r.code() != 2 {
		t.Errorf("--grace -1h: exit %d (%v), want 2", r.code(), r.err)
	}
}
