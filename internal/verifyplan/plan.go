// Package verifyplan is verify_nli's planning as functions that return
// values, like internal/pageproc for target_queue: given what a shard job
// read — its claims, their candidate fragments with scores, the pairs judged
// before, the selected fragments' texts and levels — it says which pairs to
// judge, what a round does next and what a round's judgements store
// (ARCHITECTURE.md §5.2). No store, no River, no model call: the worker
// reads, plans, judges, writes once and completes.
//
// A plan is made in two steps with one read between them: Select ranks
// every claim's candidates (ids and scores only) and picks the fragments to
// judge; the worker reads those fragments' texts and their sources' levels
// now (a block leaves every candidate set at once); Pairs turns the picks
// into the pairs of one job's budget. Reading every candidate's text first
// would read some ten times the fragments a round judges.
package verifyplan

import (
	"fmt"
	"math"

	"github.com/evidencefleet/evidencefleet/internal/evidence"
	"github.com/evidencefleet/evidencefleet/internal/models"
)

// Blocked is the trust level of a domain whose fragments are never judged
// (domainpolicy.Blocked, the value the store returns).
const Blocked = "BLOCKED"

// Claim is one claim of a shard, as read for verification.
type Claim struct {
	ID           int64
	Text         string
	Chars        int      // its length in characters
	Lexemes      []string // to_tsvector of Text, as Postgres has it
	OriginDomain string   // "" for a hypothesis
	OriginTrust  string   // its origin domain's level in the task's organization's view
}

// Refused is a claim the fleet cannot work, with the reason.
type Refused struct {
	ID     int64
	Reason string
}

// Workable splits off the claims longer than maxChars (jobs.MaxTextRunes):
// they cannot be embedded, indexed or judged, and are refused with the
// reason while the shard's other claims go on.
func Workable(claims []Claim, maxChars int) (kept []Claim, refused []Refused) {
	kept = make([]Claim, 0, len(claims))
	for _, c := range claims {
		if c.Chars > maxChars {
			refused = append(refused, Refused{ID: c.ID,
				Reason: fmt.Sprintf("text of %d characters, more than the %d a claim may have", c.Chars, maxChars)})
			continue
		}
		kept = append(kept, c)
	}
	return kept, refused
}

// Pick is one fragment selected for one claim.
type Pick struct {
	Claim      int // index into the claims given to Select
	FragmentID int64
	Similarity float64 // the candidate's cosine similarity to the claim
}

// Selection is stage 3 of §5.2 for a round's claims.
type Selection struct {
	Picks         []Pick // by claim, each claim's best first
	Candidates    int    // candidates recalled for all claims
	SkippedJudged int    // ranked pairs judged before, left out
}

// FragmentIDs are the picked fragments, in pick order (a fragment picked
// for two claims appears twice).
func (s Selection) FragmentIDs() []int64 {
	ids := make([]int64, len(s.Picks))
	for i, p := range s.Picks {
		ids[i] = p.FragmentID
	}
	return ids
}

// PairKey names a judged pair.
type PairKey struct{ ClaimID, FragmentID int64 }

// Select fuses each claim's candidates' lexical and cosine scores, ranks
// them and picks the pairs to judge within lim, leaving out the pairs in
// judged (evidence.FuseScores, evidence.SelectPairs). cands is reordered
// and rescored in place.
func Select(claims []Claim, cands map[int64][]evidence.Candidate, judged map[PairKey]bool, lim evidence.SelectLimits) Selection {
	var s Selection
	for i, c := range claims {
		cs := cands[c.ID]
		evidence.FuseScores(cs)
		s.Candidates += len(cs)
		picked, skipped := evidence.SelectPairs(cs, func(fid int64) bool { return judged[PairKey{c.ID, fid}] }, lim)
		s.SkippedJudged += skipped
		for _, p := range picked {
			s.Picks = append(s.Picks, Pick{Claim: i, FragmentID: p.FragmentID, Similarity: p.Similarity})
		}
	}
	return s
}

// Fragment is a picked fragment as read after selection: its text and its
// source's level and category in the task's organization's view now.
type Fragment struct {
	Text       string
	TrustLevel string
	Category   string
}

// Pair is one claim–fragment pair to judge, with what its edge records.
type Pair struct {
	ClaimID, FragmentID int64
	Premise             string  // the fragment's text
	Hypothesis          string  // the claim's text
	RetrievalScore      float64 // the candidate's cosine similarity (the store clamps it)
	SourceTrust         string
	SourceCategory      string
	TargetTrust         string // the claim's origin level
}

// Reason says why a shard's job hands the rest of its work to a successor.
type Reason string

const (
	// PairsLeft: the shard has more pairs than one job judges.
	PairsLeft Reason = "pairs_left"
	// TaskChanged: pages came into the task during the job's last round.
	TaskChanged Reason = "task_changed"
	// NewFragments: fragments of the task still lack embeddings after a
	// round: a successor waits for them.
	NewFragments Reason = "new_fragments"
)

// Plan is what one round judges.
type Plan struct {
	ClaimIDs       []int64 // every workable claim of the round: their posteriors are recomputed
	Refused        []Refused
	Pairs          []Pair
	SkippedBlocked int // picked fragments of BLOCKED sources, never judged
	// Successor is PairsLeft when pairs were left out for the job's budget.
	Successor Reason
}

// Pairs turns a selection into the round's plan: picks whose fragment is
// gone (deleted since recall) are dropped, those of BLOCKED sources counted
// and dropped, and at most budget pairs kept (Keep).
func Pairs(claims []Claim, refused []Refused, sel Selection, frags map[int64]Fragment, budget int) Plan {
	p := Plan{Refused: refused}
	for _, c := range claims {
		p.ClaimIDs = append(p.ClaimIDs, c.ID)
	}
	for _, s := range sel.Picks {
		f, ok := frags[s.FragmentID]
		if !ok {
			continue
		}
		if f.TrustLevel == Blocked {
			p.SkippedBlocked++
			continue
		}
		c := claims[s.Claim]
		p.Pairs = append(p.Pairs, Pair{ClaimID: c.ID, FragmentID: s.FragmentID, Premise: f.Text, Hypothesis: c.Text,
			RetrievalScore: s.Similarity, SourceTrust: f.TrustLevel, SourceCategory: f.Category, TargetTrust: c.OriginTrust})
	}
	if p.Keep(budget) {
		p.Successor = PairsLeft
	}
	return p
}

// Keep cuts the plan to at most budget pairs and reports whether pairs were
// left out. Whole claims are kept while they fit, so that a claim's pairs
// (at most MaxPairsPerClaim of its ranking) are judged by one job; only a
// first claim with more pairs than the budget (MaxPairsPerClaim above the
// job's pairs, as in exhaustive mode, where the pairs left are exactly
// those a successor selects) is cut inside.
func (p *Plan) Keep(budget int) bool {
	if len(p.Pairs) <= budget {
		return false
	}
	if budget <= 0 {
		p.Pairs = nil
		return true
	}
	n := budget
	for i := budget; i > 0; i-- {
		if p.Pairs[i].ClaimID != p.Pairs[i-1].ClaimID {
			n = i
			break
		}
	}
	p.Pairs = p.Pairs[:n]
	return true
}

// ModelPairs are the plan's pairs as the NLI model takes them.
func (p Plan) ModelPairs() []models.Pair {
	out := make([]models.Pair, len(p.Pairs))
	for i, q := range p.Pairs {
		out[i] = models.Pair{Premise: q.Premise, Hypothesis: q.Hypothesis}
	}
	return out
}

// Usable reports whether j is a judgement: a known label with a confidence
// in [0, 1]. A pair answered otherwise is unjudgeable and asked again later.
func Usable(j models.Judgement) bool {
	known := j.Label == models.Supports || j.Label == models.Refutes || j.Label == models.Neutral
	return known && !math.IsNaN(j.Confidence) && j.Confidence >= 0 && j.Confidence <= 1
}

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
