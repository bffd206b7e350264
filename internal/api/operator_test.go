package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/apiserver"
	"github.com/evidencefleet/evidencefleet/internal/apitoken"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestRiverUIIsForOperators: River UI answers operators only — a bearer
// operator token here (the login form's session: internal/apiserver's
// TestRiverUILogin) — and its job browser retries, cancels and pauses
// queues on this database. HTTP Basic does not authenticate.
func TestRiverUIIsForOperators(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{RiverUI: true})
	ctx := context.Background()

	resp, _ := b.call(t, http.MethodGet, "/riverui/api/jobs", "", nil)
	if resp.StatusCode != http.StatusUnauthorized || strings.Contains(resp.Header.Get("WWW-Authenticate"), "Basic") {
		t.Errorf("River UI's API without a token: %d %q, want 401 not asking for Basic", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	for _, path := range []string{"/riverui/", "/riverui/api/jobs?state=available"} {
		if resp, _ := b.call(t, http.MethodGet, path, b.owner.token, nil); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s with an organization's token: %d, want 403", path, resp.StatusCode)
		}
	}
	resp, data := b.call(t, http.MethodGet, "/riverui/", b.operator, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("River UI with an operator token: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), clip(data))
	}
	req := b.request(t, http.MethodGet, "/riverui/api/jobs?state=available&limit=50", "", nil)
	req.SetBasicAuth("operator", b.operator)
	resp, err := b.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("River UI's job list with the operator token as Basic password: %d, want 401", resp.StatusCode)
	}
	resp, data = b.call(t, http.MethodGet, "/riverui/api/jobs?state=available&limit=50", b.operator, nil)
	var list struct {
		Data []struct {
			ID   int64  `json:"id"`
			Kind string `json:"kind"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &list); resp.StatusCode != http.StatusOK || err != nil || len(list.Data) == 0 {
		t.Fatalf("River UI's job list with the operator token: %d %v %s", resp.StatusCode, err, clip(data))
	}

	job := list.Data[0].ID
	if resp, data := b.call(t, http.MethodPost, "/riverui/api/jobs/cancel", b.operator, []byte(`{"ids": ["`+itoa(job)+`"]}`)); resp.StatusCode != http.StatusOK {
		t.Fatalf("cancel through River UI: %d %s", resp.StatusCode, clip(data))
	}
	pool := b.pool
	var state string
	if err := pool.QueryRow(ctx, `SELECT state FROM river_job WHERE id = $1`, job).Scan(&state); err != nil || state != "cancelled" {
		t.Errorf("job %d after River UI's cancel: %q %v, want cancelled", job, state, err)
	}
	if resp, data := b.call(t, http.MethodPost, "/riverui/api/jobs/retry", b.operator, []byte(`{"ids": ["`+itoa(job)+`"]}`)); resp.StatusCode != http.StatusOK {
		t.Fatalf("retry through River UI: %d %s", resp.StatusCode, clip(data))
	}
	if err := pool.QueryRow(ctx, `SELECT state FROM river_job WHERE id = $1`, job).Scan(&state); err != nil || state != "available" {
		t.Errorf("job %d after River UI's retry: %q %v, want available", job, state, err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO river_queue (name, created_at, metadata, updated_at) VALUES ('nli', now(), '{}', now()) ON CONFLICT DO NOTHING`); err != nil {
		t.Fatal(err)
	}
	if resp, data := b.call(t, http.MethodPut, "/riverui/api/queues/nli/pause", b.operator, []byte(`{}`)); resp.StatusCode/100 != 2 {
		t.Fatalf("pause through River UI: %d %s", resp.StatusCode, clip(data))
	}
	var paused bool
	if err := pool.QueryRow(ctx, `SELECT paused_at IS NOT NULL FROM river_queue WHERE name = 'nli'`).Scan(&paused); err != nil || !paused {
		t.Errorf("queue nli after River UI's pause: paused %v %v", paused, err)
	}
}

// TestRevokedTokenIsRefused: a token works until it is revoked, then every
// route and the MCP endpoint answer 401.
func TestRevokedTokenIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{})
	path := "/v1/tasks/" + itoa(b.owner.task)
	if resp, data := b.call(t, http.MethodGet, path, b.owner.token, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("before the revoke: %d %s", resp.StatusCode, clip(data))
	}
	st := store.NewStore(b.pool)
	toks, err := apitoken.List(context.Background(), st, apitoken.Organization, b.owner.org)
	if err != nil || len(toks) != 1 {
		t.Fatalf("the owner's tokens: %v %v", toks, err)
	}
	if _, _, err := apitoken.Revoke(context.Background(), st, apitoken.Organization, b.owner.org, toks[0].ID); err != nil {
		t.Fatal(err)
	}
	if resp, data := b.call(t, http.MethodGet, path, b.owner.token, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("after the revoke: %d %s, want 401", resp.StatusCode, clip(data))
	}
	if resp, _ := b.call(t, http.MethodPost, "/mcp", b.owner.token, []byte(`{}`)); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("MCP after the revoke: %d, want 401", resp.StatusCode)
	}
	if resp, _ := b.call(t, http.MethodGet, "/healthz", "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz: %d, want 200 without a token", resp.StatusCode)
	}
}
