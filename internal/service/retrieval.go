package service

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/evidencefleet/evidencefleet/store"
)

// TaskEvent is one recorded decision of a task's self-directed retrieval
// (internal/planner): its type and its numbers.
type TaskEvent struct {
	ID      int64           `json:"id"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
	At      time.Time       `json:"at"`
}

// TaskEventPage is one page of a task's events.
type TaskEventPage struct {
	Events []TaskEvent `json:"items"`
	Next   string      `json:"next_cursor,omitempty"`
}

// TaskEvents are the organization's task's recorded retrieval decisions in
// order, limit at a time (0: DefaultListLimit, at most MaxListLimit) from
// cursor ("" from the first).
func (s *Service) TaskEvents(ctx context.Context, org string, taskID int64, limit int, cursor string) (TaskEventPage, error) {
	out := TaskEventPage{Events: []TaskEvent{}}
	limit, err := listLimit(limit)
	if err != nil {
		return out, err
	}
	var after int64
	if cursor != "" {
		if after, err = strconv.ParseInt(cursor, 10, 64); err != nil || after < 0 {
			return out, fmt.Errorf("%w: cursor %q is not one of this list's", ErrBadRequest, cursor)
		}
	}
	if _, err := s.Task(ctx, org, taskID); err != nil {
		return out, err
	}
	rows, err := s.st.TaskEvents(ctx, store.TaskEventsParams{TaskID: &taskID, After: after, MaxRows: int32(limit + 1)})
	if err != nil {
		return out, fmt.Errorf("read events of task %d: %w", taskID, err)
	}
	for i, r := range rows {
		if i == limit {
			out.Next = strconv.FormatInt(rows[i-1].ID, 10)
			break
		}
		out.Events = append(out.Events, TaskEvent{ID: r.ID, Type: r.EventType, Payload: r.Payload, At: r.CreatedAt})
	}
	return out, nil
}
