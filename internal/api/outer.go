package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"
)

// What every request to the API's handler goes through, outside the
// routes: its request id, its body read as JSON whatever its Content-Type
// says, and a problem for a path or method no route serves.

// RequestIDHeader carries a request's id: the client's when it sends a
// usable one (RequestIDFrom), else one the API makes; it is echoed on
// the answer and logged with every line about the request.
const RequestIDHeader = "X-Request-Id"

// maxRequestIDLength bounds a client's request id.
const maxRequestIDLength = 128

type requestIDKey struct{}

// RequestIDFrom is the id of the request ctx belongs to ("" outside one).
func RequestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// usableRequestID reports whether a client's id can be echoed and logged
// as it is: 1 to 128 of letters, digits and - _ . : (a UUID, a ULID, a
// trace id).
func usableRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLength {
		return false
	}
	for _, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:", r)
		if !ok {
			return false
		}
	}
	return true
}

// newRequestID is 16 random bytes in hex.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// outer wraps the API's routes (mux): each request gets its id and an
// access log line (method, path, status, time, id; never a header or a
// query), a /v1 body is read as JSON whatever its Content-Type says, and a
// path or method no route serves is a problem (route_not_found,
// method_not_allowed with Allow).
func outer(mux *http.ServeMux, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get(RequestIDHeader)
		if !usableRequestID(id) {
			id = newRequestID()
		}
		w.Header().Set(RequestIDHeader, id)
		r = r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id))
		if strings.HasPrefix(r.URL.Path, "/v1/") && !isJSON(r.Header.Get("Content-Type")) && r.ContentLength != 0 {
			r = r.Clone(r.Context())
			r.Header.Set("Content-Type", "application/json")
		}
		sw := &statusWriter{ResponseWriter: w}
		if _, pattern := mux.Handler(r); pattern == "" {
			unrouted(mux, sw, r)
		} else {
			mux.ServeHTTP(sw, r)
		}
		log.LogAttrs(r.Context(), slog.LevelInfo, "api: request", slog.String("method", r.Method), slog.String("path", clipPath(r.URL.Path)),
			slog.Int("status", sw.answered()), slog.Duration("took", time.Since(start)))
	})
}

// isJSON reports whether a Content-Type names JSON (application/json or a
// +json type).
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// unrouted answers a request no route of mux serves with the problem of
// the status the mux would answer (404, or 405 with its Allow header).
func unrouted(mux *http.ServeMux, w http.ResponseWriter, r *http.Request) {
	h, _ := mux.Handler(r)
	probe := &headerProbe{header: http.Header{}}
	h.ServeHTTP(probe, r)
	switch probe.status {
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", probe.header.Get("Allow"))
		writeProblem(w, newProblem(http.StatusMethodNotAllowed, "", r.Method+" is not served at "+clipPath(r.URL.Path)+"; it takes "+probe.header.Get("Allow")))
	default:
		writeProblem(w, newProblem(http.StatusNotFound, codeRouteNotFound, "no operation at "+clipPath(r.URL.Path)+"; the operations are listed at /v1/openapi.json"))
	}
}

// clipPath bounds a path quoted in a problem or a log line.
func clipPath(p string) string {
	const most = 200
	if len(p) > most {
		return p[:most] + "…"
	}
	return p
}

// headerProbe records what the mux's own 404 and 405 answers would say,
// and writes nothing.
type headerProbe struct {
	header http.Header
	status int
}

func (p *headerProbe) Header() http.Header         { return p.header }
func (p *headerProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *headerProbe) WriteHeader(status int)      { p.status = status }

// statusWriter remembers the status an answer was given.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush sends what was written so far (the event stream's, MCP's
// streams).
func (w *statusWriter) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap gives http.ResponseController the writer underneath (flushes of
// the event stream, deadlines).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// answered is the status the answer went out with (200 when the handler
// wrote without naming one; 0 when nothing was written).
func (w *statusWriter) answered() int { return w.status }

// requestIDLogs adds the request's id (RequestIDFrom) to every record
// logged with its context.
type requestIDLogs struct{ slog.Handler }

func (h requestIDLogs) Handle(ctx context.Context, rec slog.Record) error {
	if id := RequestIDFrom(ctx); id != "" {
		rec.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, rec)
}

func (h requestIDLogs) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDLogs{h.Handler.WithAttrs(attrs)}
}

func (h requestIDLogs) WithGroup(name string) slog.Handler {
	return requestIDLogs{h.Handler.WithGroup(name)}
}
