package apitoken_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/apitoken"
)

// expire sets token id's expiry in the past, as the clock would.
func (b *bundle) expire(t *testing.T, id int64) {
	t.Helper()
	if _, err := b.tx.Exec(b.ctx, `UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
}

// TestExpiredTokenIsRefused: a token past its expires_at is refused
// exactly as a revoked one, and Live says so; a new token is made with
// the lifetime asked for.
func TestExpiredTokenIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	secret, tok, err := apitoken.IssueFor(b.ctx, b.st, apitoken.Organization, "acme", "ci", 48*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if life := tok.ExpiresAt.Sub(tok.CreatedAt); life != 48*time.Hour {
		t.Errorf("lifetime %s, want 48h", life)
	}
	if _, err := b.auth.Authenticate(b.ctx, secret); err != nil {
		t.Fatalf("a live token: %v", err)
	}
	b.expire(t, tok.ID)
	if _, err := b.auth.Authenticate(b.ctx, secret); !errors.Is(err, apitoken.ErrInvalidToken) {
		t.Errorf("an expired token: %v, want ErrInvalidToken", err)
	}
	if live, err := b.auth.Live(b.ctx, tok.ID); err != nil || live {
		t.Errorf("Live of an expired token: %v, %v; want false", live, err)
	}
	if _, _, err := apitoken.IssueFor(b.ctx, b.st, apitoken.Organization, "acme", "ci", 0); err == nil {
		t.Error("a token of no lifetime was made")
	}
}

// TestRotate: a rotation makes a new token of the same organization and
// name and leaves the old one working for the grace only; a revoked
// token cannot be rotated, another organization's is not found.
func TestRotate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	oldSecret, old := b.issue(t, apitoken.Organization, "acme", "ci")
	newSecret, rot, err := apitoken.Rotate(b.ctx, b.st, apitoken.Organization, "acme", old.ID, time.Hour, 30*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if rot.New.ID == old.ID || rot.New.Org != "acme" || rot.New.Name != "ci" || rot.Old.ID != old.ID {
		t.Errorf("rotation %+v", rot)
	}
	if got := rot.Old.ExpiresAt.Sub(rot.New.CreatedAt); got != time.Hour {
		t.Errorf("old token expires %s after the rotation, want the 1h grace", got)
	}
	for name, s := range map[string]string{"old, in its grace": oldSecret, "new": newSecret} {
		if p, err := b.auth.Authenticate(b.ctx, s); err != nil || p.Org != "acme" {
			t.Errorf("%s: %+v, %v", name, p, err)
		}
	}
	b.expire(t, old.ID) // the grace is over
	if _, err := b.auth.Authenticate(b.ctx, oldSecret); !errors.Is(err, apitoken.ErrInvalidToken) {
		t.Errorf("old token after its grace: %v, want ErrInvalidToken", err)
	}
	if _, err := b.auth.Authenticate(b.ctx, newSecret); err != nil {
		t.Errorf("new token after the old one's grace: %v", err)
	}

	// a grace never lengthens a life: rotating with a grace longer than
	// the token has left keeps its expiry
	_, short, err := apitoken.IssueFor(b.ctx, b.st, apitoken.Operator, "", "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	_, opRot, err := apitoken.Rotate(b.ctx, b.st, apitoken.Operator, "", short.ID, 30*24*time.Hour, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if !opRot.Old.ExpiresAt.Equal(short.ExpiresAt) || opRot.New.Kind != apitoken.Operator {
		t.Errorf("operator rotation %+v: the expiry moved from %s, or the kind changed", opRot, short.ExpiresAt)
	}

	if _, _, err := apitoken.Rotate(b.ctx, b.st, apitoken.Organization, "other", rot.New.ID, time.Hour, time.Hour); !errors.Is(err, apitoken.ErrTokenNotFound) {
		t.Errorf("another organization's token: %v, want ErrTokenNotFound", err)
	}
	if _, _, err := apitoken.Revoke(b.ctx, b.st, apitoken.Organization, "acme", rot.New.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := apitoken.Rotate(b.ctx, b.st, apitoken.Organization, "acme", rot.New.ID, time.Hour, time.Hour); !errors.Is(err, apitoken.ErrTokenRevoked) {
		t.Errorf("a revoked token: %v, want ErrTokenRevoked", err)
	}
}

// TestRefusedSecretsAreCached: a secret refused once is refused again
// without a database round trip for RefusedFor, within a bounded number
// of entries; good secrets are never cached, so a revoke holds at once,
// and a new token is not refused for its predecessors' refusals.
func TestRefusedSecretsAreCached(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var queries atomic.Int64
	auth := apitoken.NewAuthenticatorWith(b.st, apitoken.AuthOptions{RefusedEntries: 2, RefusedFor: time.Hour, Queries: func() { queries.Add(1) }})
	count := func(secret string) (int64, error) {
		before := queries.Load()
		_, err := auth.Authenticate(b.ctx, secret)
		return queries.Load() - before, err
	}
	unknown := func() string {
		s, _, _, err := apitoken.New(apitoken.Organization)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	u1, u2, u3 := unknown(), unknown(), unknown()
	if n, err := count(u1); n != 1 || !errors.Is(err, apitoken.ErrInvalidToken) {
		t.Fatalf("an unknown secret: %d queries, %v; want 1, ErrInvalidToken", n, err)
	}
	if n, err := count(u1); n != 0 || !errors.Is(err, apitoken.ErrInvalidToken) {
		t.Errorf("the same unknown secret again: %d queries, %v; want 0 (cached), ErrInvalidToken", n, err)
	}
	if n, _ := count("evf_org_short"); n != 0 {
		t.Errorf("a malformed secret: %d queries, want 0", n)
	}

	secret, tok := b.issue(t, apitoken.Organization, "acme", "ci")
	for range 2 {
		if n, err := count(secret); n != 1 || err != nil {
			t.Errorf("a good secret: %d queries, %v; want 1 each time (never cached)", n, err)
		}
	}
	if _, _, err := apitoken.Revoke(b.ctx, b.st, apitoken.Organization, "acme", tok.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := count(secret); n != 1 || !errors.Is(err, apitoken.ErrInvalidToken) {
		t.Errorf("just revoked: %d queries, %v; want 1, ErrInvalidToken", n, err)
	}
	if n, err := count(secret); n != 0 || !errors.Is(err, apitoken.ErrInvalidToken) {
		t.Errorf("revoked, again: %d queries, %v; want 0 (cached)", n, err)
	}

	// the cache holds 2: u2 and u3 push out u1 (and the revoked one)
	count(u2)
	count(u3)
	if n, _ := count(u1); n != 1 {
		t.Errorf("a secret pushed out of the full cache: %d queries, want 1", n)
	}

	short := apitoken.NewAuthenticatorWith(b.st, apitoken.AuthOptions{RefusedFor: time.Nanosecond})
	if _, err := short.Authenticate(b.ctx, u1); !errors.Is(err, apitoken.ErrInvalidToken) {
		t.Fatal(err)
	}
	// past RefusedFor the secret is looked up again: made a token by hand
	// with that very hash (as nothing but a guess could), it is found
	if _, err := b.tx.Exec(b.ctx, `INSERT INTO api_tokens (kind, organization_id, secret_hash, hint) VALUES ('organization', 'acme', $1, 'x')`, apitoken.Hash(u1)); err != nil {
		t.Fatal(err)
	}
	if _, err := short.Authenticate(b.ctx, u1); err != nil {
		t.Errorf("after RefusedFor: %v, want the token found", err)
	}
}
