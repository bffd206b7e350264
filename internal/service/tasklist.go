package service

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/evidencefleet/evidencefleet/store"
)

// Page sizes of ListTasks and ListJobs.
const (
	DefaultListLimit = 50
	MaxListLimit     = 500
)

// TaskSummary is one task of ListTasks.
type TaskSummary struct {
	ID         int64     `json:"id"`
	Status     string    `json:"status"`
	Hypothesis string    `json:"hypothesis"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
	Claims     int       `json:"claims"`
	Targets    int       `json:"targets"`
	Pages      int       `json:"pages"`
}

// TaskPage is one page of ListTasks: Next is the cursor of the next page,
// "" at the end.
type TaskPage struct {
	Tasks []TaskSummary `json:"items"`
	Next  string        `json:"next_cursor,omitempty"`
}

// ListTasks lists the organization's tasks, newest first, limit at a time
// (0: DefaultListLimit, at most MaxListLimit) from cursor ("" from the
// newest). Another organization's tasks are never listed.
func (s *Service) ListTasks(ctx context.Context, org string, limit int, cursor string) (TaskPage, error) {
	out := TaskPage{Tasks: []TaskSummary{}}
	limit, err := listLimit(limit)
	if err != nil {
		return out, err
	}
	before, err := parseIDCursor(cursor)
	if err != nil {
		return out, err
	}
	rows, err := s.st.OrgTasks(ctx, store.OrgTasksParams{OrganizationID: org, BeforeID: before, MaxRows: int32(limit + 1)})
	if err != nil {
		return out, fmt.Errorf("list tasks: %w", err)
	}
	for i, r := range rows {
		if i == limit {
			out.Next = strconv.FormatInt(rows[limit-1].ID, 10)
			break
		}
		out.Tasks = append(out.Tasks, TaskSummary{ID: r.ID, Status: r.Status, Hypothesis: r.Hypothesis, CreatedAt: r.CreatedAt,
			UpdatedAt: r.UpdatedAt, Claims: int(r.Claims), Targets: int(r.Targets), Pages: int(r.Pages)})
	}
	return out, nil
}

// TaskDetail is ShowTask's answer: the task and how much it holds.
type TaskDetail struct {
	ID             int64          `json:"id"`
	OrganizationID string         `json:"organization_id"`
	Hypothesis     string         `json:"hypothesis"`
	Status         string         `json:"status"`       // active, paused, completed (no job left to run) or stopped
	CompletedAt    *time.Time     `json:"completed_at"` // when it was completed; null unless completed
	PausedAt       *time.Time     `json:"paused_at"`    // when it was paused; null unless paused
	Budget         string         `json:"budget"`       // its budget class (changed only while paused)
	CreatedAt      time.Time      `json:"created_at"`
	UpdatedAt      time.Time      `json:"updated_at"`
	Claims         int            `json:"claims"`
	Verdicts       map[string]int `json:"claims_by_verdict"`
	Targets        int            `json:"targets"`
	TargetsBy      map[string]int `json:"targets_by_status"`
	Pages          int            `json:"pages"`
	Jobs           map[string]int `json:"jobs_by_state"` // every kind together
	Pending        int            `json:"jobs_pending"`  // available, pending, running, retryable or scheduled
}

// ShowTask is one task of the organization with its claims by verdict,
// targets by status, pages and jobs by state.
func (s *Service) ShowTask(ctx context.Context, org string, taskID int64) (TaskDetail, error) {
	task, err := s.Task(ctx, org, taskID)
	if err != nil {
		return TaskDetail{}, err
	}
	out := TaskDetail{ID: task.ID, OrganizationID: task.OrganizationID, Hypothesis: task.Hypothesis, Status: task.Status,
		CompletedAt: task.CompletedAt, PausedAt: task.PausedAt, Budget: task.BudgetClass, CreatedAt: task.CreatedAt, UpdatedAt: task.UpdatedAt,
		Verdicts: map[string]int{}, TargetsBy: map[string]int{}, Jobs: map[string]int{}}
	verdicts, err := s.st.TaskVerdictCounts(ctx, taskID)
	if err != nil {
		return out, fmt.Errorf("verdicts: %w", err)
	}
	for _, v := range verdicts {
		out.Verdicts[v.Verdict] = int(v.N)
		out.Claims += int(v.N)
	}
	targets, err := s.st.TaskTargetCounts(ctx, taskID)
	if err != nil {
		return out, fmt.Errorf("targets: %w", err)
	}
	for _, t := range targets {
		out.TargetsBy[t.Status] = int(t.N)
		out.Targets += int(t.N)
	}
	pages, err := s.st.TaskPageCount(ctx, taskID)
	if err != nil {
		return out, fmt.Errorf("pages: %w", err)
	}
	out.Pages = int(pages)
	jobs, err := s.st.TaskJobCounts(ctx, strconv.FormatInt(taskID, 10))
	if err != nil {
		return out, fmt.Errorf("job counts: %w", err)
	}
	for _, j := range jobs {
		out.Jobs[j.State] += int(j.N)
		if pendingStates[j.State] {
			out.Pending += int(j.N)
		}
	}
	return out, nil
}

// listLimit checks a page size of ListTasks or ListJobs; 0 is the default.
func listLimit(limit int) (int, error) {
	switch {
	case limit < 0 || limit > MaxListLimit:
		return 0, fmt.Errorf("%w: limit %d: want 1 to %d", ErrBadRequest, limit, MaxListLimit)
	case limit == 0:
		return DefaultListLimit, nil
	}
	return limit, nil
}

// parseIDCursor reads a cursor of ListTasks or ListJobs: the id the
// previous page ended on; the next page lists ids below it. "" is the start.
func parseIDCursor(c string) (int64, error) {
	if c == "" {
		return math.MaxInt64, nil
	}
	id, err := strconv.ParseInt(c, 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("%w: cursor %q is not one this service gave", ErrBadRequest, c)
	}
	return id, nil
}

// TaskCosts is what the organization's task spent outside the fleet so
// far (Status's Costs, alone).
func (s *Service) TaskCosts(ctx context.Context, org string, taskID int64) (Costs, error) {
	if _, err := s.Task(ctx, org, taskID); err != nil {
		return Costs{}, err
	}
	return taskCosts(ctx, s.st, taskID)
}
