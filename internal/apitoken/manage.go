package apitoken

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// MaxNameRunes bounds a token's name (the table checks it too).
const MaxNameRunes = 200

// ErrTokenNotFound: no token of the caller's organization (or of the
// operators) has this id; another organization's token is not found alike.
var ErrTokenNotFound = errors.New("token does not exist")

// DefaultLifetime is the lifetime of a token made by Issue: the default of
// EVF_API_TOKEN_TTL (internal/config), which enqueue passes to IssueFor.
const DefaultLifetime = 90 * 24 * time.Hour

// MaxGrace bounds the grace of a rotation: the old token's remaining life
// bounds it anyway; this keeps the number sane.
const MaxGrace = 31 * 24 * time.Hour

// Token is a stored token as listed: never its secret or hash.
type Token struct {
	ID         int64      `json:"id"`
	Kind       Kind       `json:"kind"`
	Org        string     `json:"organization_id,omitempty"`
	Name       string     `json:"name"`
	Hint       string     `json:"hint"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
}

// Live reports whether the token authenticates at now: not revoked, not
// expired.
func (t Token) Live(now time.Time) bool { return t.RevokedAt == nil && now.Before(t.ExpiresAt) }

// Display is the token's prefix and hint ("evf_org_AbCd1234…").
func (t Token) Display() string { return Display(t.Kind, t.Hint) }

func fromRow(r store.CreateAPITokenRow) Token {
	t := Token{ID: r.ID, Kind: Kind(r.Kind), Name: r.Name, Hint: r.Hint, CreatedAt: r.CreatedAt, LastUsedAt: r.LastUsedAt, RevokedAt: r.RevokedAt,
		ExpiresAt: r.ExpiresAt}
	if r.OrganizationID != nil {
		t.Org = *r.OrganizationID
	}
	return t
}

// owner checks the organization for a kind: an organization token needs
// one (a valid organization id, as tasks have), an operator token has
// none. It returns the column's value.
func owner(kind Kind, org string) (*string, error) {
	switch kind {
	case Organization:
		if org == "" {
			return nil, fmt.Errorf("%w: an organization token needs an organization", errs.ErrBadInput)
		}
		if err := jobs.CheckText(org, intake.MaxOrgRunes); err != nil {
			return nil, fmt.Errorf("%w: organization id %v", errs.ErrBadInput, err)
		}
		return &org, nil
	case Operator:
		if org != "" {
			return nil, fmt.Errorf("%w: an operator token belongs to no organization", errs.ErrBadInput)
		}
		return nil, nil
	default:
		return nil, fmt.Errorf("%w: token kind %q", errs.ErrBadInput, kind)
	}
}

// Issue makes and stores a token of kind for org ("" for an operator),
// over DefaultLifetime from now, and returns its secret, which exists
// nowhere else: show it once.
func Issue(ctx context.Context, st *store.Store, kind Kind, org, name string) (string, Token, error) {
	return IssueFor(ctx, st, kind, org, name, DefaultLifetime)
}

// IssueFor is Issue with the token's lifetime, which must be positive
// (the caller bounds it: EVF_API_TOKEN_MAX_TTL).
func IssueFor(ctx context.Context, st *store.Store, kind Kind, org, name string, lifetime time.Duration) (string, Token, error) {
	orgID, err := owner(kind, org)
	if err != nil {
		return "", Token{}, err
	}
	if err := jobs.CheckText(name, MaxNameRunes); err != nil {
		return "", Token{}, fmt.Errorf("%w: token name %v", errs.ErrBadInput, err)
	}
	if lifetime <= 0 {
		return "", Token{}, fmt.Errorf("%w: token lifetime %s: want a positive duration", errs.ErrBadInput, lifetime)
	}
	return create(ctx, st.Queries, kind, orgID, name, lifetime)
}

// create makes and stores one token on q.
func create(ctx context.Context, q *store.Queries, kind Kind, orgID *string, name string, lifetime time.Duration) (string, Token, error) {
	secret, hash, hint, err := New(kind)
	if err != nil {
		return "", Token{}, err
	}
	row, err := q.CreateAPIToken(ctx, store.CreateAPITokenParams{Kind: string(kind), OrganizationID: orgID, Name: name, SecretHash: hash, Hint: hint,
		LifetimeS: lifetime.Seconds()})
	if err != nil {
		return "", Token{}, fmt.Errorf("store API token: %w", err)
	}
	return secret, fromRow(row), nil
}

// ErrTokenRevoked: a revoked token cannot be rotated (make a new one).
var ErrTokenRevoked = errors.New("token is revoked")

// Rotation is what Rotate did: the new token, and the old one with its
// expiry brought forward to the end of the grace.
type Rotation struct {
	New Token `json:"new"`
	Old Token `json:"old"`
}

// Rotate replaces token id of org (kind Organization) or of the operators
// (kind Operator, org "") without downtime: in one transaction it makes a
// new token of the same kind, organization and name, over lifetime from
// now, and brings the old token's expiry forward to now + grace (never
// later than it was), so that clients can move to the new secret while
// the old one still works. It returns the new secret: show it once. A
// revoked token is ErrTokenRevoked; another organization's token is
// ErrTokenNotFound.
func Rotate(ctx context.Context, st *store.Store, kind Kind, org string, id int64, grace, lifetime time.Duration) (string, Rotation, error) {
	orgID, err := owner(kind, org)
	if err != nil {
		return "", Rotation{}, err
	}
	if grace < 0 || grace > MaxGrace {
		return "", Rotation{}, fmt.Errorf("%w: grace %s outside 0..%s", errs.ErrBadInput, grace, MaxGrace)
	}
	if lifetime <= 0 {
		return "", Rotation{}, fmt.Errorf("%w: token lifetime %s: want a positive duration", errs.ErrBadInput, lifetime)
	}
	var secret string
	var rot Rotation
	err = st.InTx(ctx, func(_ pgx.Tx, q *store.Queries) error {
		old, err := q.LockAPITokenForRotation(ctx, store.LockAPITokenForRotationParams{ID: id, OrganizationID: orgID})
		if store.IsNotFound(err) {
			return fmt.Errorf("%w: id %d", ErrTokenNotFound, id)
		}
		if err != nil {
			return fmt.Errorf("read token %d: %w", id, err)
		}
		if old.RevokedAt != nil {
			return fmt.Errorf("%w: token %d was revoked at %s; make a new one (token create)", ErrTokenRevoked, id, old.RevokedAt.UTC().Format(time.RFC3339))
		}
		if secret, rot.New, err = create(ctx, q, Kind(old.Kind), orgID, old.Name, lifetime); err != nil {
			return err
		}
		expires, err := q.ExpireAPITokenWithin(ctx, store.ExpireAPITokenWithinParams{ID: id, GraceS: grace.Seconds()})
		if err != nil {
			return fmt.Errorf("expire token %d: %w", id, err)
		}
		rot.Old = fromRow(store.CreateAPITokenRow(old))
		rot.Old.ExpiresAt = expires
		return nil
	})
	if err != nil {
		return "", Rotation{}, err
	}
	return secret, rot, nil
}

// List returns the tokens of org (kind Organization) or the operator
// tokens (kind Operator, org ""), revoked ones included, oldest first.
func List(ctx context.Context, st *store.Store, kind Kind, org string) ([]Token, error) {
	orgID, err := owner(kind, org)
	if err != nil {
		return nil, err
	}
	out := []Token{}
	if orgID == nil {
		rows, err := st.OperatorAPITokens(ctx)
		if err != nil {
			return nil, fmt.Errorf("list operator tokens: %w", err)
		}
		for _, r := range rows {
			out = append(out, fromRow(store.CreateAPITokenRow(r)))
		}
		return out, nil
	}
	rows, err := st.OrgAPITokens(ctx, orgID)
	if err != nil {
		return nil, fmt.Errorf("list the tokens of %s: %w", org, err)
	}
	for _, r := range rows {
		out = append(out, fromRow(store.CreateAPITokenRow(r)))
	}
	return out, nil
}

// Revoke revokes token id of org (kind Organization) or of the operators
// (kind Operator, org ""): it authenticates no more from the next request.
// wasRevoked reports a token revoked before (it keeps its first
// revoked_at). Another organization's token is ErrTokenNotFound.
func Revoke(ctx context.Context, st *store.Store, kind Kind, org string, id int64) (tok Token, wasRevoked bool, err error) {
	orgID, err := owner(kind, org)
	if err != nil {
		return Token{}, false, err
	}
	r, err := st.RevokeAPIToken(ctx, store.RevokeAPITokenParams{ID: id, OrganizationID: orgID})
	if store.IsNotFound(err) {
		return Token{}, false, fmt.Errorf("%w: id %d", ErrTokenNotFound, id)
	}
	if err != nil {
		return Token{}, false, fmt.Errorf("revoke token %d: %w", id, err)
	}
	return fromRow(store.CreateAPITokenRow{ID: r.ID, Kind: r.Kind, OrganizationID: r.OrganizationID, Name: r.Name, Hint: r.Hint,
		CreatedAt: r.CreatedAt, RevokedAt: r.RevokedAt, LastUsedAt: r.LastUsedAt, ExpiresAt: r.ExpiresAt}), r.WasRevoked, nil
}
