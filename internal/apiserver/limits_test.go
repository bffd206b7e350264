package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/api"
	"github.com/evidencefleet/evidencefleet/internal/apiserver"
	"github.com/evidencefleet/evidencefleet/internal/apitoken"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/store"
)

// scratchPool is a pool on a scratch database of the test's own.
func scratchPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// TestLimitsAreSharedByReplicas: two API servers on one database (two
// replicas) share each token's request budget and its open event streams:
// a burst of 4 allows 4 requests in all, whichever replica answers, and a
// bound of 2 streams holds across both until one is closed.
func TestLimitsAreSharedByReplicas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := scratchPool(t)
	st := store.NewStore(pool)
	// replicas starts two API servers on the pool with opts
	replicas := func(opts apiserver.Options) [2]*httptest.Server {
		var out [2]*httptest.Server
		for i := range out {
			srv, err := apiserver.New(pool, opts)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = httptest.NewServer(srv.Handler())
			t.Cleanup(out[i].Close)
		}
		return out
	}
	send := func(ctx context.Context, to *httptest.Server, secret, method, path, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, method, to.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+secret)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	t.Run("request rate", func(t *testing.T) {
		servers := replicas(apiserver.Options{Rate: 0.001, Burst: 4})
		secret, _, err := apitoken.Issue(ctx, st, apitoken.Organization, "acme", "rate")
		if err != nil {
			t.Fatal(err)
		}
		var codes []int
		for i := range 6 {
			resp := send(ctx, servers[i%2], secret, http.MethodGet, "/v1/tasks", "")
			resp.Body.Close()
			codes = append(codes, resp.StatusCode)
			if resp.StatusCode == http.StatusTooManyRequests {
				if s, _ := strconv.Atoi(resp.Header.Get("Retry-After")); s < 1 {
					t.Errorf("Retry-After %q, want whole seconds ≥ 1", resp.Header.Get("Retry-After"))
				}
			}
		}
		want := []int{200, 200, 200, 200, 429, 429}
		if fmt.Sprint(codes) != fmt.Sprint(want) {
			t.Fatalf("six requests taking turns on two replicas: %v, want %v (a burst of 4 in all)", codes, want)
		}
		other, _, err := apitoken.Issue(ctx, st, apitoken.Organization, "acme", "rate-other")
		if err != nil {
			t.Fatal(err)
		}
		if resp := send(ctx, servers[0], other, http.MethodGet, "/v1/tasks", ""); resp.StatusCode != http.StatusOK {
			t.Errorf("another token: %d, want 200 (each token has its own budget)", resp.StatusCode)
		}
	})

	t.Run("event streams", func(t *testing.T) {
		secret, _, err := apitoken.Issue(ctx, st, apitoken.Organization, "acme", "streams")
		if err != nil {
			t.Fatal(err)
		}
		servers := replicas(apiserver.Options{Events: api.EventOptions{Poll: 20 * time.Millisecond, PerToken: 2}})
		resp := send(ctx, servers[0], secret, http.MethodPost, "/v1/tasks", `{"hypothesis": "Glaciers are retreating."}`)
		var task service.CreatedTask
		err = json.NewDecoder(resp.Body).Decode(&task)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("create a task: %d, %v", resp.StatusCode, err)
		}
		taskID := task.TaskID
		path := fmt.Sprintf("/v1/tasks/%d/events", taskID)
		var cancels []context.CancelFunc
		t.Cleanup(func() {
			for _, c := range cancels {
				c()
			}
		})
		open := func(replica int) int {
			sctx, cancel := context.WithCancel(ctx)
			cancels = append(cancels, cancel)
			resp := send(sctx, servers[replica], secret, http.MethodGet, path, "")
			if resp.StatusCode != http.StatusOK {
				resp.Body.Close()
			}
			return resp.StatusCode
		}
		if a, b := open(0), open(1); a != 200 || b != 200 {
			t.Fatalf("two streams on two replicas: %d, %d; want 200, 200", a, b)
		}
		for r := range 2 {
			if code := open(r); code != http.StatusTooManyRequests {
				t.Fatalf("a third stream on replica %d: %d, want 429 (2 in all)", r, code)
			}
		}
		cancels[0]() // the client leaves the first stream; its replica closes it
		deadline := time.Now().Add(30 * time.Second)
		for open(1) != http.StatusOK {
			if time.Now().After(deadline) {
				t.Fatal("a stream was closed, yet a new one is still refused after 30 s")
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// TestAPIMetrics: the API process counts what it answered by operation
// and status, refusals included, and its open event streams.
func TestAPIMetrics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := scratchPool(t)
	srv, err := apiserver.New(pool, apiserver.Options{Rate: 0.001, Burst: 2})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	secret, _, err := apitoken.Issue(ctx, store.NewStore(pool), apitoken.Organization, "acme", "metrics")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{secret, "wrong", secret, secret} { // 200, 401, 200, 429
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/v1/tasks", nil)
		req.Header.Set("Authorization", "Bearer "+s)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	rec := httptest.NewRecorder()
	srv.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`evidencefleet_api_requests_total{code="200",operation="list-tasks"} 2`,
		`evidencefleet_api_requests_total{code="401",operation="list-tasks"} 1`,
		`evidencefleet_api_requests_total{code="429",operation="list-tasks"} 1`,
		`evidencefleet_api_request_seconds_count{operation="list-tasks"} 4`,
		`evidencefleet_api_event_streams 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", body)
	}
}

// TestAPIMetricsCountStreams: an event stream, which writes no status of
// its own, is counted with the 200 it was answered with once it ends.
func TestAPIMetricsCountStreams(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := scratchPool(t)
	srv, err := apiserver.New(pool, apiserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	secret, _, err := apitoken.Issue(ctx, store.NewStore(pool), apitoken.Organization, "acme", "streams")
	if err != nil {
		t.Fatal(err)
	}
	var task int64
	if err := pool.QueryRow(ctx, `INSERT INTO tasks (hypothesis, organization_id) VALUES ('streams', 'acme') RETURNING id`).Scan(&task); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	req, _ := http.NewRequestWithContext(sctx, http.MethodGet, ts.URL+"/v1/tasks/"+strconv.FormatInt(task, 10)+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the stream: %v %v", resp, err)
	}
	if _, err := resp.Body.Read(make([]byte, 64)); err != nil {
		t.Fatalf("the stream sent nothing: %v", err)
	}
	cancel()
	resp.Body.Close()
	want := `evidencefleet_api_requests_total{code="200",operation="task-events"} 1`
	deadline := time.Now().Add(30 * time.Second)
	for {
		rec := httptest.NewRecorder()
		srv.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		body := rec.Body.String()
		if strings.Contains(body, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics lacks %s 30 s after the stream ended:\n%s", want, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
