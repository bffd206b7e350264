// Package cassette reads recorded HTTP sessions ("cassettes") of the Python
// vcrpy and R vcr libraries and replays them from an http.Handler, so the
// academic clients can be tested against real recorded API answers with
// httptest. It is meant for tests only.
//
// Supported shapes (YAML, read with sigs.k8s.io/yaml):
//
//   - vcrpy: {interactions: [{request: {method, uri, body, headers},
//     response: ...}], version: 1}, where the response is either the
//     httpx-style {status_code: 200, content: "...", headers: {k: [v]}} or
//     the requests-style {status: {code: 200, message}, body: {string: "..."},
//     headers: {k: [v]}};
//   - R vcr: {http_interactions: [{request: {method, uri, body, headers},
//     response: {status: 200 | {status_code: "200", message}, headers: {k: v},
//     body: {encoding, string | base64_string}}}], recorded_with}.
package cassette

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"
)

// Interaction is one recorded request and its answer.
type Interaction struct {
	Method string
	URI    string // as recorded, host included
	Status int
	Header http.Header // recorded response headers
	Body   []byte      // response body, decoded
}

// Cassette is a list of recorded interactions, in recording order.
type Cassette struct {
	Path         string
	Interactions []Interaction
}

// file is the union of both libraries' top-level shapes.
type file struct {
	Interactions     []rawInteraction `json:"interactions"`      // vcrpy
	HTTPInteractions []rawInteraction `json:"http_interactions"` // R vcr
}

type rawInteraction struct {
	Request struct {
		Method string `json:"method"`
		URI    string `json:"uri"`
	} `json:"request"`
	Response struct {
		StatusCode json.RawMessage            `json:"status_code"` // vcrpy httpx style
		Status     json.RawMessage            `json:"status"`      // vcrpy requests style, R vcr
		Content    *string                    `json:"content"`     // vcrpy httpx style
		Body       json.RawMessage            `json:"body"`        // vcrpy requests style, R vcr
		Headers    map[string]json.RawMessage `json:"headers"`
	} `json:"response"`
}

// Load reads the cassette at path.
func Load(path string) (*Cassette, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("cassette %s: %w", path, err)
	}
	c.Path = path
	return c, nil
}

// Parse reads a cassette from YAML (or JSON) data.
func Parse(data []byte) (*Cassette, error) {
	var f file
	if err := yaml.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("parsing: %w", err)
	}
	raws := f.Interactions
	if len(raws) == 0 {
		raws = f.HTTPInteractions
	}
	if len(raws) == 0 {
		return nil, fmt.Errorf("no interactions (neither vcrpy's interactions nor R vcr's http_interactions)")
	}
	c := &Cassette{}
	for i, r := range raws {
		it, err := convert(r)
		if err != nil {
			return nil, fmt.Errorf("interaction %d (%s %s): %w", i, r.Request.Method, r.Request.URI, err)
		}
		c.Interactions = append(c.Interactions, it)
	}
	return c, nil
}

func convert(r rawInteraction) (Interaction, error) {
	it := Interaction{Method: strings.ToUpper(r.Request.Method), URI: r.Request.URI, Header: http.Header{}}
	if it.Method == "" || it.URI == "" {
		return it, fmt.Errorf("request without method or uri")
	}
	status, err := parseStatus(r.Response.StatusCode, r.Response.Status)
	if err != nil {
		return it, err
	}
	it.Status = status
	switch {
	case r.Response.Content != nil:
		it.Body = []byte(*r.Response.Content)
	case len(r.Response.Body) > 0 && string(r.Response.Body) != "null":
		b, err := parseBody(r.Response.Body)
		if err != nil {
			return it, err
		}
		it.Body = b
	}
	for k, raw := range r.Response.Headers {
		var many []string
		var one string
		switch {
		case json.Unmarshal(raw, &many) == nil:
			for _, v := range many {
				it.Header.Add(k, v)
			}
		case json.Unmarshal(raw, &one) == nil:
			it.Header.Add(k, one)
		}
	}
	return it, nil
}

// parseStatus reads status_code: 200, status: 200, status: {code: 200} or
// status: {status_code: "200"}.
func parseStatus(statusCode, status json.RawMessage) (int, error) {
	for _, raw := range []json.RawMessage{statusCode, status} {
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		if n, ok := number(raw); ok {
			return n, nil
		}
		var obj struct {
			Code       json.RawMessage `json:"code"`
			StatusCode json.RawMessage `json:"status_code"`
		}
		if json.Unmarshal(raw, &obj) == nil {
			for _, v := range []json.RawMessage{obj.Code, obj.StatusCode} {
				if n, ok := number(v); ok {
					return n, nil
				}
			}
		}
		return 0, fmt.Errorf("unreadable response status %s", raw)
	}
	return 0, fmt.Errorf("response without a status")
}

// number reads 200 or "200".
func number(raw json.RawMessage) (int, bool) {
	var n int
	if json.Unmarshal(raw, &n) == nil && n > 0 {
		return n, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n > 0 {
			return n, true
		}
	}
	return 0, false
}

// parseBody reads body: "text", body: {string: "text"} or
// body: {base64_string: "..."}.
func parseBody(raw json.RawMessage) ([]byte, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []byte(s), nil
	}
	var obj struct {
		String       *string `json:"string"`
		Base64String *string `json:"base64_string"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("unreadable response body: %w", err)
	}
	switch {
	case obj.String != nil:
		return []byte(*obj.String), nil
	case obj.Base64String != nil:
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(*obj.Base64String), ""))
		if err != nil {
			return nil, fmt.Errorf("response body base64: %w", err)
		}
		return b, nil
	}
	return nil, nil
}

// Replayer answers requests with the recorded interactions whose method,
// path and query match; the host is ignored, the query is compared as a
// multiset of decoded key=value pairs (so parameter order and percent
// encoding do not matter), minus the Ignore parameters. An interaction may be
// replayed any number of times. A request that matches nothing gets a 501
// whose body says so, and is listed by Unmatched. It is safe for concurrent
// use.
type Replayer struct {
	cassette *Cassette
	ignore   map[string]bool

	mu        sync.Mutex
	requests  []*http.Request // every request received (clones without body)
	unmatched []string
}

// Replayer returns a Replayer over c that leaves the query parameters
// ignore out of the comparison (e.g. "api_key" when the recording had none).
func (c *Cassette) Replayer(ignore ...string) *Replayer {
	r := &Replayer{cassette: c, ignore: map[string]bool{}}
	for _, k := range ignore {
		r.ignore[k] = true
	}
	return r
}

// ServeHTTP answers req from the cassette.
func (r *Replayer) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.requests = append(r.requests, req.Clone(req.Context()))
	r.mu.Unlock()
	it, ok := r.Match(req.Method, req.URL)
	if !ok {
		desc := req.Method + " " + req.URL.RequestURI()
		r.mu.Lock()
		r.unmatched = append(r.unmatched, desc)
		r.mu.Unlock()
		http.Error(w, "cassette: no recorded interaction for "+desc, http.StatusNotImplemented)
		return
	}
	for k, vs := range it.Header {
		switch http.CanonicalHeaderKey(k) {
		case "Content-Encoding", "Content-Length", "Transfer-Encoding", "Connection":
			continue // the stored body is decoded; net/http sets the rest
		}
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(it.Status)
	_, _ = w.Write(it.Body)
}

// Match returns the first interaction matching method and u.
func (r *Replayer) Match(method string, u *url.URL) (Interaction, bool) {
	want := r.key(u.Query())
	for _, it := range r.cassette.Interactions {
		if !strings.EqualFold(it.Method, method) {
			continue
		}
		ru, err := url.Parse(it.URI)
		if err != nil || ru.Path != u.Path {
			continue
		}
		if slices.Equal(r.key(ru.Query()), want) {
			return it, true
		}
	}
	return Interaction{}, false
}

// key is the sorted list of key=value pairs of q, without ignored keys.
func (r *Replayer) key(q url.Values) []string {
	var kv []string
	for k, vs := range q {
		if r.ignore[k] {
			continue
		}
		for _, v := range vs {
			kv = append(kv, k+"="+v)
		}
	}
	slices.Sort(kv)
	return kv
}

// Requests returns the requests received so far, in order (header and URL
// only).
func (r *Replayer) Requests() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

// Unmatched returns the requests that matched no interaction, as
// "METHOD /path?query".
func (r *Replayer) Unmatched() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.unmatched)
}
