package apiserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/evidencefleet/evidencefleet/internal/api"
	"github.com/evidencefleet/evidencefleet/internal/apiserver"
	"github.com/evidencefleet/evidencefleet/internal/apitoken"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/store"
)

// The glacier archive (testfleet.GlacierPages).
const (
	urlWiki    = testfleet.GlacierWiki
	urlScience = testfleet.GlacierScience
	urlBlog    = testfleet.GlacierBlog
	hypothesis = testfleet.GlacierHypothesis
)

func pages() []corpus.Page { return testfleet.GlacierPages() }

// client calls the API with one organization's token.
type client struct {
	t     *testing.T
	base  string
	token string
}

func (c client) do(method, path string, in, out any) int {
	c.t.Helper()
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			c.t.Fatal(err)
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		c.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			c.t.Fatalf("%s %s: %v: %s", method, path, err, data)
		}
	}
	return resp.StatusCode
}

// TestTaskThroughTheAPIOnly: with a real worker and Postgres, a program
// that knows only the API creates a task, adds targets and claims, waits
// on the event stream until the task is completed, exports its evidence
// and checks a citation text against it.
func TestTaskThroughTheAPIOnly(t *testing.T) {
	t.Parallel()
	f := testfleet.Start(t, testfleet.Options{Pages: pages()})
	srv, err := apiserver.New(f.Pool, apiserver.Options{Events: api.EventOptions{Poll: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	secret, _, err := apitoken.Issue(context.Background(), f.Store, apitoken.Organization, "acme", "e2e")
	if err != nil {
		t.Fatal(err)
	}
	c := client{t: t, base: ts.URL, token: secret}

	var task service.CreatedTask
	if status := c.do(http.MethodPost, "/v1/tasks", map[string]any{"hypothesis": hypothesis, "budget": "minimal"}, &task); status != http.StatusCreated {
		t.Fatalf("create: %d, want 201", status)
	}
	if task.OrganizationID != "acme" || task.Budget != "minimal" {
		t.Fatalf("created task %+v: want organization acme, budget minimal", task)
	}
	tasks := fmt.Sprintf("/v1/tasks/%d", task.TaskID)
	c.do(http.MethodPost, tasks+"/claims", map[string]any{"claims": []string{"Glaciers in Norway advanced in the 1990s."}}, nil)
	var added struct {
		Inserted int `json:"inserted"`
	}
	c.do(http.MethodPost, tasks+"/targets", map[string]any{"targets": []map[string]string{
		{"kind": "url", "value": urlWiki}, {"kind": "url", "value": urlScience}, {"kind": "url", "value": urlBlog}}}, &added)
	if added.Inserted != 3 {
		t.Fatalf("targets inserted %d, want 3", added.Inserted)
	}

	last := waitCompleted(t, c, tasks+"/events")
	if last.TaskStatus != "completed" || last.Pending != 0 || last.Targets["extracted"] != 3 {
		t.Fatalf("the completed event: %+v, want completed, nothing pending, 3 targets extracted", last)
	}

	var items []map[string]any
	for cursor := ""; ; {
		var page api.ExportPage
		c.do(http.MethodGet, tasks+"/export?limit=2&cursor="+cursor, nil, &page)
		for _, it := range page.Items {
			var m map[string]any
			data, _ := json.Marshal(it)
			_ = json.Unmarshal(data, &m)
			items = append(items, m)
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if len(items) < 3 {
		t.Fatalf("exported %d claims, want the two hypotheses and extracted claims", len(items))
	}
	var quoted int
	for _, it := range items {
		if q, _ := it["quote_span"].(string); q != "" {
			quoted++
			if !strings.HasPrefix(it["id"].(string), "E") {
				t.Errorf("item %v has no E-number", it["id"])
			}
		}
	}
	if quoted == 0 {
		t.Errorf("no exported claim has a quote span: %v", items)
	}

	var check map[string]any
	c.do(http.MethodPost, tasks+"/citations/check", map[string]string{"text": "Glaciers are retreating [E1]. Norway's advanced [E2]. Nothing supports this [E999]."}, &check)
	data, _ := json.Marshal(check)
	if !strings.Contains(string(data), "E999") {
		t.Errorf("citation check of a text citing E999: %s, want E999 invalid", data)
	}

	// The stranger's token finds nothing of it.
	stranger, _, err := apitoken.Issue(context.Background(), f.Store, apitoken.Organization, "other", "e2e")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, ts.URL+tasks+"/export", nil)
	req.Header.Set("Authorization", "Bearer "+stranger)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("another organization's export: %d, want 404", resp.StatusCode)
	}

	// The MCP endpoint on the same address takes the same token.
	session := mcpSession(t, ts.URL+"/mcp", secret)
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_status", Arguments: map[string]any{"task_id": task.TaskID}})
	if err != nil || res.IsError {
		t.Fatalf("MCP get_status with the organization's token: %v %+v", err, res)
	}
}

// waitCompleted reads the task's event stream until its completed event
// (a deadline bounds a task that never completes).
func waitCompleted(t *testing.T, c client, path string) api.TaskProgress {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("events: %d", resp.StatusCode)
	}
	r := bufio.NewReader(resp.Body)
	var name string
	var progress int
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("the event stream ended without completed (after %d progress events): %v", progress, err)
		}
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var p api.TaskProgress
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &p); err != nil {
				t.Fatalf("event data: %v", err)
			}
			switch name {
			case api.EventCompleted:
				if progress == 0 {
					t.Errorf("completed without a progress event before it")
				}
				return p
			case api.EventStopped:
				t.Fatalf("the task was stopped: %+v", p)
			}
			progress++
		}
	}
}

// bearerTransport adds the token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func mcpSession(t *testing.T, endpoint, token string) *mcp.ClientSession {
	t.Helper()
	cl := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	s, err := cl.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
	if err != nil {
		t.Fatalf("MCP connect: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestNoSecretInTheLog: whatever the API logs — the token store down, a
// wrong token, a revoked one, a request past the rate — names no secret.
func TestNoSecretInTheLog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.URL(t)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	st := store.NewStore(pool)
	good, _, err := apitoken.Issue(ctx, st, apitoken.Organization, "acme", "log")
	if err != nil {
		t.Fatal(err)
	}
	revoked, tok, err := apitoken.Issue(ctx, st, apitoken.Organization, "acme", "log")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := apitoken.Revoke(ctx, st, apitoken.Organization, "acme", tok.ID); err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewJSONHandler(lockedWriter{&mu, &logged}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, err := apiserver.New(pool, apiserver.Options{Logger: log, Rate: 0.01, Burst: 2, RiverUI: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	wrong := "evf_org_" + strings.Repeat("A", 43)
	send := func(secret, path string) int {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, secret := range []string{good, good, good, wrong, revoked} {
		send(secret, "/v1/tasks")
		send(secret, "/riverui/api/jobs")
	}
	pool.Close() // the token store is down: every lookup fails and is logged
	if status := send(good, "/v1/tasks"); status != http.StatusServiceUnavailable {
		t.Errorf("a good token with the token store down: %d, want 503", status)
	}
	// the secrets refused before are refused again from the negative cache
	for _, secret := range []string{wrong, revoked} {
		if status := send(secret, "/v1/tasks"); status != http.StatusUnauthorized {
			t.Errorf("a refused token with the token store down: %d, want 401", status)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logged.String(), "token check failed") {
		t.Fatalf("the store's failure was not logged; the test saw no log line to check: %s", logged.String())
	}
	for _, secret := range []string{good, wrong, revoked} {
		if strings.Contains(logged.String(), secret) || strings.Contains(logged.String(), secret[8:20]) {
			t.Errorf("the log names a secret: %s", logged.String())
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
