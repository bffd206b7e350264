package academic

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

const secret = "s3cr3t-key-0123456789"

// fastHTTP retries quickly so the tests do not sleep on backoff.
// testBound bounds the small answers of these tests.
var testBound = OneBound(1<<20, "a test answer")

func fastHTTP() httpx.Options {
	return httpx.Options{MaxRetries: 2, BaseBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}
}

func TestGetJSONErrors(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		want     error
		wantText []string // substrings of the error text
		requests int32
	}{
		{"404 is not found, not retried", 404, `{"error":"Paper with id X not found"}`, remoteerr.ErrNotFound,
			[]string{"testapi", "/v1/thing/X", "not found", "404"}, 1},
		{"garbage JSON", 200, `<html>oops</html>`, remoteerr.ErrBadResponse,
			[]string{"testapi", "/v1/thing/X", "decoding the JSON answer", "<html>oops</html>"}, 1},
		{"JSON of the wrong shape", 200, `[1,2,3]`, remoteerr.ErrBadResponse, []string{"testapi", "/v1/thing/X"}, 1},
		{"JSON null", 200, `null`, remoteerr.ErrBadResponse, []string{"testapi", "/v1/thing/X", "null"}, 1},
		{"400 is rejected", 400, `{"message":"bad fields"}`, remoteerr.ErrRejected, []string{"testapi", "/v1/thing/X", "400", "bad fields"}, 1},
		{"500 retried, then unavailable", 500, `boom`, remoteerr.ErrUnavailable, []string{"testapi", "/v1/thing/X", "500", "3 attempts"}, 3},
		{"secret echoed in an error body is redacted", 403, `{"message":"Forbidden for key ` + secret + `"}`, remoteerr.ErrRejected,
			[]string{"testapi", "403", "[redacted]"}, 1},
		{"secret echoed in a garbage body is redacted", 200, `not json, key=` + secret, remoteerr.ErrBadResponse,
			[]string{"testapi", "[redacted]"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c := NewClient(ClientOptions{API: "testapi", HTTP: fastHTTP(), Secret: secret})
			var out struct{ A int }
			err := c.GetJSON(context.Background(), srv.URL+"/v1/thing/X?api_key="+secret, nil, testBound, &out)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			var he *httpx.Error
			if !errors.As(err, &he) {
				t.Fatalf("err %T is not an *httpx.Error", err)
			}
			msg := err.Error()
			for _, s := range tt.wantText {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q does not contain %q", msg, s)
				}
			}
			if strings.Contains(msg, secret) || strings.Contains(he.Message, secret) || strings.Contains(he.Reason, secret) {
				t.Errorf("error leaks the secret: %q", msg)
			}
			if got := n.Load(); got != tt.requests {
				t.Errorf("%d requests, want %d", got, tt.requests)
			}
		})
	}
}

func TestGetJSONBadURLHidesSecret(t *testing.T) {
	c := NewClient(ClientOptions{API: "testapi", Secret: secret})
	err := c.GetJSON(context.Background(), "http://[::1%zz/x?api_key="+secret, nil, testBound, &struct{}{})
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "testapi") {
		t.Fatalf("err = %v: want an error naming the API without the secret", err)
	}
}

func TestGetJSONSendsHeaders(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != secret || r.Header.Get("User-Agent") != "evf-test" ||
			r.Header.Get("Accept") != "application/json" {
			http.Error(w, "missing headers", http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte(`{"a": 7}`))
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{API: "testapi", Secret: secret, UserAgent: "evf-test"})
	var out struct{ A int }
	if err := c.GetJSON(context.Background(), srv.URL, http.Header{"X-Api-Key": {secret}}, testBound, &out); err != nil {
		t.Fatal(err)
	}
	if out.A != 7 {
		t.Fatalf("decoded %+v", out)
	}
}

func TestPostJSON(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			_, _ = w.Write([]byte(`[{"a":1}, null]`))
		case "/null":
			_, _ = w.Write([]byte(`null`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{API: "testapi", HTTP: fastHTTP()})
	var out []*struct{ A int }
	if err := c.PostJSON(context.Background(), srv.URL+"/ok", nil, map[string]any{"ids": []string{"x"}}, testBound, &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].A != 1 || out[1] != nil {
		t.Fatalf("decoded %+v", out)
	}
	if err := c.PostJSON(context.Background(), srv.URL+"/null", nil, nil, testBound, &out); !errors.Is(err, remoteerr.ErrBadResponse) {
		t.Fatalf("null answer: err = %v, want ErrBadResponse", err)
	}
	if err := c.PostJSON(context.Background(), srv.URL+"/missing", nil, nil, testBound, &out); !errors.Is(err, remoteerr.ErrNotFound) {
		t.Fatalf("404: err = %v, want ErrNotFound", err)
	}
}

func TestGetJSONContextCancelledDuringRetryAfter(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{API: "testapi"})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	err := c.GetJSON(ctx, srv.URL, nil, testBound, &struct{}{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// A wait the cancel did not end would have asked again after 30 s.
	if n := hits.Load(); n != 1 {
		t.Fatalf("the server was asked %d times, want once: the cancel did not end the wait", n)
	}
}

func TestEscapePath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"CorpusID:1033682", "CorpusID:1033682"},
		{"DOI:10.1093/mind/lix.236.433", "DOI:10.1093/mind/lix.236.433"},
		{"DOI:10.1002/a b?c#d%", "DOI:10.1002/a%20b%3Fc%23d%25"},
	}
	for _, tt := range tests {
		if got := EscapePath(tt.in); got != tt.want {
			t.Errorf("EscapePath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestRequestsAreAcademicCalls checks that the academic clients' requests
// count in the job's cost meter as academic calls, not model calls.
func TestRequestsAreAcademicCalls(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"a": 7}`))
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{API: "testapi", HTTP: fastHTTP()})
	ctx, meter := cost.WithMeter(context.Background())
	var out struct{ A int }
	for range 2 {
		if err := c.GetJSON(ctx, srv.URL, nil, testBound, &out); err != nil {
			t.Fatal(err)
		}
	}
	if got := meter.Counts(); got != (cost.Counts{AcademicCalls: 2}) {
		t.Errorf("meter %+v, want 2 academic calls", got)
	}
}
