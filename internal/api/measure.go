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
		status := ctx.Status()
		if status == 0 { // a stream written without naming its status
			status = http.StatusOK
		}
		m.APIRequest(op, status, took)
	}
}
