package apitoken

import (
	"context"
	"errors"
	"fmt"

	"github.com/evidencefleet/evidencefleet/store"
)

// ErrInvalidToken: the secret is malformed, unknown or revoked. The three
// are one error, so a caller learns nothing about which.
var ErrInvalidToken = errors.New("invalid or revoked API token")

// Principal is whom an authenticated request acts for.
type Principal struct {
	TokenID int64
	Kind    Kind
	Org     string // the organisation of an Organization token; "" for an operator
}

// Operator reports whether the principal is an operator (no organisation).
func (p Principal) Operator() bool { return p.Kind == Operator }

// Authenticator checks bearer secrets against api_tokens. It caches
// nothing: every Authenticate reads the token's row, so a revoke holds
// from the next request on.
type Authenticator struct {
	st *store.Store
}

// NewAuthenticator checks secrets against st.
func NewAuthenticator(st *store.Store) *Authenticator { return &Authenticator{st: st} }

// Authenticate returns the principal of a live token's secret, and records
// the token's use (last_used_at, at most about once a minute per token) in
// the same statement: one round trip. A malformed secret is refused before
// any database call. ErrInvalidToken for a malformed, unknown or revoked
// secret; any other error is the database's. No error names the secret.
func (a *Authenticator) Authenticate(ctx context.Context, secret string) (Principal, error) {
	kind, ok := Parse(secret)
	if !ok {
		return Principal{}, ErrInvalidToken
	}
	row, err := a.st.AuthenticateAPIToken(ctx, Hash(secret))
	if store.IsNotFound(err) {
		return Principal{}, ErrInvalidToken
	}
	if err != nil {
		return Principal{}, fmt.Errorf("authenticate API token: %w", err)
	}
	// The hash covers the prefix, so a stored token of another kind cannot
	// match; checked all the same, as the kind decides what it may do.
	if Kind(row.Kind) != kind || (kind == Organization) == (row.OrganizationID == "") {
		return Principal{}, ErrInvalidToken
	}
	return Principal{TokenID: row.ID, Kind: kind, Org: row.OrganizationID}, nil
}
