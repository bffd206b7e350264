package openaibackend

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/metrics"
)

// The wire contract of POST /v1/chat/completions as the OpenAI API reference
// documents it (and Ollama, vLLM and llama.cpp accept it): the response
// schemas the package must send, written out independently of prompts.go.
var wantSchemas = map[string]string{
	"claims": `{"type":"object","additionalProperties":false,"required":["claims"],"properties":{"claims":{"type":"array","items":{
		"type":"object","additionalProperties":false,"required":["claim","quote","confidence"],
		"properties":{"claim":{"type":"string"},"quote":{"type":"string"},"confidence":{"type":"number"}}}}}}`,
	"relevance":          `{"type":"object","additionalProperties":false,"required":["score"],"properties":{"score":{"type":"number"}}}`,
	"citation_relevance": `{"type":"object","additionalProperties":false,"required":["score"],"properties":{"score":{"type":"number"}}}`,
	"split_hypothesis":   `{"type":"object","additionalProperties":false,"required":["sub_claims"],"properties":{"sub_claims":{"type":"array","items":{"type":"string"}}}}`,
	"nli_judgement": `{"type":"object","additionalProperties":false,"required":["label","confidence"],"properties":{
		"label":{"type":"string","enum":["entailment","contradiction","neutral"]},"confidence":{"type":"number"}}}`,
}

// chatCall is one request the fake chat server received, after its checks.
type chatCall struct {
	Ctx    context.Context // the request's context
	N      int             // 1-based number of the request at this server
	Schema string          // response_format.json_schema.name
	System string          // content of the system message
	User   string          // content of the user message
	Body   []byte
	Header http.Header
}

// chatWant is what every request to a fake chat server must carry.
type chatWant struct {
	Model  string
	APIKey string // "" means no Authorization header
	Seed   *int   // nil means no "seed" field
}

// chatServer serves POST /v1/chat/completions. It checks every request
// against the wire contract with t.Errorf and hands it to reply.
func chatServer(t *testing.T, want chatWant, reply func(w http.ResponseWriter, c chatCall)) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		call := chatCall{Ctx: r.Context(), N: n, Header: r.Header.Clone()}
		mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
			http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
			return
		}
		call.Body, _ = io.ReadAll(r.Body)
		checkChatRequest(t, want, r.Header, call.Body, &call)
		reply(w, call)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// checkChatRequest asserts the documented request shape.
func checkChatRequest(t *testing.T, want chatWant, h http.Header, body []byte, call *chatCall) {
	t.Helper()
	if ct := h.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	if got, wantAuth := h.Get("Authorization"), bearer(want.APIKey); got != wantAuth {
		t.Errorf("Authorization %q, want %q", got, wantAuth)
	}
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		t.Errorf("request body is not a JSON object: %v: %s", err, body)
		return
	}
	allowed := []string{"model", "messages", "temperature", "max_tokens", "seed", "response_format", "stream"}
	for k := range req {
		if !slices.Contains(allowed, k) {
			t.Errorf("request has field %q (max_completion_tokens must not be sent; Ollama ignores it)", k)
		}
	}
	var model string
	if _ = json.Unmarshal(req["model"], &model); model != want.Model {
		t.Errorf("model %q, want %q", model, want.Model)
	}
	var temp float64
	if raw, ok := req["temperature"]; !ok {
		t.Errorf("temperature missing (go-openai's omitempty drops 0): %s", body)
	} else if json.Unmarshal(raw, &temp) != nil || temp != 0 {
		t.Errorf("temperature %s, want 0", raw)
	}
	var maxTok int
	if err := json.Unmarshal(req["max_tokens"], &maxTok); err != nil || maxTok <= 0 {
		t.Errorf("max_tokens %s, want a positive integer", req["max_tokens"])
	}
	if s, ok := req["stream"]; ok && string(s) != "false" {
		t.Errorf("stream %s, want false", s)
	}
	if want.Seed == nil {
		if s, ok := req["seed"]; ok {
			t.Errorf("seed %s sent, none configured", s)
		}
	} else {
		var seed int
		if err := json.Unmarshal(req["seed"], &seed); err != nil || seed != *want.Seed {
			t.Errorf("seed %s, want %d", req["seed"], *want.Seed)
		}
	}
	var msgs []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(req["messages"], &msgs); err != nil || len(msgs) != 2 ||
		msgs[0].Role != "system" || msgs[1].Role != "user" || msgs[0].Content == "" || msgs[1].Content == "" {
		t.Errorf("messages %s, want a non-empty system and user message", req["messages"])
	} else {
		call.System, call.User = msgs[0].Content, msgs[1].Content
	}
	var rf struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string          `json:"name"`
			Strict bool            `json:"strict"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(req["response_format"], &rf); err != nil || rf.Type != "json_schema" || !rf.JSONSchema.Strict {
		t.Errorf("response_format %s, want type json_schema, strict true", req["response_format"])
		return
	}
	call.Schema = rf.JSONSchema.Name
	ws, ok := wantSchemas[rf.JSONSchema.Name]
	if !ok {
		t.Errorf("response_format.json_schema.name %q unknown", rf.JSONSchema.Name)
		return
	}
	if !jsonEqual(t, rf.JSONSchema.Schema, []byte(ws)) {
		t.Errorf("schema %s: got %s, want %s", rf.JSONSchema.Name, rf.JSONSchema.Schema, ws)
	}
}

// bearer is the Authorization header value for key.
func bearer(key string) string {
	if key == "" {
		return ""
	}
	return "Bearer " + key
}

// jsonEqual reports whether a and b hold the same JSON value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Errorf("not JSON: %v: %s", err, a)
		return false
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Errorf("not JSON: %v: %s", err, b)
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// completion is a chat.completion object as OpenAI documents it (and Ollama
// and vLLM return it) with one choice holding message.
func completion(message map[string]any, finish string, prompt, completionTokens int) []byte {
	var fr any = finish
	if finish == "" {
		fr = nil
	}
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-9x7", "object": "chat.completion", "created": 1731000000, "model": "served-model",
		"system_fingerprint": "fp_44709d6fcb",
		"choices":            []any{map[string]any{"index": 0, "message": message, "logprobs": nil, "finish_reason": fr}},
		"usage":              map[string]any{"prompt_tokens": prompt, "completion_tokens": completionTokens, "total_tokens": prompt + completionTokens},
	})
	return b
}

// assistant is an assistant message with content.
func assistant(content string) map[string]any {
	return map[string]any{"role": "assistant", "content": content}
}

// writeJSON writes a 200 JSON answer.
func writeJSON(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// answer writes a 200 chat.completion with content and finish_reason "stop"
// and usage 100 prompt / 20 completion tokens.
func answer(w http.ResponseWriter, content string) {
	writeJSON(w, completion(assistant(content), "stop", 100, 20))
}

// apiError writes an OpenAI-style error answer.
func apiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": nil}})
	_, _ = w.Write(b)
}

// between returns the text between the markers begin and end in s.
func between(t *testing.T, s, begin, end string) string {
	t.Helper()
	_, after, ok := strings.Cut(s, begin+"\n")
	if !ok {
		t.Errorf("prompt lacks %q: %q", begin, s)
		return ""
	}
	inner, _, ok := strings.Cut(after, "\n"+end)
	if !ok {
		t.Errorf("prompt lacks %q: %q", end, s)
		return ""
	}
	return inner
}

// metricValue returns the metrics.Sum of name over the series whose labels include want.
func metricValue(t *testing.T, m *metrics.Metrics, name string, want map[string]string) float64 {
	t.Helper()
	v, err := m.Sum(name, want)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
