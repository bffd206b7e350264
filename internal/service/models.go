package service

import (
	"context"
	"fmt"

	"github.com/evidencefleet/evidencefleet/internal/modelcard"
)

// ModelUse is one model behind a task's judgements.
type ModelUse struct {
	Capability string `json:"capability"` // nli, claims, embed or rerank
	Model      string `json:"model"`
	Judgements int    `json:"judgements"` // NLI edges, extracted claims, embedded fragments or ranked rows
	Baseline   bool   `json:"baseline"`   // a built-in deterministic baseline, not a trained model
}

// Models are the models that produced the organization's task's judgements
// and the baseline banner they call for ("" when none is a built-in).
func (s *Service) Models(ctx context.Context, org string, taskID int64) ([]ModelUse, string, error) {
	if _, err := s.Task(ctx, org, taskID); err != nil {
		return nil, "", err
	}
	return s.models(ctx, taskID)
}

func (s *Service) models(ctx context.Context, taskID int64) ([]ModelUse, string, error) {
	rows, err := s.st.TaskModels(ctx, taskID)
	if err != nil {
		return nil, "", fmt.Errorf("models: %w", err)
	}
	uses := make([]ModelUse, 0, len(rows))
	names := make([]string, 0, len(rows))
	for _, r := range rows {
		uses = append(uses, ModelUse{Capability: r.Capability, Model: r.Model, Judgements: int(r.N), Baseline: modelcard.IsBaseline(r.Model)})
		names = append(names, r.Model)
	}
	return uses, modelcard.Banner(names), nil
}
