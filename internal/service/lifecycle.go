package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/textclip"
	"github.com/evidencefleet/evidencefleet/store"
)

// A task's lifecycle besides stopping (ARCHITECTURE.md §5.7 Completion):
// pausing holds back every job of the task before it starts (the worker
// middleware snoozes it, using no attempt), lets running jobs finish and
// keeps the settle sweep off the task, so a paused task is neither
// completed nor reopened; new work (claims, targets, jobs) is recorded and
// waits. Resuming makes it active again: its jobs start within
// EVF_PAUSED_SNOOZE and continue where they were (a judged pair is never
// judged again, as after any retry), and the sweep completes it when no job
// is left. Its budget class changes only while it is paused. Each change is
// logged as a task event (task_paused, task_resumed, budget_changed).

// ErrTaskNotPaused refuses a change that a task takes only while paused
// (its budget class).
var ErrTaskNotPaused = errors.New("task is not paused")

// Lifecycle is a task's state after PauseTask, ResumeTask or SetBudget.
type Lifecycle struct {
	TaskID   int64      `json:"task_id"`
	Status   string     `json:"status" doc:"active, paused, completed or stopped"`
	PausedAt *time.Time `json:"paused_at,omitempty" doc:"when the task was paused; absent unless paused"`
	Budget   string     `json:"budget" doc:"the task's budget class"`
	Changed  bool       `json:"changed" doc:"false when the task already was so (pausing a paused task, resuming an active one, the same budget)"`
}

func lifecycleOf(t store.Task, changed bool) Lifecycle {
	return Lifecycle{TaskID: t.ID, Status: t.Status, PausedAt: t.PausedAt, Budget: t.BudgetClass, Changed: changed}
}

// PauseTask pauses the organization's task: no job of it starts until it is
// resumed. A stopped task is errs.ErrTaskStopped; a paused one stays as it
// is (Changed false, its first paused_at kept).
func (s *Service) PauseTask(ctx context.Context, org string, taskID int64) (Lifecycle, error) {
	return s.changeLifecycle(ctx, org, taskID, func(q *store.Queries, t store.Task) (store.Task, string, error) {
		if t.Status == store.TaskPaused {
			return t, "", nil
		}
		t, err := q.PauseTask(ctx, taskID)
		if err != nil {
			return t, "", fmt.Errorf("pause task %d: %w", taskID, err)
		}
		return t, "task_paused", nil
	})
}

// ResumeTask resumes the organization's paused task: its jobs start again,
// and it is completed when none is left. A stopped task is
// errs.ErrTaskStopped; one not paused stays as it is (Changed false).
func (s *Service) ResumeTask(ctx context.Context, org string, taskID int64) (Lifecycle, error) {
	return s.changeLifecycle(ctx, org, taskID, func(q *store.Queries, t store.Task) (store.Task, string, error) {
		if t.Status != store.TaskPaused {
			return t, "", nil
		}
		t, err := q.ResumeTask(ctx, taskID)
		if err != nil {
			return t, "", fmt.Errorf("resume task %d: %w", taskID, err)
		}
		return t, "task_resumed", nil
	})
}

// SetBudget changes the budget class (intake.BudgetClasses) of the
// organization's task while it is paused; a task that is not paused is
// ErrTaskNotPaused, a stopped one errs.ErrTaskStopped, an unknown class
// errs.ErrBadInput.
func (s *Service) SetBudget(ctx context.Context, org string, taskID int64, budget string) (Lifecycle, error) {
	if !slices.Contains(intake.BudgetClasses, budget) {
		return Lifecycle{TaskID: taskID}, fmt.Errorf("%w: budget must be one of %s, got %q", errs.ErrBadInput,
			strings.Join(intake.BudgetClasses, ", "), textclip.Runes(budget, 40))
	}
	return s.changeLifecycle(ctx, org, taskID, func(q *store.Queries, t store.Task) (store.Task, string, error) {
		switch {
		case t.Status != store.TaskPaused:
			return t, "", fmt.Errorf("%w: task %d is %s, and its budget class changes only while it is paused: pause it, change the budget, resume it",
				ErrTaskNotPaused, taskID, t.Status)
		case t.BudgetClass == budget:
			return t, "", nil
		}
		t, err := q.SetTaskBudget(ctx, store.SetTaskBudgetParams{ID: taskID, BudgetClass: budget})
		if err != nil {
			return t, "", fmt.Errorf("set the budget of task %d: %w", taskID, err)
		}
		return t, "budget_changed", nil
	})
}

// changeLifecycle runs change on the organization's task under its row
// lock, in one transaction with the task event it names ("" changes
// nothing); a stopped task is errs.ErrTaskStopped before change is asked.
func (s *Service) changeLifecycle(ctx context.Context, org string, taskID int64,
	change func(q *store.Queries, t store.Task) (store.Task, string, error)) (Lifecycle, error) {
	if _, err := s.Task(ctx, org, taskID); err != nil {
		return Lifecycle{TaskID: taskID}, err
	}
	var out Lifecycle
	err := s.st.InTx(ctx, func(_ pgx.Tx, q *store.Queries) error {
		if _, err := q.LockExistingTask(ctx, taskID); err != nil {
			return err
		}
		before, err := q.ExistingTask(ctx, taskID)
		if err != nil {
			return err
		}
		if before.Status == store.TaskStopped {
			return errs.Task(taskID, errs.ErrTaskStopped)
		}
		after, event, err := change(q, before)
		if err != nil {
			return err
		}
		out = lifecycleOf(after, event != "")
		if event == "" {
			return nil
		}
		payload, err := json.Marshal(map[string]any{"from_status": before.Status, "status": after.Status,
			"from_budget": before.BudgetClass, "budget": after.BudgetClass})
		if err != nil {
			return err
		}
		if err := q.InsertEvent(ctx, store.InsertEventParams{TaskID: &taskID, EventType: event, Payload: payload}); err != nil {
			return fmt.Errorf("log %s: %w", event, err)
		}
		return nil
	})
	if err != nil {
		return Lifecycle{TaskID: taskID}, err
	}
	return out, nil
}
