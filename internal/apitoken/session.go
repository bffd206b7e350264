package apitoken

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/store"
)

// Browser sessions are what a browser holds instead of the token itself
// (River UI's login with an operator token, the console's with an
// organization's, internal/api and internal/console): a secret of their
// own, "evf_ses_" and 32 random bytes in unpadded base64url, stored as its
// SHA-256 beside the token it was opened with
// (migrations/00038_browser_sessions.sql). A session authenticates as its
// token — kind, organization, name — while it is unexpired and the token
// is live: revoking the token ends it. Which kind a surface accepts is the
// surface's to check.

const sessionPrefix = "evf_ses_"

// MaxSessionsPerToken is how many sessions one token keeps: a
// login past it ends the token's oldest.
const MaxSessionsPerToken = 20

// MaxSessionTTL bounds a session's lifetime whatever its caller asks.
const MaxSessionTTL = 7 * 24 * time.Hour

// ErrInvalidSession: the session secret is malformed, unknown or expired,
// or its token was revoked; one error, so a caller learns nothing about
// which.
var ErrInvalidSession = errors.New("invalid or expired session")

// ErrTokenNotLive: a session was asked for with a token that is unknown,
// revoked or expired.
var ErrTokenNotLive = errors.New("not a live token")

// parseSession reports whether s is a well-formed session secret, reading
// at most its length of anything.
func parseSession(s string) bool {
	body, ok := strings.CutPrefix(s, sessionPrefix)
	if !ok || len(s) > len(sessionPrefix)+encodedLen || len(body) != encodedLen {
		return false
	}
	b, err := encoding.DecodeString(body)
	return err == nil && len(b) == secretBytes
}

// OpenSession opens a session of token tokenID lasting ttl (at most
// MaxSessionTTL) and returns its secret, which exists nowhere else, and
// when it expires. ErrTokenNotLive when the token is not live. It first deletes every expired session and the token's
// sessions beyond its newest MaxSessionsPerToken-1.
func OpenSession(ctx context.Context, st *store.Store, tokenID int64, ttl time.Duration) (string, time.Time, error) {
	if ttl <= 0 || ttl > MaxSessionTTL {
		return "", time.Time{}, fmt.Errorf("session lifetime %s: want more than 0, at most %s", ttl, MaxSessionTTL)
	}
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", time.Time{}, fmt.Errorf("random session: %w", err)
	}
	secret := sessionPrefix + encoding.EncodeToString(b)
	if err := st.PruneBrowserSessions(ctx, store.PruneBrowserSessionsParams{TokenID: tokenID, Keep: MaxSessionsPerToken - 1}); err != nil {
		return "", time.Time{}, fmt.Errorf("prune browser sessions: %w", err)
	}
	row, err := st.CreateBrowserSession(ctx, store.CreateBrowserSessionParams{TokenID: tokenID, SecretHash: Hash(secret), TtlS: ttl.Seconds()})
	if store.IsNotFound(err) {
		return "", time.Time{}, ErrTokenNotLive
	}
	if err != nil {
		return "", time.Time{}, fmt.Errorf("store browser session: %w", err)
	}
	return secret, row.ExpiresAt, nil
}

// SessionToken is the token a live session stands for: whom it acts for
// and the token's name (what a person called it when it was made).
type SessionToken struct {
	Principal
	Name string
}

// AuthenticateSession returns the token of a live session's secret
// (recording its token's use like Authenticate). A malformed secret is
// refused before any database call. ErrInvalidSession for a malformed,
// unknown or expired session or a revoked token; any other error is the
// database's.
func (a *Authenticator) AuthenticateSession(ctx context.Context, secret string) (SessionToken, error) {
	if !parseSession(secret) {
		return SessionToken{}, ErrInvalidSession
	}
	row, err := a.st.AuthenticateBrowserSession(ctx, Hash(secret))
	if store.IsNotFound(err) {
		return SessionToken{}, ErrInvalidSession
	}
	if err != nil {
		return SessionToken{}, fmt.Errorf("authenticate session: %w", err)
	}
	p := SessionToken{Principal: Principal{TokenID: row.TokenID, Kind: Kind(row.Kind)}, Name: row.Name}
	if row.OrganizationID != nil {
		p.Org = *row.OrganizationID
	}
	return p, nil
}

// CloseSession ends the session of secret (a logout); an unknown or
// malformed one is no error.
func CloseSession(ctx context.Context, st *store.Store, secret string) error {
	if !parseSession(secret) {
		return nil
	}
	if err := st.DeleteBrowserSession(ctx, Hash(secret)); err != nil {
		return fmt.Errorf("close session: %w", err)
	}
	return nil
}
