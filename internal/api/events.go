package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/evidencefleet/evidencefleet/internal/service"
)

// EventOptions tune a task's event stream.
type EventOptions struct {
	// Poll is how often the task's progress is read (1s).
	Poll time.Duration
	// Heartbeat is the longest silence: the progress is sent again after
	// it even unchanged, so proxies keep the stream open (15s).
	Heartbeat time.Duration
	// MaxDuration ends a stream that long (1h); the client reconnects.
	MaxDuration time.Duration
	// Recheck is how often an open stream checks that its token is still
	// live (Options.TokenLive; the stream ends when it is not) and renews
	// its slot's lease (5s).
	Recheck time.Duration
	// Lease is how long a stream's slot lasts unless renewed (20s, at
	// least twice Recheck): the slots of a process that dies free within
	// it, whatever MaxDuration is.
	Lease time.Duration
	// Shutdown, when closed, ends every stream (the server is stopping).
	Shutdown <-chan struct{}
	// PerToken bounds the streams one token holds open at once (8), in
	// every replica together when the Handler's Limits are shared; past
	// it a request is 429.
	PerToken int
}

func (o EventOptions) withDefaults() EventOptions {
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 15 * time.Second
	}
	if o.MaxDuration <= 0 {
		o.MaxDuration = time.Hour
	}
	if o.PerToken <= 0 {
		o.PerToken = 8
	}
	if o.Recheck <= 0 {
		o.Recheck = 5 * time.Second
	}
	if o.Lease <= 0 {
		o.Lease = 20 * time.Second
	}
	o.Lease = max(o.Lease, 2*o.Recheck)
	return o
}

// Event names of the task event stream.
const (
	EventProgress  = "progress"  // the task's progress changed (or a heartbeat)
	EventCompleted = "completed" // no work remains; the stream ends
	EventStopped   = "stopped"   // the task was stopped; the stream ends
	// EventSourceChanged: a recheck found more of the task's citations
	// edited, moved or gone than when the stream last said (§5.10).
	EventSourceChanged = "source_changed"
)

// TaskProgress is the data of every event of a task's stream: the numbers
// `enqueue status` shows.
type TaskProgress struct {
	TaskID      int64                     `json:"task_id"`
	TaskStatus  string                    `json:"task_status" doc:"active, paused, completed or stopped (the stream goes on while paused)"`
	CompletedAt *time.Time                `json:"completed_at,omitempty"`
	PausedAt    *time.Time                `json:"paused_at,omitempty" doc:"when the task was paused; absent unless paused"`
	Pending     int                       `json:"pending" doc:"jobs still to run"`
	Finished    int                       `json:"finished" doc:"jobs that ended"`
	Jobs        map[string]map[string]int `json:"jobs" doc:"job kind → state → count"`
	Verdicts    map[string]int            `json:"claims_by_verdict"`
	Targets     map[string]int            `json:"targets_by_status"`
	Rechecks    service.RecheckSummary    `json:"rechecks" doc:"what the rechecks of the task's cited sources found"`
}

func progressOf(s *service.Status) TaskProgress {
	return TaskProgress{TaskID: s.TaskID, TaskStatus: s.TaskStatus, CompletedAt: s.CompletedAt, PausedAt: s.PausedAt, Pending: s.Pending,
		Finished: s.Finished, Jobs: s.Jobs, Verdicts: s.Verdicts, Targets: s.Targets, Rechecks: s.Rechecks}
}

// streamEventsSchema describes a task's event stream as the sequence of
// its events: each an event name, an id and data, a TaskProgress (ref) in
// JSON (JSON Schema's contentMediaType and contentSchema).
func streamEventsSchema(ref string) *huma.Schema {
	return &huma.Schema{
		Type:        huma.TypeArray,
		Description: "Server-Sent Events, in order; the stream ends after completed or stopped.",
		Items: &huma.Schema{
			Type:     huma.TypeObject,
			Required: []string{"event", "id", "data"},
			Properties: map[string]*huma.Schema{
				"event": {Type: huma.TypeString, Enum: []any{"progress", "source_changed", "completed", "stopped"},
					Description: "progress whenever the task's numbers change; source_changed when a recheck found more citations edited, moved or gone; completed or stopped last."},
				"id": {Type: huma.TypeString, Description: "The event's sequence number in the stream, from 1."},
				"data": {Type: huma.TypeString, Description: "The task's progress, a TaskProgress in JSON.",
					Extensions: map[string]any{"contentMediaType": "application/json", "contentSchema": map[string]any{"$ref": ref}}},
			},
		},
	}
}

// registerEvents registers the task event stream: text/event-stream
// events named progress, completed and stopped, each with a TaskProgress.
func (h *handlers) registerEvents(api huma.API, op huma.Operation) {
	schema := api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[TaskProgress](), true, "TaskProgress")
	op.Description = "A text/event-stream: an event `progress` whenever the task's numbers change (and at least every heartbeat), an event `source_changed` when a recheck of the cited sources found more citations edited, moved or gone (its data the same TaskProgress, whose `rechecks` say how many), then `completed` when no work remains or `stopped` when it was stopped, after which the stream ends; a paused task's stream goes on (its task_status is paused) until it is resumed and completed, or stopped. Each event's data is a TaskProgress in JSON, its id a sequence number."
	op.Responses = map[string]*huma.Response{"200": {
		Description: "The task's events.",
		Content:     map[string]*huma.MediaType{"text/event-stream": {Schema: streamEventsSchema(schema.Ref)}},
	}}
	huma.Register(api, op, func(ctx context.Context, in *TaskPath) (*huma.StreamResponse, error) {
		first, err := h.svc.Status(ctx, org(ctx), in.TaskID)
		if err != nil {
			return nil, h.problem(ctx, err)
		}
		// the stream's slot is a lease that the stream renews: a replica
		// that dies holding it leaves a row that stops counting within a
		// lease
		caller := callerOf(ctx)
		slot, ok, err := h.limits.OpenStream(ctx, tokenKey(caller.TokenID), h.events.PerToken, h.events.Lease)
		if err != nil {
			h.log.Error("api: open event stream", "err", err)
			return nil, huma.Error503ServiceUnavailable("the open streams cannot be counted; retry later")
		}
		if !ok {
			return nil, huma.ErrorWithHeaders(newProblem(http.StatusTooManyRequests, codeTooManyStreams, fmt.Sprintf("this token holds %d event streams open already; close one", h.events.PerToken)),
				http.Header{"Retry-After": {"5"}})
		}
		h.metrics.APIStreams(1)
		orgID := org(ctx)
		return &huma.StreamResponse{Body: func(hctx huma.Context) {
			defer h.metrics.APIStreams(-1)
			defer slot.Release()
			_, w := humago.Unwrap(hctx)
			h.stream(hctx.Context(), w, streamOf{org: orgID, taskID: in.TaskID, tokenID: caller.TokenID, slot: slot}, first)
		}}, nil
	})
}

// streamOf is what a stream is of: the task, whom for, and its slot.
type streamOf struct {
	org     string
	taskID  int64
	tokenID int64
	slot    StreamSlot
}

// stream writes the task's events until it is completed or stopped, the
// client goes, MaxDuration passes, or, checked every Recheck, its token is
// no longer live or its slot's lease cannot be renewed.
func (h *handlers) stream(ctx context.Context, w http.ResponseWriter, of streamOf, st *service.Status) {
	org, taskID := of.org, of.taskID
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	ctx, cancel := context.WithTimeout(ctx, h.events.MaxDuration)
	defer cancel()
	var id int
	var last []byte
	var lastSent time.Time
	changed := st.Rechecks.Changed() // citations found changed when the stream opened
	send := func(event string, p TaskProgress) bool {
		data, err := json.Marshal(p)
		if err != nil {
			return false
		}
		id++
		_ = rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", id, event, data); err != nil {
			return false
		}
		last, lastSent = data, time.Now()
		return rc.Flush() == nil
	}
	tick := time.NewTicker(h.events.Poll)
	defer tick.Stop()
	recheck := time.NewTicker(h.events.Recheck)
	defer recheck.Stop()
	for {
		p := progressOf(st)
		switch p.TaskStatus {
		case "completed":
			send(EventCompleted, p)
			return
		case "stopped":
			send(EventStopped, p)
			return
		}
		if n := p.Rechecks.Changed(); n > changed {
			changed = n
			if !send(EventSourceChanged, p) {
				return
			}
		}
		data, _ := json.Marshal(p)
		if string(data) != string(last) || time.Since(lastSent) >= h.events.Heartbeat {
			if !send(EventProgress, p) {
				return
			}
		}
		if !h.await(ctx, of, tick.C, recheck.C) {
			return
		}
		next, err := h.svc.Status(ctx, org, taskID)
		if err != nil {
			if ctx.Err() == nil {
				h.log.Warn("api: task event stream ends", "task", taskID, "err", err)
			}
			return
		}
		st = next
	}
}

// await waits for the stream's next poll, rechecking it meanwhile: false
// when the stream is to end.
func (h *handlers) await(ctx context.Context, of streamOf, poll, recheck <-chan time.Time) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-h.events.Shutdown:
			return false
		case <-recheck:
			if !h.recheck(ctx, of) {
				return false
			}
		case <-poll:
			return true
		}
	}
}

// recheck is a stream's periodic check: its token still live and its
// slot's lease renewed. False ends the stream; the client's reconnection
// then meets the token check (401) or a fresh slot.
func (h *handlers) recheck(ctx context.Context, of streamOf) bool {
	if h.tokenLive != nil {
		live, err := h.tokenLive(ctx, of.tokenID)
		if err != nil {
			if ctx.Err() == nil {
				h.log.Warn("api: task event stream ends: its token cannot be checked", "task", of.taskID, "err", err)
			}
			return false
		}
		if !live {
			return false // revoked or expired: the stream ends within a Recheck
		}
	}
	renewed, err := of.slot.Renew(ctx)
	if err != nil {
		if ctx.Err() == nil {
			h.log.Warn("api: task event stream ends: its slot cannot be renewed", "task", of.taskID, "err", err)
		}
		return false
	}
	if !renewed {
		h.log.Warn("api: task event stream ends: its slot's lease lapsed", "task", of.taskID)
	}
	return renewed
}

// openStreams counts each key's open event streams.
type openStreams struct {
	mu sync.Mutex
	by map[string]int
}

// take opens one more stream of the key if it holds fewer than most.
func (o *openStreams) take(token string, most int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.by == nil {
		o.by = map[string]int{}
	}
	if o.by[token] >= most {
		return false
	}
	o.by[token]++
	return true
}

func (o *openStreams) give(token string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.by[token]--; o.by[token] <= 0 {
		delete(o.by, token)
	}
}
