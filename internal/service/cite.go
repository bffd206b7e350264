package service

import (
	"context"
	"fmt"

	"github.com/evidencefleet/evidencefleet/internal/citation"
)

// CiteCheck checks the [E…] citations of a text against the E-numbers of
// the organization's task (internal/citation: invalid and uncited ids,
// coverage, factual sentences without a citation).
func (s *Service) CiteCheck(ctx context.Context, org string, taskID int64, text string) (*citation.Result, error) {
	if _, err := s.Task(ctx, org, taskID); err != nil {
		return nil, err
	}
	rows, err := s.st.TaskEvidenceNos(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("claims of task %d: %w", taskID, err)
	}
	nos := make([]int, len(rows))
	for i, n := range rows {
		nos[i] = int(n)
	}
	res, err := citation.Check(text, nos)
	if err != nil {
		return nil, fmt.Errorf("check citations against task %d: %w", taskID, err)
	}
	return res, nil
}
