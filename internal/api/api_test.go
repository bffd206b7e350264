package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/evidencefleet/evidencefleet/internal/apiserver"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/store"
)

// tenant is one organization's token and rows: a task with a claim and an
// NLI edge into it.
type tenant struct {
	org, token                   string
	task, claim, edge, page, job int64
}

// testBundle is an API server on a fresh database with two organizations,
// and the validator of the OpenAPI document it serves.
type testBundle struct {
	srv       *httptest.Server
	pool      *pgxpool.Pool
	spec      []byte
	validator validator.Validator
	owner     tenant // alpha
	stranger  tenant // beta
	operator  string // an operator token
}

// setup serves the API process (apiserver: the real token store, River UI
// and MCP) with opts on a fresh database.
func setup(t *testing.T, opts apiserver.Options) *testBundle {
	t.Helper()
	pool := pgtest.Pool(t)
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	st := store.NewStore(pool)
	svc := service.New(st, client)
	b := &testBundle{pool: pool}
	auth := tokens{st: st}
	b.owner = newTenant(t, svc, pool, auth, "alpha", "Glaciers are retreating.")
	b.stranger = newTenant(t, svc, pool, auth, "beta", "The stranger's own task.")
	b.operator = auth.operator(t)
	srv, err := apiserver.New(pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	b.srv = httptest.NewServer(srv.Handler())
	t.Cleanup(b.srv.Close)
	b.spec = b.get(t, "/v1/openapi.json")
	doc, err := libopenapi.NewDocument(b.spec)
	if err != nil {
		t.Fatalf("parse OpenAPI document: %v", err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("OpenAPI validator: %v", errs)
	}
	b.validator = v
	return b
}

func newTenant(t *testing.T, svc *service.Service, pool *pgxpool.Pool, auth tokens, org, hypothesis string) tenant {
	t.Helper()
	ctx := context.Background()
	task, err := svc.CreateTask(ctx, org, intake.TaskSpec{Hypothesis: hypothesis})
	if err != nil {
		t.Fatal(err)
	}
	tn := tenant{org: org, task: task.ID, token: auth.organization(t, org)}
	url := "https://" + org + ".example.org/"
	err = pool.QueryRow(ctx, `
		WITH p AS (INSERT INTO pages (url, domain) VALUES ($2, $3) RETURNING id),
		     v AS (INSERT INTO page_versions (page_id, sha256, content) SELECT id, 'x', 'Glaciers retreat.' FROM p RETURNING id, page_id),
		     f AS (INSERT INTO fragments (page_id, page_version_id, start_char, end_char, text, heading_context)
		           SELECT page_id, id, 0, 17, 'Glaciers retreat.', '' FROM v RETURNING id),
		     tp AS (INSERT INTO task_pages (task_id, page_id, reason) SELECT $1, id, 'url_target' FROM p)
		INSERT INTO edges (source_type, source_id, target_type, target_id, relation, nli_edge_confidence)
		SELECT 'fragment', f.id, 'claim', c.id, 'supports', 0.9 FROM f, claims c WHERE c.task_id = $1
		RETURNING id, target_id, (SELECT id FROM p)`, task.ID, url, org+".example.org").Scan(&tn.edge, &tn.claim, &tn.page)
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT min(id) FROM river_job WHERE args ->> 'task_id' = $1::bigint::text`, task.ID).Scan(&tn.job); err != nil {
		t.Fatal(err)
	}
	return tn
}

// call sends a request with token (none when empty) and returns the
// response with its body read.
func (b *testBundle) call(t *testing.T, method, path, token string, body []byte) (*http.Response, []byte) {
	t.Helper()
	return b.do(t, b.request(t, method, path, token, body))
}

// do sends req and reads its answer.
func (b *testBundle) do(t *testing.T, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := b.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", req.Method, req.URL.Path, err)
	}
	return resp, data
}

func (b *testBundle) request(t *testing.T, method, path, token string, body []byte) *http.Request {
	t.Helper()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, b.srv.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req
}

func (b *testBundle) get(t *testing.T, path string) []byte {
	t.Helper()
	resp, data := b.call(t, http.MethodGet, path, "", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, data)
	}
	return data
}

// checkRequest validates a request against the OpenAPI document the server
// serves.
func (b *testBundle) checkRequest(t *testing.T, method, path, token string, reqBody []byte) {
	t.Helper()
	if ok, errs := b.validator.ValidateHttpRequest(b.request(t, method, path, token, reqBody)); !ok {
		t.Errorf("%s %s: request does not match the OpenAPI document: %s", method, path, validationText(errs))
	}
}

// checkResponse validates a response against the OpenAPI document the
// server serves.
func (b *testBundle) checkResponse(t *testing.T, method, path, token string, reqBody []byte, resp *http.Response, respBody []byte) {
	t.Helper()
	req := b.request(t, method, path, token, reqBody)
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	if ok, errs := b.validator.ValidateHttpResponse(req, resp); !ok {
		t.Errorf("%s %s → %d: response does not match the OpenAPI document: %s\n%s", method, path, resp.StatusCode, validationText(errs), clip(respBody))
	}
}

func validationText[E interface{ Error() string }](errs []E) string {
	var parts []string
	for _, e := range errs {
		parts = append(parts, e.Error())
	}
	return strings.Join(parts, "; ")
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// operation is one documented operation of the OpenAPI document.
type operation struct {
	id, method, path string
}

// walkedLast are the operations that change the owner's task, walked after
// all others in this order: paused, its budget changed (only while
// paused), resumed, stopped.
var walkedLast = []string{"pause-task", "set-task-budget", "resume-task", "stop-task"}

// operations lists the document's operations, those of walkedLast last
// (they change the task the others read).
func (b *testBundle) operations(t *testing.T) []operation {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(b.spec, &doc); err != nil {
		t.Fatal(err)
	}
	var ops []operation
	for path, methods := range doc.Paths {
		for method, op := range methods {
			ops = append(ops, operation{id: op.OperationID, method: strings.ToUpper(method), path: path})
		}
	}
	slices.SortFunc(ops, func(x, y operation) int {
		if c := slices.Index(walkedLast, x.id) - slices.Index(walkedLast, y.id); c != 0 {
			return c
		}
		return strings.Compare(x.id, y.id)
	})
	return ops
}

// filled is the operation's path for tenant tn's rows.
func (op operation) filled(tn tenant) string {
	r := strings.NewReplacer("{domain}", tn.org+".example.org", "{task_id}", itoa(tn.task), "{claim_id}", itoa(tn.claim), "{edge_id}", itoa(tn.edge), "{page_id}", itoa(tn.page), "{job_id}", itoa(tn.job), "{code}", "not_found")
	return r.Replace(op.path)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
