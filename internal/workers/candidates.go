package workers

import (
	"context"
	"fmt"

	"github.com/evidencefleet/evidencefleet/internal/evidence"
	"github.com/evidencefleet/evidencefleet/internal/ident"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/taskindex"
	"github.com/evidencefleet/evidencefleet/internal/verifyplan"
	"github.com/evidencefleet/evidencefleet/store"
)

// RecallClaim is one claim to find candidate evidence for.
type RecallClaim struct {
	ID            int64
	Text          string
	Lexemes       []string  // to_tsvector of Text, as Postgres has it
	Vec           []float32 // embedding of Text
	ExcludeDomain string    // the claim's origin domain; "" for none. Its whole site is left out (ident.Site).
}

// Recaller finds a claim's candidate evidence among a task's fragments
// (stages 1 and 2 of ARCHITECTURE.md §5.2): in memory through the process's task
// indexes, or through Postgres.
type Recaller struct {
	store     *store.Store
	embedder  models.Embedder
	taskIndex *taskindex.Cache // nil: always Postgres
	recall    store.Recall
	observe   Observer
}

// NewRecaller recalls through taskIndex (nil: always Postgres) within the
// bounds of recall; a nil observer records nothing.
func NewRecaller(st *store.Store, embedder models.Embedder, taskIndex *taskindex.Cache, recall store.Recall, observe Observer) *Recaller {
	return &Recaller{store: st, embedder: embedder, taskIndex: taskIndex, recall: recall, observe: observer(observe)}
}

// ForClaims embeds the claims and recalls their candidates (Candidates).
func (d *Recaller) ForClaims(ctx context.Context, taskID int64, state store.TaskVerifyStateRow, claims []verifyplan.Claim) (map[int64][]evidence.Candidate, error) {
	texts := make([]string, len(claims))
	for i, c := range claims {
		texts[i] = c.Text
	}
	vecs, err := d.embedder.Embed(ctx, texts)
	if err == nil {
		err = checkVectors(vecs, len(texts), d.embedder.Dim())
	}
	if err != nil {
		return nil, fmt.Errorf("embed claims with %s: %w", d.embedder.Model(), err)
	}
	recall := make([]RecallClaim, len(claims))
	for i, c := range claims {
		recall[i] = RecallClaim{ID: c.ID, Text: c.Text, Lexemes: c.Lexemes, Vec: vecs[i], ExcludeDomain: c.OriginDomain}
	}
	return d.Candidates(ctx, taskID, state, recall)
}

// indexBytesPerFragment estimates a task index's memory per fragment beside
// its embedding's byte a dimension (ids, postings, lexemes);
// taskindex.Index.Bytes is exact.
const indexBytesPerFragment = 256

// Candidates is stages 1 and 2 of ARCHITECTURE.md §5.2 for claims of one task: the
// task's embedded fragments matching any of a claim's terms (at most
// Verify.RecallLimit, best lexical match first, none from the claim's origin
// domain), each with its lexical score and its cosine similarity to the
// claim. A fragment's page title counts as part of its text for the lexical
// score (store.TaskSearchDocs, store.RecallCandidates).
//
// When the task fits the process's index budget (TaskIndex), recall runs
// in memory over an index of the task (BM25 on Postgres's lexemes), built once
// per task state; its cost depends on the task only. Otherwise Postgres's
// full-text search ranks by ts_rank: through the task's own fragments while
// the task is a small share of the graph, else through the graph-wide GIN
// index (store.ChooseRecallPath).
func (d *Recaller) Candidates(ctx context.Context, taskID int64, state store.TaskVerifyStateRow, claims []RecallClaim) (map[int64][]evidence.Candidate, error) {
	model := models.PassageModel(d.embedder)
	est := state.Fragments * int64(indexBytesPerFragment+d.embedder.Dim())
	if d.taskIndex.Fits(est) {
		key := taskindex.Key{TaskID: taskID, WorkVersion: state.WorkVersion, Fragments: state.Fragments,
			NotEmbedded: state.NotEmbedded, Model: model}
		how := "index_hit"
		ix, err := d.taskIndex.Get(ctx, key, func(ctx context.Context, prev *taskindex.Index) (*taskindex.Index, error) {
			if prev != nil {
				ix, err := d.extendIndex(ctx, taskID, model, prev)
				if ix != nil || err != nil {
					how = "index_extend"
					return ix, err
				}
			}
			how = "index_load"
			b := taskindex.NewBuilder(int(state.Fragments))
			if err := d.store.TaskSearchDocs(ctx, taskID, model, nil, b.Add); err != nil {
				return nil, err
			}
			return b.Finish(), nil
		})
		if err != nil {
			return nil, fmt.Errorf("task index: %w", err)
		}
		d.observe.Recall(how)
		out := make(map[int64][]evidence.Candidate, len(claims))
		for _, c := range claims {
			out[c.ID] = ix.Candidates(taskindex.Query{Lexemes: c.Lexemes, Vec: c.Vec, ExcludeDomain: c.ExcludeDomain}, d.recall.PerClaim)
		}
		return out, nil
	}
	d.observe.Recall("sql")
	graph, err := d.store.GraphFragments(ctx)
	if err != nil {
		return nil, err
	}
	return d.candidatesSQL(ctx, taskID, claims, store.ChooseRecallPath(state.Fragments, graph))
}

// extendIndex is prev, an index of an earlier state of the task, with the
// fragments it lacks read and added (taskindex.Index.Extend): a task whose
// crawl goes on moves its work_version with every page, and reading only the
// new pages' fragments costs a count of the task's fragments per page
// version instead of all their rows. Nil when prev holds a fragment the task
// no longer has (taskindex.Index.Changes): the index is built again.
func (d *Recaller) extendIndex(ctx context.Context, taskID int64, model string, prev *taskindex.Index) (*taskindex.Index, error) {
	rows, err := d.store.TaskPageEmbeddedCounts(ctx, store.TaskPageEmbeddedCountsParams{TaskID: taskID, EmbedModel: model})
	if err != nil {
		return nil, fmt.Errorf("count the task's embedded fragments: %w", err)
	}
	now := make([]taskindex.PageCount, len(rows))
	for i, r := range rows {
		now[i] = taskindex.PageCount{PageVersion: r.PageVersionID, Embedded: r.Embedded}
	}
	changed, more, ok := prev.Changes(now)
	switch {
	case !ok:
		return nil, nil
	case len(changed) == 0:
		return prev, nil
	}
	b := prev.Extend(changed, more)
	if err := d.store.TaskSearchDocs(ctx, taskID, model, changed, b.Add); err != nil {
		return nil, err
	}
	return b.Finish(), nil
}

// candidatesSQL recalls through Postgres full-text search by path
// (store.RecallCandidates).
func (d *Recaller) candidatesSQL(ctx context.Context, taskID int64, claims []RecallClaim, path store.RecallPath) (map[int64][]evidence.Candidate, error) {
	queries := make([]store.ClaimQuery, len(claims))
	for i, c := range claims {
		queries[i] = store.ClaimQuery{ClaimID: c.ID, Text: c.Text, ExcludeSite: ident.Site(c.ExcludeDomain)}
	}
	recalled, err := d.store.RecallCandidates(ctx, taskID, queries, d.recall, models.PassageModel(d.embedder), path)
	if err != nil {
		return nil, err
	}
	var fragIDs []int64
	seen := map[int64]bool{}
	for _, rs := range recalled {
		for _, r := range rs {
			if !seen[r.ID] {
				seen[r.ID] = true
				fragIDs = append(fragIDs, r.ID)
			}
		}
	}
	out := make(map[int64][]evidence.Candidate, len(claims))
	if len(fragIDs) == 0 {
		return out, nil
	}
	details, err := d.store.CandidateFragmentDetails(ctx, fragIDs)
	if err != nil {
		return nil, fmt.Errorf("read candidate fragments: %w", err)
	}
	type fragment struct {
		domain string
		vec    []int8 // quantized as the in-memory index keeps it
		norm   float32
	}
	frags := make(map[int64]fragment, len(details))
	var buf []float32
	for _, f := range details {
		vec, err := store.DecodeVector(f.Embedding, buf)
		if err != nil {
			return nil, fmt.Errorf("fragment %d: %w", f.ID, err)
		}
		buf = vec
		q, norm := models.Quantize(nil, vec)
		frags[f.ID] = fragment{domain: ident.Site(f.Domain), vec: q, norm: norm}
	}
	for _, c := range claims {
		rs := recalled[c.ID]
		cands := make([]evidence.Candidate, 0, len(rs))
		for _, r := range rs {
			if f, ok := frags[r.ID]; ok {
				cands = append(cands, evidence.Candidate{FragmentID: r.ID, Domain: f.domain,
					Similarity: models.CosineQuantized(c.Vec, f.vec, f.norm), Lexical: r.Rank})
			}
		}
		out[c.ID] = cands
	}
	return out, nil
}
