package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/service"
)

// judgementNoun names what one judgement of a capability is.
var judgementNoun = map[string]string{"nli": "edges", "claims": "claims", "embed": "fragments", "rerank": "ranked rows"}

// writeModels prints the models line: each capability's model and how many
// judgements it made.
func writeModels(w io.Writer, uses []service.ModelUse) {
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
