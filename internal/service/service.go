// Package service is the fleet's operations as the people and programs
// that use it call them (ARCHITECTURE.md §5.7): read a task's graph,
// status, ranking and models, and more to come. Every operation takes the
// caller's organization first, and a task of another organization — with
// its claims, edges, pages-through-the-task and evidence — is not found,
// exactly as a task that does not exist (errs.ErrTaskNotFound), so an
// outsider cannot even learn that an id is taken. Shared rows (pages,
// versions, fragments) are reached only through a task of the caller's.
//
// The enqueue CLI stands on it; the HTTP API will. Whoever holds the
// database's credentials (SQL, River's clients) is an operator and is not
// bound by it.
package service

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/store"
)

// Service runs the operations on one store, inserting jobs with one River
// client.
type Service struct {
	st     *store.Store
	client *river.Client[pgx.Tx]
}

// New returns the operations on st, inserting jobs with client.
func New(st *store.Store, client *river.Client[pgx.Tx]) *Service {
	return &Service{st: st, client: client}
}

// Task returns the organization's task; another organization's task, like
// a missing one, is errs.ErrTaskNotFound.
func (s *Service) Task(ctx context.Context, org string, taskID int64) (store.Task, error) {
	task, err := s.st.OrgTask(ctx, store.OrgTaskParams{ID: taskID, OrganizationID: org})
	if store.IsNotFound(err) {
		return task, errs.Task(taskID, errs.ErrTaskNotFound)
	}
	if err != nil {
		return task, fmt.Errorf("read task %d: %w", taskID, err)
	}
	return task, nil
}
