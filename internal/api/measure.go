package api

import (
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/evidencefleet/evidencefleet/internal/metrics"
)

// eventsOperation is the operation id of the task event stream, whose
// requests last until the task ends and so stay out of the latency.
const eventsOperation = "task-events"

// measure is the outermost /v1 middleware: each answered request counted
// by operation and status (refusals by the guard included), and its time.
func measure(m *metrics.Metrics) func(huma.Context, func(huma.Context)) {
	return func(ctx huma.Context, next func(huma.Context)) {
		start := time.Now()
		next(ctx)
		op, took := ctx.Operation().OperationID, time.Since(start)
		if op == eventsOperation {
			took = -1
		}
		m.APIRequest(op, ctx.Status(), took)
	}
}

// measured counts the requests h answers under one operation name (the
// routes outside the OpenAPI document: mcp, riverui).
func measured(m *metrics.Metrics, operation string, h http.Handler) http.Handler {
	if m == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		m.APIRequest(operation, rec.status(), time.Since(start))
	})
}

// statusRecorder notes the status a handler writes; it flushes and
// unwraps to the writer it wraps (http.ResponseController), so that
// streamed answers still stream.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s *statusRecorder) status() int {
	if s.code == 0 {
		return http.StatusOK
	}
	return s.code
}
