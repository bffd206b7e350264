package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/modelcard"
	"github.com/evidencefleet/evidencefleet/store"
)

// modelUse is one model behind a task's judgements.
type modelUse struct {
	Capability string `json:"capability"` // nli, claims, embed or rerank
	Model      string `json:"model"`
	Judgements int    `json:"judgements"` // NLI edges, extracted claims, embedded fragments or ranked rows
	Baseline   bool   `json:"baseline"`   // a built-in deterministic baseline, not a trained model
}

// judgementNoun names what one judgement of a capability is.
var judgementNoun = map[string]string{"nli": "edges", "claims": "claims", "embed": "fragments", "rerank": "ranked rows"}

// loadModels reads the models that produced the task's judgements and the
// baseline banner they call for ("" when none is a built-in).
func loadModels(ctx context.Context, st *store.Store, taskID int64) ([]modelUse, string, error) {
	rows, err := st.TaskModels(ctx, taskID)
	if err != nil {
		return nil, "", fmt.Errorf("models: %w", err)
	}
	uses := make([]modelUse, 0, len(rows))
	names := make([]string, 0, len(rows))
	for _, r := range rows {
		uses = append(uses, modelUse{Capability: r.Capability, Model: r.Model, Judgements: int(r.N), Baseline: modelcard.IsBaseline(r.Model)})
		names = append(names, r.Model)
	}
	return uses, modelcard.Banner(names), nil
}

// writeModels prints the models line: each capability's model and how many
// judgements it made.
func writeModels(w io.Writer, uses []modelUse) {
	if len(uses) == 0 {
		fmt.Fprintln(w, "models: none yet")
		return
	}
	parts := make([]string, len(uses))
	for i, u := range uses {
		parts[i] = fmt.Sprintf("%s %s (%d %s)", u.Capability, u.Model, u.Judgements, judgementNoun[u.Capability])
	}
	fmt.Fprintf(w, "models: %s\n", strings.Join(parts, ", "))
}
