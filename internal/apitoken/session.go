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

// Operator sessions are what an operator's browser holds instead of the
// token itself (River UI's login, internal/api): a secret of their own,
// "evf_ses_" and 32 random bytes in unpadded base64url, stored as its
// SHA-256 beside the operator token it was opened with
// (migrations/00031_operator_sessions.sql). A session authenticates while
// it is unexpired and its token is live: revoking the token ends it.

const sessionPrefix = "evf_ses_"

// MaxSessionsPerToken is how many sessions one operator token keeps: a
// login past it ends the token's oldest.
const MaxSessionsPerToken = 20

// MaxSessionTTL bounds a session's lifetime whatever its caller asks.
const MaxSessionTTL = 7 * 24 * time.Hour

// ErrInvalidSession: the session secret is malformed, unknown or expired,
// or its token was revoked; one error, so a caller learns nothing about
// which.
var ErrInvalidSession = errors.New("invalid or expired operator session")

// ErrNotOperator: a session was asked for with a token that is not a live
// operator token.
var ErrNotOperator = errors.New("not a live operator token")

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

// OpenSession opens a session of operator token tokenID lasting ttl (at
// most MaxSessionTTL) and returns its secret, which exists nowhere else,
// and when it expires. ErrNotOperator when the token is not a live
// operator token. It first deletes every expired session and the token's
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
	if err := st.PruneOperatorSessions(ctx, store.PruneOperatorSessionsParams{TokenID: tokenID, Keep: MaxSessionsPerToken - 1}); err != nil {
		return "", time.Time{}, fmt.Errorf("prune operator sessions: %w", err)
	}
	row, err := st.CreateOperatorSession(ctx, store.CreateOperatorSessionParams{TokenID: tokenID, SecretHash: Hash(secret), TtlS: ttl.Seconds()})
	if store.IsNotFound(err) {
		return "", time.Time{}, ErrNotOperator
	}
	if err != nil {
		return "", time.Time{}, fmt.Errorf("store operator session: %w", err)
	}
	return secret, row.ExpiresAt, nil
}

// AuthenticateSession returns the operator of a live session's secret
// (recording its token's use like Authenticate). A malformed secret is
// refused before any database call. ErrInvalidSession for a malformed,
// unknown or expired session or a revoked token; any other error is the
// database's.
func (a *Authenticator) AuthenticateSession(ctx context.Context, secret string) (Principal, error) {
	if !parseSession(secret) {
		return Principal{}, ErrInvalidSession
	}
	tokenID, err := a.st.AuthenticateOperatorSession(ctx, Hash(secret))
	if store.IsNotFound(err) {
		return Principal{}, ErrInvalidSession
	}
	if err != nil {
		return Principal{}, fmt.Errorf("authenticate operator session: %w", err)
	}
	return Principal{TokenID: tokenID, Kind: Operator}, nil
}

// CloseSession ends the session of secret (a logout); an unknown or
// malformed one is no error.
func CloseSession(ctx context.Context, st *store.Store, secret string) error {
	if !parseSession(secret) {
		return nil
	}
	if err := st.DeleteOperatorSession(ctx, Hash(secret)); err != nil {
		return fmt.Errorf("close operator session: %w", err)
	}
	return nil
}
