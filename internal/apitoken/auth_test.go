package apitoken_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/apitoken"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

type bundle struct {
	ctx  context.Context
	tx   pgx.Tx
	st   *store.Store
	auth *apitoken.Authenticator
}

func setup(t *testing.T) *bundle {
	t.Helper()
	tx := pgtest.Tx(t)
	st := store.NewStore(tx)
	return &bundle{ctx: context.Background(), tx: tx, st: st, auth: apitoken.NewAuthenticator(st)}
}

// issue stores a token and fails the test on an error.
func (b *bundle) issue(t *testing.T, kind apitoken.Kind, org, name string) (string, apitoken.Token) {
	t.Helper()
	secret, tok, err := apitoken.Issue(b.ctx, b.st, kind, org, name)
	if err != nil {
		t.Fatalf("issue %s token for %q: %v", kind, org, err)
	}
	return secret, tok
}

// lastUsed is the token's last_used_at as stored.
func (b *bundle) lastUsed(t *testing.T, id int64) *time.Time {
	t.Helper()
	var at *time.Time
	if err := b.tx.QueryRow(b.ctx, `SELECT last_used_at FROM api_tokens WHERE id = $1`, id).Scan(&at); err != nil {
		t.Fatal(err)
	}
	return at
}

// TestAuthenticate: a live organization token is its organization's
// principal, an operator token an operator with no organization; an
// unknown, malformed or revoked secret is ErrInvalidToken.
func TestAuthenticate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	orgSecret, orgTok := b.issue(t, apitoken.Organization, "acme", "ci")
	opSecret, opTok := b.issue(t, apitoken.Operator, "", "")

	p, err := b.auth.Authenticate(b.ctx, orgSecret)
	if err != nil || p != (apitoken.Principal{TokenID: orgTok.ID, Kind: apitoken.Organization, Org: "acme"}) || p.Operator() {
		t.Errorf("organization token: %+v, %v", p, err)
	}
	p, err = b.auth.Authenticate(b.ctx, opSecret)
	if err != nil || p != (apitoken.Principal{TokenID: opTok.ID, Kind: apitoken.Operator}) || !p.Operator() {
		t.Errorf("operator token: %+v, %v", p, err)
	}

	unknown, _, _, err := apitoken.New(apitoken.Organization)
	if err != nil {
		t.Fatal(err)
	}
	// the organization token's body under the operator prefix: another hash
	swapped := "evf_op_" + strings.TrimPrefix(orgSecret, "evf_org_")
	for name, s := range map[string]string{"unknown": unknown, "other prefix": swapped, "malformed": orgSecret + "x", "empty": ""} {
		if p, err := b.auth.Authenticate(b.ctx, s); !errors.Is(err, apitoken.ErrInvalidToken) || p != (apitoken.Principal{}) {
			t.Errorf("%s secret: %+v, %v, want ErrInvalidToken", name, p, err)
		}
	}

	if _, was, err := apitoken.Revoke(b.ctx, b.st, apitoken.Organization, "acme", orgTok.ID); err != nil || was {
		t.Fatalf("revoke: was revoked %v, %v", was, err)
	}
	if _, err := b.auth.Authenticate(b.ctx, orgSecret); !errors.Is(err, apitoken.ErrInvalidToken) {
		t.Errorf("revoked token: %v, want ErrInvalidToken", err)
	}
	if _, err := b.auth.Authenticate(b.ctx, opSecret); err != nil {
		t.Errorf("the operator token after another's revoke: %v", err)
	}
}

// TestMalformedSecretNeedsNoDatabase: junk is refused before any database
// call (the authenticator has no store to call).
func TestMalformedSecretNeedsNoDatabase(t *testing.T) {
	t.Parallel()
	a := apitoken.NewAuthenticator(nil)
	for _, s := range []string{"", "evf_org_short", strings.Repeat("x", 1<<16), "Basic dXNlcjpwYXNz"} {
		if _, err := a.Authenticate(context.Background(), s); !errors.Is(err, apitoken.ErrInvalidToken) {
			t.Errorf("Authenticate(%.40q) = %v, want ErrInvalidToken", s, err)
		}
	}
}

// TestAuthenticateDatabaseError: a failing database is its own error, not
// ErrInvalidToken (which an API answers with 401), and names no secret.
func TestAuthenticateDatabaseError(t *testing.T) {
	t.Parallel()
	pool, err := pgxpool.New(context.Background(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	pool.Close()
	secret, _, _, err := apitoken.New(apitoken.Organization)
	if err != nil {
		t.Fatal(err)
	}
	_, err = apitoken.NewAuthenticator(store.NewStore(pool)).Authenticate(context.Background(), secret)
	if err == nil || errors.Is(err, apitoken.ErrInvalidToken) || strings.Contains(err.Error(), secret[8:]) {
		t.Errorf("closed pool: %v, want a database error without the secret", err)
	}
}

// TestLastUsedAtAtMostOnceAMinute: the first use sets last_used_at; a use
// within the minute leaves it; a use after it writes it again.
func TestLastUsedAtAtMostOnceAMinute(t *testing.T) {
	t.Parallel()
	b := setup(t)
	secret, tok := b.issue(t, apitoken.Organization, "acme", "")
	if at := b.lastUsed(t, tok.ID); at != nil {
		t.Fatalf("a new token was used at %v", at)
	}
	if _, err := b.auth.Authenticate(b.ctx, secret); err != nil {
		t.Fatal(err)
	}
	if b.lastUsed(t, tok.ID) == nil {
		t.Fatal("the first use set no last_used_at")
	}
	for _, tc := range []struct {
		ago     string
		rewrite bool
	}{{"30 seconds", false}, {"59 seconds", false}, {"61 seconds", true}, {"2 days", true}} {
		var before time.Time
		if err := b.tx.QueryRow(b.ctx, `UPDATE api_tokens SET last_used_at = now() - $2::interval WHERE id = $1 RETURNING last_used_at`,
			tok.ID, tc.ago).Scan(&before); err != nil {
			t.Fatal(err)
		}
		if _, err := b.auth.Authenticate(b.ctx, secret); err != nil {
			t.Fatal(err)
		}
		if after := b.lastUsed(t, tok.ID); after.Equal(before) == tc.rewrite {
			t.Errorf("used %s ago: last_used_at %v → %v, want rewritten %v", tc.ago, before, after, tc.rewrite)
		}
	}
	var other *time.Time
	revoked, _ := b.issue(t, apitoken.Organization, "acme", "")
	if _, err := b.auth.Authenticate(b.ctx, revoked); err != nil {
		t.Fatal(err)
	}
	if err := b.tx.QueryRow(b.ctx, `UPDATE api_tokens SET last_used_at = NULL, revoked_at = now() WHERE secret_hash = $1 RETURNING last_used_at`,
		apitoken.Hash(revoked)).Scan(&other); err != nil {
		t.Fatal(err)
	}
	if _, err := b.auth.Authenticate(b.ctx, revoked); !errors.Is(err, apitoken.ErrInvalidToken) {
		t.Fatalf("revoked: %v", err)
	}
	if n := b.count(t, `SELECT count(*) FROM api_tokens WHERE secret_hash = $1 AND last_used_at IS NOT NULL`, apitoken.Hash(revoked)); n != 0 {
		t.Error("a revoked token's use was recorded")
	}
}

func (b *bundle) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := b.tx.QueryRow(b.ctx, sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRevokeIsPerOrganization: an organization revokes its own tokens
// only: another organization's id, an operator token's id (and, for the
// operators, an organization token's id) is ErrTokenNotFound and the token
// still works; a second revoke keeps the first time.
func TestRevokeIsPerOrganization(t *testing.T) {
	t.Parallel()
	b := setup(t)
	acmeSecret, acme := b.issue(t, apitoken.Organization, "acme", "")
	opSecret, op := b.issue(t, apitoken.Operator, "", "")
	for _, tc := range []struct {
		kind apitoken.Kind
		org  string
		id   int64
	}{
		{apitoken.Organization, "globex", acme.ID},
		{apitoken.Organization, "acme", op.ID},
		{apitoken.Operator, "", acme.ID},
		{apitoken.Organization, "acme", op.ID + acme.ID + 1000},
	} {
		if _, _, err := apitoken.Revoke(b.ctx, b.st, tc.kind, tc.org, tc.id); !errors.Is(err, apitoken.ErrTokenNotFound) {
			t.Errorf("revoke %d as %s %q: %v, want ErrTokenNotFound", tc.id, tc.kind, tc.org, err)
		}
	}
	for _, s := range []string{acmeSecret, opSecret} {
		if _, err := b.auth.Authenticate(b.ctx, s); err != nil {
			t.Errorf("after refused revokes: %v", err)
		}
	}
	first, was, err := apitoken.Revoke(b.ctx, b.st, apitoken.Operator, "", op.ID)
	if err != nil || was || first.RevokedAt == nil || first.Kind != apitoken.Operator {
		t.Fatalf("operator revoke: %+v, was %v, %v", first, was, err)
	}
	if _, err := b.tx.Exec(b.ctx, `UPDATE api_tokens SET revoked_at = revoked_at - interval '1 hour' WHERE id = $1`, op.ID); err != nil {
		t.Fatal(err)
	}
	again, was, err := apitoken.Revoke(b.ctx, b.st, apitoken.Operator, "", op.ID)
	if err != nil || !was || again.RevokedAt == nil || !again.RevokedAt.Equal(first.RevokedAt.Add(-time.Hour)) {
		t.Errorf("second revoke: %+v, was %v, %v; want the first time kept", again, was, err)
	}
}

// TestListAndIssue: each organization lists its own tokens and the
// operators theirs, never a secret or hash; bad input is ErrBadInput and
// the table refuses a token whose kind and organization disagree.
func TestListAndIssue(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s1, t1 := b.issue(t, apitoken.Organization, "acme", "ci")
	s2, t2 := b.issue(t, apitoken.Organization, "acme", "laptop")
	b.issue(t, apitoken.Organization, "globex", "")
	s3, t3 := b.issue(t, apitoken.Operator, "", "ops")
	if _, _, err := apitoken.Revoke(b.ctx, b.st, apitoken.Organization, "acme", t2.ID); err != nil {
		t.Fatal(err)
	}
	check := func(kind apitoken.Kind, org string, want []int64, secrets ...string) {
		t.Helper()
		got, err := apitoken.List(b.ctx, b.st, kind, org)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, tok := range got {
			ids = append(ids, tok.ID)
			if tok.Kind != kind || tok.Org != org {
				t.Errorf("listed for %s %q: %+v", kind, org, tok)
			}
		}
		if len(ids) != len(want) || len(want) > 0 && ids[0] != want[0] || len(want) > 1 && ids[1] != want[1] {
			t.Errorf("%s %q lists %v, want %v", kind, org, ids, want)
		}
		js, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets {
			if strings.Contains(string(js), s[len(s)-30:]) || strings.Contains(string(js), hex.EncodeToString(apitoken.Hash(s))) {
				t.Errorf("the listing shows a secret or its hash: %s", js)
			}
		}
	}
	check(apitoken.Organization, "acme", []int64{t1.ID, t2.ID}, s1, s2)
	check(apitoken.Operator, "", []int64{t3.ID}, s3)
	check(apitoken.Organization, "initech", nil)
	listed, err := apitoken.List(b.ctx, b.st, apitoken.Organization, "acme")
	if err != nil || listed[0].Name != "ci" || listed[0].RevokedAt != nil || listed[1].RevokedAt == nil || listed[0].Hint != t1.Hint {
		t.Errorf("acme's tokens %+v, %v", listed, err)
	}

	for _, tc := range []struct {
		kind      apitoken.Kind
		org, name string
	}{
		{apitoken.Organization, "", ""},
		{apitoken.Operator, "acme", ""},
		{"admin", "", ""},
		{apitoken.Organization, strings.Repeat("o", 201), ""},
		{apitoken.Organization, "acme\x00", ""},
		{apitoken.Organization, "acme", strings.Repeat("n", 201)},
	} {
		if _, _, err := apitoken.Issue(b.ctx, b.st, tc.kind, tc.org, tc.name); !errors.Is(err, errs.ErrBadInput) {
			t.Errorf("issue %s %.20q %.20q: %v, want ErrBadInput", tc.kind, tc.org, tc.name, err)
		}
	}
	if _, err := apitoken.List(b.ctx, b.st, apitoken.Organization, ""); !errors.Is(err, errs.ErrBadInput) {
		t.Errorf("list with no organization: %v", err)
	}
	for _, row := range [][2]any{{"organization", nil}, {"operator", "acme"}} {
		err := b.st.InTx(b.ctx, func(_ pgx.Tx, q *store.Queries) error { // a savepoint: the failure leaves the test's transaction usable
			_, err := q.CreateAPIToken(b.ctx, store.CreateAPITokenParams{Kind: row[0].(string), OrganizationID: strPtr(row[1]), SecretHash: make([]byte, 32), Hint: "x"})
			return err
		})
		if pg := (*pgconn.PgError)(nil); !errors.As(err, &pg) || pg.ConstraintName != "api_tokens_organization_by_kind" {
			t.Errorf("a %s token with organization %v: %v, want the kind-and-organization check refusing it", row[0], row[1], err)
		}
	}
}

func strPtr(v any) *string {
	if s, ok := v.(string); ok {
		return &s
	}
	return nil
}
