package verifyplan

import "github.com/evidencefleet/evidencefleet/internal/models"

// Step is what a round does before it plans.
type Step int

const (
	// Judge: plan, judge and write the round.
	Judge Step = iota
	// WaitForEmbeddings: the task has fragments still without embeddings;
	// judging now would rank without them, so the job waits for the embed
	// jobs (it has not written anything yet).
	WaitForEmbeddings
	// HandOver: fragments came in during the last round; the job completes
	// with its committed rounds and a successor waits for their embeddings.
	HandOver
)

// Begin is the step of round (1, 2, …) of a job that has waited for
// embeddings waited times, when notEmbedded of the task's fragments still
// lack an embedding: a job waits at most maxWaits times, then judges what
// is embedded.
func Begin(round int, notEmbedded, waited int64, maxWaits int) Step {
	switch {
	case notEmbedded <= 0:
		return Judge
	case round > 1:
		return HandOver
	case waited < int64(maxWaits):
		return WaitForEmbeddings
	}
	return Judge
}

// MaxRounds bounds how often one job goes round when the task keeps
// changing; after that it completes and a successor does the rest.
const MaxRounds = 5

// End is what follows a round's write: done (complete the job) and the
// reason a successor does the rest ("" for none). A round whose task
// changed while it judged goes round again, unless it left pairs for a
// successor or was the last.
func End(round int, plan Plan, taskChanged bool) (done bool, successor Reason) {
	switch {
	case plan.Successor != "":
		return true, plan.Successor
	case !taskChanged:
		return true, ""
	case round < MaxRounds:
		return false, ""
	}
	return true, TaskChanged
}

// EdgeRules are how judgements become edges (§5.2).
type EdgeRules struct {
	MinConfidence float64 // supports/refutes below it are stored as neutral
	SaveNeutral   bool    // neutral judgements are stored as edges
	HoldBack      bool    // honour models.Judgement.HoldBack
}

// Edge is one judged pair to store: the pair, the relation stored and the
// model's own label and confidence.
type Edge struct {
	Pair
	Relation   string
	Label      string
	Confidence float64
}

// Tally counts what became of a round's judgements.
type Tally struct {
	Judged         int // pairs sent to the model
	Unjudgeable    int // no usable answer: not stored, asked again later
	HeldBack       int // supports/refutes the model held back, stored as neutral
	Downgraded     int // supports/refutes below MinConfidence, stored as neutral
	DroppedNeutral int // neutral, not stored (SaveNeutral false)
}

// Edges turns a round's judgements (parallel to plan.Pairs) into the edges
// to store: a supports/refutes the model holds back (when HoldBack is on)
// or below MinConfidence is stored as neutral with the model's label kept,
// an unusable judgement is left out, and neutral pairs are dropped unless
// SaveNeutral.
func Edges(plan Plan, js []models.Judgement, r EdgeRules) ([]Edge, Tally) {
	var edges []Edge
	var t Tally
	for i, j := range js {
		t.Judged++
		if !Usable(j) {
			t.Unjudgeable++
			continue
		}
		rel := j.Label
		switch {
		case rel == models.Neutral:
		case j.HoldBack && r.HoldBack:
			rel = models.Neutral
			t.HeldBack++
		case j.Confidence < r.MinConfidence:
			rel = models.Neutral
			t.Downgraded++
		}
		if rel == models.Neutral && !r.SaveNeutral {
			t.DroppedNeutral++
			continue
		}
		edges = append(edges, Edge{Pair: plan.Pairs[i], Relation: rel, Label: j.Label, Confidence: j.Confidence})
	}
	return edges, t
}
