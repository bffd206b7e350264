package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// progress is one event of a task page's live progress: the numbers the
// page shows at its top.
type progress struct {
	Status   string         `json:"status"`
	Claims   int            `json:"claims"`
	Verdicts map[string]int `json:"claims_by_verdict"`
	Pages    int            `json:"pages"`
	Finished int            `json:"jobs_finished"`
	AllJobs  int            `json:"jobs"`
	Pending  int            `json:"jobs_pending"`
}

// progressStream sends the task's progress as server-sent events
// (text/event-stream, event "progress") every Poll while it changes,
// until the task is completed or stopped, the page goes, or StreamFor
// passes (the page's EventSource then reconnects, its session checked
// again).
func (c *console) progressStream(w http.ResponseWriter, r *http.Request, p *person) {
	taskID, ok := c.pathID(w, r, p, "task_id")
	if !ok {
		return
	}
	ctx := r.Context()
	row, err := c.taskRow(r, p, taskID)
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	end := time.NewTimer(c.opts.StreamFor)
	defer end.Stop()
	tick := time.NewTicker(c.opts.Poll)
	defer tick.Stop()
	var sent []byte
	for n := 1; ; n++ {
		data, err := json.Marshal(progress{Status: row.Status, Claims: row.Claims, Verdicts: row.Verdicts, Pages: row.Pages,
			Finished: row.Finished, AllJobs: row.AllJobs, Pending: row.Pending})
		if err != nil {
			return
		}
		if string(data) != string(sent) {
			if _, err := fmt.Fprintf(w, "event: progress\nid: %d\ndata: %s\n\n", n, data); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
			sent = data
		}
		if row.Status == "completed" || row.Status == "stopped" {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-end.C:
			return
		case <-tick.C:
		}
		if row, err = c.taskRow(r, p, taskID); err != nil {
			c.opts.Logger.ErrorContext(ctx, "console: progress read failed", "task", taskID, "err", err)
			return
		}
	}
}
