// Package eval measures the fleet against real labelled data: the configured
// NLI backend on premise/hypothesis TSV files (SNLI, MNLI), and the whole
// pipeline end to end on Climate-FEVER claims replayed from their Wikipedia
// evidence. The scoring (label mappings, confusion matrices, locating an
// evidence sentence among a page version's fragments) is pure; the runner
// (runner.go) drives a real in-process fleet against Postgres and reads the
// graph back.
package eval

import (
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/models"
)

// NLILabels are the relation labels an NLI backend predicts, in table order.
var NLILabels = []string{models.Supports, models.Refutes, models.Neutral}

// Climate-FEVER claim labels; they double as the predicted classes of the
// claim-verdict matrix (see VerdictClass).
const (
	ClaimSupports      = "SUPPORTS"
	ClaimRefutes       = "REFUTES"
	ClaimNotEnoughInfo = "NOT_ENOUGH_INFO"
	ClaimDisputed      = "DISPUTED"
)

// ClaimClasses are the classes of the claim-verdict matrix, in table order.
var ClaimClasses = []string{ClaimSupports, ClaimRefutes, ClaimNotEnoughInfo, ClaimDisputed}

// NLIGoldLabel maps an SNLI/MNLI label (entailment, neutral, contradiction;
// case and surrounding space ignored) to a relation label. ok is false for
// anything else, e.g. SNLI's "-" (no annotator majority).
func NLIGoldLabel(label string) (rel string, ok bool) {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "entailment":
		return models.Supports, true
	case "neutral":
		return models.Neutral, true
	case "contradiction":
		return models.Refutes, true
	}
	return "", false
}

// EvidenceGoldLabel maps a Climate-FEVER evidence_label (SUPPORTS, REFUTES,
// NOT_ENOUGH_INFO) to the relation label an NLI backend should give the
// (evidence sentence, claim) pair. ok is false for anything else.
func EvidenceGoldLabel(label string) (rel string, ok bool) {
	switch strings.TrimSpace(label) {
	case "SUPPORTS":
		return models.Supports, true
	case "REFUTES":
		return models.Refutes, true
	case "NOT_ENOUGH_INFO":
		return models.Neutral, true
	}
	return "", false
}

// ClaimGoldClass checks a Climate-FEVER claim_label and returns it as a
// class of ClaimClasses; ok is false for anything else.
func ClaimGoldClass(label string) (class string, ok bool) {
	l := strings.TrimSpace(label)
	for _, c := range ClaimClasses {
		if l == c {
			return c, true
		}
	}
	return "", false
}

// VerdictClass maps a claim verdict (ARCHITECTURE.md §5.1) onto the Climate-FEVER
// claim classes: supported and well_supported → SUPPORTS, likely_false →
// REFUTES, unverified → NOT_ENOUGH_INFO, contested → DISPUTED. ok is false
// for an unknown verdict.
func VerdictClass(verdict string) (class string, ok bool) {
	switch verdict {
	case "well_supported", "supported":
		return ClaimSupports, true
	case "likely_false":
		return ClaimRefutes, true
	case "unverified":
		return ClaimNotEnoughInfo, true
	case "contested":
		return ClaimDisputed, true
	}
	return "", false
}
