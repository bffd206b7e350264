package apitoken

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/evidencefleet/evidencefleet/store"
)

// ErrInvalidToken: the secret is malformed, unknown, revoked or expired.
// The four are one error, so a caller learns nothing about which.
var ErrInvalidToken = errors.New("invalid, revoked or expired API token")

// Principal is whom an authenticated request acts for.
type Principal struct {
	TokenID int64
	Kind    Kind
	Org     string // the organization of an Organization token; "" for an operator
}

// Operator reports whether the principal is an operator (no organization).
func (p Principal) Operator() bool { return p.Kind == Operator }

// AuthOptions bound the Authenticator's memory of refused secrets.
type AuthOptions struct {
	// RefusedEntries is how many refused secrets' hashes it remembers at
	// most (10000, about 1 MB); past it the least recently refused go.
	RefusedEntries int
	// RefusedFor is how long a refused secret is refused from memory,
	// without a database round trip (1 minute).
	RefusedFor time.Duration
	// Queries, when set, counts the database round trips of Authenticate
	// (a test's window on the cache).
	Queries func()
}

// Authenticator checks bearer secrets against api_tokens. It caches no
// live token: every Authenticate of a good secret reads its row, so a
// revoke or an expiry holds from the next request on. It does remember,
// for a short while, the hashes of secrets it refused (a bounded negative
// cache), so that a client repeating an unknown secret costs no query.
type Authenticator struct {
	st         *store.Store
	refused    *lru.Cache[[sha256.Size]byte, time.Time] // hash → refused until
	refusedFor time.Duration
	queries    func()
}

// NewAuthenticator checks secrets against st, with the default AuthOptions.
func NewAuthenticator(st *store.Store) *Authenticator { return NewAuthenticatorWith(st, AuthOptions{}) }

// NewAuthenticatorWith checks secrets against st with opts.
func NewAuthenticatorWith(st *store.Store, opts AuthOptions) *Authenticator {
	if opts.RefusedEntries <= 0 {
		opts.RefusedEntries = 10000
	}
	if opts.RefusedFor <= 0 {
		opts.RefusedFor = time.Minute
	}
	refused, err := lru.New[[sha256.Size]byte, time.Time](opts.RefusedEntries)
	if err != nil {
		panic(fmt.Sprintf("apitoken: negative cache: %v", err)) // only for a size ≤ 0, excluded above
	}
	return &Authenticator{st: st, refused: refused, refusedFor: opts.RefusedFor, queries: opts.Queries}
}

// Authenticate returns the principal of a live token's secret, and records
// the token's use (last_used_at, at most about once a minute per token) in
// the same statement: one round trip. A malformed secret is refused before
// any database call, and so is a secret refused within the last
// RefusedFor. ErrInvalidToken for a malformed, unknown, revoked or expired
// secret; any other error is the database's. No error names the secret.
func (a *Authenticator) Authenticate(ctx context.Context, secret string) (Principal, error) {
	kind, ok := Parse(secret)
	if !ok {
		return Principal{}, ErrInvalidToken
	}
	hash := [sha256.Size]byte(Hash(secret))
	// A hash here was refused because no live token had it: unknown,
	// revoked or expired. None of the three turns live again: revoking
	// and expiring are final (rotation only brings an expiry forward), and
	// a new token's secret is 256 fresh random bits, so its hash is one
	// no client could have sent before it was made — it cannot be in this
	// cache unless someone guessed it. Nothing else makes a refused hash
	// good (short of an UPDATE by hand that extends an expiry, seen after
	// RefusedFor at most).
	if until, ok := a.refused.Get(hash); ok {
		if time.Now().Before(until) {
			return Principal{}, ErrInvalidToken
		}
		a.refused.Remove(hash)
	}
	if a.queries != nil {
		a.queries()
	}
	row, err := a.st.AuthenticateAPIToken(ctx, hash[:])
	if store.IsNotFound(err) {
		a.refused.Add(hash, time.Now().Add(a.refusedFor))
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

// Live reports whether token id is still live (not revoked, not expired)
// on the database clock: one primary-key read, for an open event stream
// that checks its token every few seconds.
func (a *Authenticator) Live(ctx context.Context, id int64) (bool, error) {
	live, err := a.st.LiveAPIToken(ctx, id)
	if err != nil {
		return false, fmt.Errorf("check API token %d: %w", id, err)
	}
	return live, nil
}
