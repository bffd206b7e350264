package apitoken

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// MaxNameRunes bounds a token's name (the table checks it too).
const MaxNameRunes = 200

// ErrTokenNotFound: no token of the caller's organisation (or of the
// operators) has this id; another organisation's token is not found alike.
var ErrTokenNotFound = errors.New("token does not exist")

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
}

// Display is the token's prefix and hint ("evf_org_AbCd1234…").
func (t Token) Display() string { return Display(t.Kind, t.Hint) }

func fromRow(r store.CreateAPITokenRow) Token {
	t := Token{ID: r.ID, Kind: Kind(r.Kind), Name: r.Name, Hint: r.Hint, CreatedAt: r.CreatedAt, LastUsedAt: r.LastUsedAt, RevokedAt: r.RevokedAt}
	if r.OrganizationID != nil {
		t.Org = *r.OrganizationID
	}
	return t
}

// owner checks the organisation for a kind: an organisation token needs
// one (a valid organization id, as tasks have), an operator token has
// none. It returns the column's value.
func owner(kind Kind, org string) (*string, error) {
	switch kind {
	case Organization:
		if org == "" {
			return nil, fmt.Errorf("%w: an organisation token needs an organisation", errs.ErrBadInput)
		}
		if err := jobs.CheckText(org, intake.MaxOrgRunes); err != nil {
			return nil, fmt.Errorf("%w: organization id %v", errs.ErrBadInput, err)
		}
		return &org, nil
	case Operator:
		if org != "" {
			return nil, fmt.Errorf("%w: an operator token belongs to no organisation", errs.ErrBadInput)
		}
		return nil, nil
	default:
		return nil, fmt.Errorf("%w: token kind %q", errs.ErrBadInput, kind)
	}
}

// Issue makes and stores a token of kind for org ("" for an operator) and
// returns its secret, which exists nowhere else: show it once.
func Issue(ctx context.Context, st *store.Store, kind Kind, org, name string) (string, Token, error) {
	orgID, err := owner(kind, org)
	if err != nil {
		return "", Token{}, err
	}
	if err := jobs.CheckText(name, MaxNameRunes); err != nil {
		return "", Token{}, fmt.Errorf("%w: token name %v", errs.ErrBadInput, err)
	}
	secret, hash, hint, err := New(kind)
	if err != nil {
		return "", Token{}, err
	}
	row, err := st.CreateAPIToken(ctx, store.CreateAPITokenParams{Kind: string(kind), OrganizationID: orgID, Name: name, SecretHash: hash, Hint: hint})
	if err != nil {
		return "", Token{}, fmt.Errorf("store API token: %w", err)
	}
	return secret, fromRow(row), nil
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
// revoked_at). Another organisation's token is ErrTokenNotFound.
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
		CreatedAt: r.CreatedAt, RevokedAt: r.RevokedAt, LastUsedAt: r.LastUsedAt}), r.WasRevoked, nil
}
