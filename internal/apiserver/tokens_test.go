package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
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

// serve starts an API server on pool with opts.
func serve(t *testing.T, pool *pgxpool.Pool, opts apiserver.Options) *httptest.Server {
	t.Helper()
	srv, err := apiserver.New(pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts
}

// from is an HTTP client whose connections come from the loopback address
// local (127.0.0.1, 127.0.0.2, …): another client address.
func from(local string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// call sends a request with secret as its bearer token and returns the
// response, body unread.
func call(t *testing.T, ctx context.Context, c *http.Client, method, url, secret, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return resp
}

// status sends a request and returns its status, the body drained.
func status(t *testing.T, c *http.Client, method, url, secret string) int {
	t.Helper()
	resp := call(t, context.Background(), c, method, url, secret, "")
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// createTask makes a task over the API and returns its id.
func createTask(t *testing.T, base, secret string) int64 {
	t.Helper()
	resp := call(t, context.Background(), http.DefaultClient, http.MethodPost, base+"/v1/tasks", secret, `{"hypothesis": "Glaciers are retreating."}`)
	defer resp.Body.Close()
	var task service.CreatedTask
	if err := json.NewDecoder(resp.Body).Decode(&task); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create a task: %d, %v", resp.StatusCode, err)
	}
	return task.TaskID
}

// setExpiry moves token id's expiry to now + d (negative: the past).
func setExpiry(t *testing.T, pool *pgxpool.Pool, id int64, d time.Duration) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), `UPDATE api_tokens SET expires_at = now() + make_interval(secs => $2) WHERE id = $1`, id, d.Seconds()); err != nil {
		t.Fatal(err)
	}
}

// TestExpiredTokenGets401: a token past its expiry is answered 401 as a
// revoked one, on /v1 and /mcp; rotation leaves the old secret working
// through its grace and not after.
func TestExpiredTokenGets401(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := scratchPool(t)
	st := store.NewStore(pool)
	ts := serve(t, pool, apiserver.Options{})
	secret, tok, err := apitoken.Issue(ctx, st, apitoken.Organization, "acme", "ci")
	if err != nil {
		t.Fatal(err)
	}
	if code := status(t, http.DefaultClient, http.MethodGet, ts.URL+"/v1/tasks", secret); code != http.StatusOK {
		t.Fatalf("a live token: %d", code)
	}
	newSecret, _, err := apitoken.Rotate(ctx, st, apitoken.Organization, "acme", tok.ID, time.Hour, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]string{"old secret in its grace": secret, "new secret": newSecret} {
		if code := status(t, http.DefaultClient, http.MethodGet, ts.URL+"/v1/tasks", s); code != http.StatusOK {
			t.Errorf("%s: %d, want 200", name, code)
		}
	}
	setExpiry(t, pool, tok.ID, -time.Second) // the grace is over
	if code := status(t, http.DefaultClient, http.MethodGet, ts.URL+"/v1/tasks", secret); code != http.StatusUnauthorized {
		t.Errorf("old secret after its grace: %d, want 401", code)
	}
	if code := status(t, http.DefaultClient, http.MethodPost, ts.URL+"/mcp", secret); code != http.StatusUnauthorized {
		t.Errorf("old secret after its grace on /mcp: %d, want 401", code)
	}
	if code := status(t, http.DefaultClient, http.MethodGet, ts.URL+"/v1/tasks", newSecret); code != http.StatusOK {
		t.Errorf("new secret: %d, want 200", code)
	}
}

// TestRevokedOrExpiredTokenEndsItsStream: an open event stream ends soon
// after its token is revoked or expires (it re-checks its token every
// Recheck; here 50ms), though its task goes on and the stream would last
// an hour.
func TestRevokedOrExpiredTokenEndsItsStream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := scratchPool(t)
	st := store.NewStore(pool)
	ts := serve(t, pool, apiserver.Options{Events: api.EventOptions{Poll: 50 * time.Millisecond, Recheck: 50 * time.Millisecond}})
	for _, how := range []string{"revoked", "expired"} {
		t.Run(how, func(t *testing.T) {
			secret, tok, err := apitoken.Issue(ctx, st, apitoken.Organization, "acme", how)
			if err != nil {
				t.Fatal(err)
			}
			taskID := createTask(t, ts.URL, secret)
			// a generous deadline: only a stream that does not end meets it
			sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			resp := call(t, sctx, http.DefaultClient, http.MethodGet, fmt.Sprintf("%s/v1/tasks/%d/events", ts.URL, taskID), secret, "")
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("open the stream: %d", resp.StatusCode)
			}
			lines := bufio.NewScanner(resp.Body)
			if !lines.Scan() || !strings.HasPrefix(lines.Text(), "id: ") {
				t.Fatalf("no first event: %q, %v", lines.Text(), lines.Err())
			}
			if how == "revoked" {
				if _, _, err := apitoken.Revoke(ctx, st, apitoken.Organization, "acme", tok.ID); err != nil {
					t.Fatal(err)
				}
			} else {
				setExpiry(t, pool, tok.ID, -time.Second)
			}
			for lines.Scan() {
			}
			if err := lines.Err(); err != nil {
				t.Fatalf("the stream did not end after its token was %s: %v", how, err)
			}
			if code := status(t, http.DefaultClient, http.MethodGet, fmt.Sprintf("%s/v1/tasks/%d/events", ts.URL, taskID), secret); code != http.StatusUnauthorized {
				t.Errorf("reconnecting: %d, want 401", code)
			}
		})
	}
}

// TestDeadReplicaStreamSlotsFreeWithinLease: a replica that dies holding
// event streams (here: it loses its database, so it neither renews nor
// closes their rows, as a SIGKILLed process) leaves slots that another
// replica gives out again once their lease lapses (here 1s), not after
// the stream's maximum duration.
func TestDeadReplicaStreamSlotsFreeWithinLease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.URL(t)
	pools := [2]*pgxpool.Pool{}
	for i := range pools {
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		pools[i] = pool
	}
	events := api.EventOptions{Poll: 50 * time.Millisecond, Recheck: 200 * time.Millisecond, Lease: time.Second, PerToken: 1}
	doomed := serve(t, pools[0], apiserver.Options{Events: events})
	survivor := serve(t, pools[1], apiserver.Options{Events: events})
	secret, _, err := apitoken.Issue(ctx, store.NewStore(pools[1]), apitoken.Organization, "acme", "streams")
	if err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/v1/tasks/%d/events", createTask(t, survivor.URL, secret))
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp := call(t, sctx, http.DefaultClient, http.MethodGet, doomed.URL+path, secret, "")
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a stream on the doomed replica: %d", resp.StatusCode)
	}
	if code := status(t, http.DefaultClient, http.MethodGet, survivor.URL+path, secret); code != http.StatusTooManyRequests {
		t.Fatalf("a second stream: %d, want 429 (1 per token)", code)
	}
	pools[0].Close() // the doomed replica is cut off: its row stays, unrenewed
	deadline := time.Now().Add(30 * time.Second)
	for {
		sctx, cancel := context.WithCancel(ctx)
		resp := call(t, sctx, http.DefaultClient, http.MethodGet, survivor.URL+path, secret, "")
		code := resp.StatusCode
		cancel()
		resp.Body.Close()
		if code == http.StatusOK {
			break
		}
		if code != http.StatusTooManyRequests {
			t.Fatalf("a stream on the survivor: %d", code)
		}
		if time.Now().After(deadline) {
			t.Fatal("the dead replica's slot is still taken after 30 s (its lease is 1 s)")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestBadTokensFromOneAddressAre429: an address that sends more bad
// tokens than its burst gets 429 with Retry-After before any token is
// looked at — on /v1, /mcp and /riverui/ alike, its good tokens too —
// while another address is served as before; behind a trusted proxy the
// address is X-Forwarded-For's.
func TestBadTokensFromOneAddressAre429(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := scratchPool(t)
	st := store.NewStore(pool)
	good, _, err := apitoken.Issue(ctx, st, apitoken.Organization, "acme", "good")
	if err != nil {
		t.Fatal(err)
	}
	bad := func() string {
		s, _, _, err := apitoken.New(apitoken.Organization)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ts := serve(t, pool, apiserver.Options{RiverUI: true, Failures: api.FailureLimits{Rate: 0.001, Burst: 3}})
	flooder, other := from("127.0.0.1"), from("127.0.0.2")
	for i := range 3 {
		if code := status(t, flooder, http.MethodGet, ts.URL+"/v1/tasks", bad()); code != http.StatusUnauthorized {
			t.Fatalf("bad token %d: %d, want 401", i+1, code)
		}
	}
	resp := call(t, ctx, flooder, http.MethodGet, ts.URL+"/v1/tasks", bad(), "")
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a fourth bad token: %d, Retry-After %q; want 429 with one", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	for _, path := range []string{"/v1/tasks", "/mcp", "/riverui/"} {
		if code := status(t, flooder, http.MethodGet, ts.URL+path, good); code != http.StatusTooManyRequests {
			t.Errorf("the flooding address's good token on %s: %d, want 429", path, code)
		}
	}
	if code := status(t, other, http.MethodGet, ts.URL+"/v1/tasks", good); code != http.StatusOK {
		t.Errorf("another address's good token: %d, want 200", code)
	}
	if code := status(t, other, http.MethodGet, ts.URL+"/v1/tasks", bad()); code != http.StatusUnauthorized {
		t.Errorf("another address's bad token: %d, want 401 (its own budget)", code)
	}

	t.Run("behind a trusted proxy", func(t *testing.T) {
		proxied := serve(t, pool, apiserver.Options{Failures: api.FailureLimits{Rate: 0.001, Burst: 1,
			TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}})
		send := func(forwarded, secret string) int {
			req, _ := http.NewRequest(http.MethodGet, proxied.URL+"/v1/tasks", nil)
			req.Header.Set("Authorization", "Bearer "+secret)
			req.Header.Set("X-Forwarded-For", forwarded)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		if code := send("203.0.113.7", bad()); code != http.StatusUnauthorized {
			t.Fatalf("first bad token: %d", code)
		}
		// what the client wrote left of the proxy's entry is not believed
		if code := send("198.51.100.1, 203.0.113.7", good); code != http.StatusTooManyRequests {
			t.Errorf("the same client, another address made up: %d, want 429", code)
		}
		if code := send("203.0.113.8", good); code != http.StatusOK {
			t.Errorf("another client behind the proxy: %d, want 200", code)
		}
	})
}

// TestRepeatedUnknownTokenNeedsNoDatabase: an unknown token refused once
// is refused again from memory: with the database gone it is still 401
// (not 503).
func TestRepeatedUnknownTokenNeedsNoDatabase(t *testing.T) {
	t.Parallel()
	pool := scratchPool(t)
	ts := serve(t, pool, apiserver.Options{})
	unknown, _, _, err := apitoken.New(apitoken.Organization)
	if err != nil {
		t.Fatal(err)
	}
	if code := status(t, http.DefaultClient, http.MethodGet, ts.URL+"/v1/tasks", unknown); code != http.StatusUnauthorized {
		t.Fatalf("an unknown token: %d, want 401", code)
	}
	pool.Close()
	if code := status(t, http.DefaultClient, http.MethodGet, ts.URL+"/v1/tasks", unknown); code != http.StatusUnauthorized {
		t.Errorf("the same token, the database gone: %d, want 401 from the negative cache", code)
	}
	other, _, _, _ := apitoken.New(apitoken.Organization)
	if code := status(t, http.DefaultClient, http.MethodGet, ts.URL+"/v1/tasks", other); code != http.StatusServiceUnavailable {
		t.Errorf("another unknown token, the database gone: %d, want 503 (it must be looked up)", code)
	}
}
