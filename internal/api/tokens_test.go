package api_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/api"
)

// tokens makes tokens for tests. TEMPORARY: a table in memory until the
// token store lands.
type tokens struct {
	mu   sync.Mutex
	by   map[string]api.Caller
	next int64
}

func newTokens(t *testing.T, _ *pgxpool.Pool) *tokens {
	return &tokens{by: map[string]api.Caller{}}
}

func (k *tokens) add(c api.Caller) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.next++
	c.TokenID = k.next
	secret := fmt.Sprintf("evf_test_%d", k.next)
	k.by[secret] = c
	return secret
}

func (k *tokens) organization(t *testing.T, org string) string { return k.add(api.Caller{Org: org}) }
func (k *tokens) operator(t *testing.T) string                 { return k.add(api.Caller{Operator: true}) }

func (k *tokens) authenticate(_ context.Context, secret string) (api.Caller, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	c, ok := k.by[secret]
	if !ok {
		return api.Caller{}, api.ErrUnauthenticated
	}
	return c, nil
}
