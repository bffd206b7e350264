package apitoken_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/apitoken"
)

// TestBrowserSessions: only a live token opens a session; the session
// authenticates as its token (an operator, or an organization's token with
// its organization and name) until it is closed, its token is revoked or
// the token's newer logins push it out; nothing else (an API token's own
// secret, junk) passes for a session; only hashes are stored.
func TestBrowserSessions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	opSecret, op := b.issue(t, apitoken.Operator, "", "ops")
	_, org := b.issue(t, apitoken.Organization, "acme", "acme")
	_, gone := b.issue(t, apitoken.Operator, "", "gone")
	if _, _, err := apitoken.Revoke(b.ctx, b.st, apitoken.Operator, "", gone.ID); err != nil {
		t.Fatal(err)
	}
	for name, id := range map[string]int64{"a revoked operator token": gone.ID, "no token": op.ID + 1000} {
		if _, _, err := apitoken.OpenSession(b.ctx, b.st, id, time.Hour); !errors.Is(err, apitoken.ErrTokenNotLive) {
			t.Errorf("session of %s: %v, want ErrTokenNotLive", name, err)
		}
	}
	orgSession, _, err := apitoken.OpenSession(b.ctx, b.st, org.ID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := b.auth.AuthenticateSession(b.ctx, orgSession); err != nil || p.TokenID != org.ID || p.Org != "acme" || p.Name != "acme" || p.Operator() {
		t.Errorf("an organization's session authenticates as %+v %v, want token %d of acme named acme", p, err, org.ID)
	}
	for _, ttl := range []time.Duration{0, -time.Hour, apitoken.MaxSessionTTL + time.Second} {
		if _, _, err := apitoken.OpenSession(b.ctx, b.st, op.ID, ttl); err == nil {
			t.Errorf("session lasting %s opened", ttl)
		}
	}

	secret, expires, err := apitoken.OpenSession(b.ctx, b.st, op.ID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, "evf_ses_") || time.Until(expires) < 50*time.Minute || time.Until(expires) > 70*time.Minute {
		t.Errorf("session %q… expiring %s, want evf_ses_ and in about an hour", secret[:8], expires)
	}
	p, err := b.auth.AuthenticateSession(b.ctx, secret)
	if err != nil || p.TokenID != op.ID || !p.Operator() || p.Org != "" || p.Name != "ops" {
		t.Fatalf("the session authenticates as %+v %v, want operator token %d", p, err, op.ID)
	}
	var stored int
	if err := b.tx.QueryRow(b.ctx, `SELECT count(*) FROM browser_sessions WHERE secret_hash = $1 AND token_id = $2`, apitoken.Hash(secret), op.ID).Scan(&stored); err != nil || stored != 1 {
		t.Errorf("stored sessions with the secret's hash: %d %v, want 1", stored, err)
	}
	for _, s := range []string{"", opSecret, "evf_ses_" + strings.Repeat("A", 43), "evf_ses_short", secret + "A", strings.Repeat("x", 1<<16)} {
		if _, err := b.auth.AuthenticateSession(b.ctx, s); !errors.Is(err, apitoken.ErrInvalidSession) {
			t.Errorf("AuthenticateSession(%.20q…): %v, want ErrInvalidSession", s, err)
		}
	}

	if err := apitoken.CloseSession(b.ctx, b.st, secret); err != nil {
		t.Fatal(err)
	}
	if _, err := b.auth.AuthenticateSession(b.ctx, secret); !errors.Is(err, apitoken.ErrInvalidSession) {
		t.Errorf("a closed session: %v, want ErrInvalidSession", err)
	}

	oldest, _, err := apitoken.OpenSession(b.ctx, b.st, op.ID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	var newest string
	for range apitoken.MaxSessionsPerToken {
		if newest, _, err = apitoken.OpenSession(b.ctx, b.st, op.ID, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	var kept int
	if err := b.tx.QueryRow(b.ctx, `SELECT count(*) FROM browser_sessions WHERE token_id = $1`, op.ID).Scan(&kept); err != nil || kept != apitoken.MaxSessionsPerToken {
		t.Errorf("sessions kept: %d %v, want %d", kept, err, apitoken.MaxSessionsPerToken)
	}
	if _, err := b.auth.AuthenticateSession(b.ctx, oldest); !errors.Is(err, apitoken.ErrInvalidSession) {
		t.Errorf("the oldest of %d logins: %v, want ErrInvalidSession", apitoken.MaxSessionsPerToken+1, err)
	}
	if _, _, err := apitoken.Revoke(b.ctx, b.st, apitoken.Operator, "", op.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := b.auth.AuthenticateSession(b.ctx, newest); !errors.Is(err, apitoken.ErrInvalidSession) {
		t.Errorf("a session of a revoked token: %v, want ErrInvalidSession", err)
	}
}
