package api_test

import (
	"context"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/apitoken"
	"github.com/evidencefleet/evidencefleet/store"
)

// tokens issues real tokens into the test database's api_tokens.
type tokens struct {
	st *store.Store
}

func (k tokens) issue(t *testing.T, kind apitoken.Kind, org string) string {
	t.Helper()
	secret, _, err := apitoken.Issue(context.Background(), k.st, kind, org, "test")
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

func (k tokens) organization(t *testing.T, org string) string {
	return k.issue(t, apitoken.Organization, org)
}

func (k tokens) operator(t *testing.T) string { return k.issue(t, apitoken.Operator, "") }
