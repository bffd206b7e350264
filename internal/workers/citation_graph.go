package workers

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/academic"
	"github.com/evidencefleet/evidencefleet/internal/academic/papers"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/pageproc"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// CitationSource gives a paper's neighbors in the citation graph
// (papers.Resolver).
type CitationSource interface {
	Neighbors(ctx context.Context, ref papers.Ref, max int) ([]papers.Neighbor, error)
}

// The two-stage relevance filter of ARCHITECTURE.md §5.4: stage 1 once per
// paper, stage 2 per task.
const (
	citationFetch  = 500 // references and citations read at most per API and direction
	citationStage1 = 30  // kept by 0.5·influential + 0.5·similarity
	citationFinal  = 10  // kept by 0.5·LLM + 0.3·stage 1 + 0.2·influential
	llmFallback    = 0.5 // relevance when the LLM's answer is unusable
	// citationPeerWait is how long a job snoozes while an older job of
	// another task asks the academic APIs for the same paper (the older
	// one goes on, so two never wait for each other).
	citationPeerWait = 5 * time.Second
)

// CitationGraphWorker works citation_graph jobs.
type CitationGraphWorker struct {
	river.WorkerDefaults[jobs.CitationGraphArgs]
	store     *store.Store
	citations CitationSource // nil: no academic API, the job completes as skipped
	embedder  models.Embedder
	llm       models.LLM // relevance
	pages     PageSettings
	observe   Observer
	logger    *slog.Logger
}

// NewCitationGraphWorker is the citation_graph worker: citations gives
// papers' neighbours (nil: none configured, jobs complete as skipped), llm
// judges their relevance (nil: the built-in); a nil observer or logger
// records nothing.
func NewCitationGraphWorker(st *store.Store, citations CitationSource, embedder models.Embedder, llm models.LLM, pages PageSettings, observe Observer, log *slog.Logger) *CitationGraphWorker {
	return &CitationGraphWorker{store: st, citations: citations, embedder: embedder, llm: claimExtractor(llm), pages: pages,
		observe: observer(observe), logger: logger(log)}
}

// CitationOutput is recorded as the job's output.
type CitationOutput struct {
	Skipped string `json:"skipped,omitempty"` // why nothing was done
	// AskedAPIs: this job asked the academic APIs for the paper's
	// neighbours (the first to reach the page, whatever its task); false:
	// it selected among the candidates recorded for the page.
	AskedAPIs bool `json:"asked_apis"`
	Neighbors int  `json:"neighbors"` // references and citations, merged by DOI
	Stage1    int  `json:"stage1"`
	// LLMFallbacks counts relevance calls that failed, 0.5 used instead. (An
	// LLM backend that cannot parse an answer already returns the neutral
	// 5/10 itself and counts a bad_response model error.)
	LLMFallbacks int `json:"llm_fallbacks"`
	Selected     int `json:"selected"`
	PagesNew     int `json:"pages_new"` // pages added to the task
	EdgesNew     int `json:"cites_edges_new"`
	Placeholders int `json:"placeholders"` // selected papers without an abstract (title-only pages)
}

// Work expands the page's citation graph for the job's task: the paper's
// stage 1 candidates are read from the page's record, or asked from the
// academic APIs and recorded for every task by the first job that reaches
// the page; stage 2 asks the relevance of each against this task's
// hypothesis; the ten most relevant are stored as abstract-only pages of
// the task with cites edges, and the job completes, in one transaction.
func (w *CitationGraphWorker) Work(ctx context.Context, job *river.Job[jobs.CitationGraphArgs]) error {
	log := w.logger.With(slog.Int64("job_id", job.ID), slog.Int64("task_id", job.Args.TaskID), slog.Int64("page_id", job.Args.PageID))
	// Task state first: a job of a missing or stopped task asks no API.
	task, err := w.store.ActiveTask(ctx, job.Args.TaskID)
	if err != nil {
		return err
	}
	src, err := w.store.CitationSourcePage(ctx, store.CitationSourcePageParams{TaskID: job.Args.TaskID, PageID: job.Args.PageID})
	if store.IsNotFound(err) {
		return fmt.Errorf("citation graph of page %d: not a page of task %d: %w", job.Args.PageID, job.Args.TaskID, errs.ErrPageNotFound)
	}
	if err != nil {
		return fmt.Errorf("read page: %w", err)
	}
	var out CitationOutput
	skip := func(reason, metric string) error {
		out.Skipped = reason
		w.observe.Academic("citation_graph", metric)
		log.WarnContext(ctx, "citation graph skipped: "+reason)
		return river.RecordOutput(ctx, out)
	}
	ref := papers.Ref{DOI: src.Doi, S2ID: src.S2PaperID, OpenAlexID: src.OpenalexID}
	if ref == (papers.Ref{}) {
		return skip("not an academic page (no DOI, S2 or OpenAlex id)", "skipped")
	}
	sourceText := strings.TrimSpace(src.Title + "\n\n" + src.Content)
	cands, found, err := w.store.PaperCandidatesOf(ctx, src.ID)
	if err != nil {
		return err
	}
	if !found {
		if w.citations == nil {
			return skip("no academic API configured (EVF_S2_URL, EVF_OPENALEX_URL)", "skipped")
		}
		busy, err := w.store.EarlierCitationGraphRunning(ctx, store.EarlierCitationGraphRunningParams{JobID: job.ID, PageID: src.ID})
		if err != nil {
			return fmt.Errorf("read running citation graphs of page %d: %w", src.ID, err)
		}
		if busy {
			// An older job (another task's) is asking the APIs for this
			// paper: wait for its record rather than ask them again.
			return wait(PeerBusy, citationPeerWait, fmt.Errorf("an older job asks the academic APIs for page %d's paper", src.ID))
		}
		neighbors, err := w.citations.Neighbors(ctx, ref, citationFetch)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("citation graph of page %d: %w", job.Args.PageID, err)
			}
			// Retried, then the job ends as the error table's row says.
			w.observe.Academic("citation_graph", "unavailable")
			return fail(CitationsDown, fmt.Errorf("academic APIs unreachable for page %d: %w", job.Args.PageID, err))
		}
		out.AskedAPIs = true
		mine, err := w.stage1(ctx, src.ID, sourceText, neighbors)
		if err != nil {
			return err
		}
		if cands, _, err = w.store.RecordPaperCandidates(ctx, mine); err != nil {
			return err
		}
	}
	out.Neighbors, out.Stage1 = cands.Neighbors, len(cands.Candidates)
	selected, err := w.stage2(ctx, task.Hypothesis, sourceText, cands, &out)
	if err != nil {
		return err
	}
	out.Selected = len(selected)
	write := store.CitationGraphWrite{TaskID: job.Args.TaskID, SourcePageID: src.ID, SourceDepth: int(src.Depth)}
	for _, c := range selected {
		p := pageproc.Read(ctx, pageproc.FromPaper(&c.paper), w.pages.Extract)
		if p.Status != pageproc.StatusOK {
			continue // neither title nor abstract: nothing to keep
		}
		if strings.TrimSpace(c.paper.Abstract) == "" {
			out.Placeholders++
		}
		write.Pages = append(write.Pages, store.CitedPage{Page: pageWrite(p, models.PassageModel(w.embedder), w.pages.Policy),
			Reference: c.Reference, Sources: c.Sources})
	}
	err = w.store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		res, err := q.WriteCitationGraph(ctx, write)
		if err != nil {
			return err
		}
		out.EdgesNew, out.PagesNew = res.EdgesNew, res.PagesNew
		if out.PagesNew > 0 {
			if err := insertFollowUps(ctx, tx, job.Args.TaskID, targetOutput{PageID: src.ID, ToEmbed: res.ToEmbed}, w.pages.Embed); err != nil {
				return err
			}
		}
		return completeTx(ctx, tx, job, out)
	})
	if err != nil {
		return fmt.Errorf("store citation graph of page %d: %w", job.Args.PageID, err)
	}
	w.observe.Academic("citation_graph", "ok")
	log.InfoContext(ctx, "citation graph", slog.Bool("asked_apis", out.AskedAPIs), slog.Int("neighbors", out.Neighbors),
		slog.Int("selected", out.Selected), slog.Int("pages_new", out.PagesNew), slog.Int("edges_new", out.EdgesNew),
		slog.Int("llm_fallbacks", out.LLMFallbacks))
	return nil
}

// stage1 is the per-paper half of the two-stage relevance filter of
// ARCHITECTURE.md §5.4: 0.5 · influential + 0.5 · cosine(source text,
// candidate title and abstract), top 30, as the page's record.
func (w *CitationGraphWorker) stage1(ctx context.Context, pageID int64, sourceText string, neighbors []papers.Neighbor) (store.PaperCandidates, error) {
	rec := store.PaperCandidates{PageID: pageID, Neighbors: len(neighbors), EmbedModel: w.embedder.Model()}
	if len(neighbors) == 0 {
		return rec, nil
	}
	texts := make([]string, 0, len(neighbors)+1)
	texts = append(texts, sourceText)
	for _, n := range neighbors {
		texts = append(texts, candidateText(n.Paper))
	}
	vecs, err := w.embedder.Embed(ctx, texts)
	if err == nil {
		err = checkVectors(vecs, len(texts), w.embedder.Dim())
	}
	if err != nil {
		return rec, modelErr(err, "embed citation candidates with "+w.embedder.Model())
	}
	cands := make([]CitationCandidate, len(neighbors))
	for i, n := range neighbors {
		cands[i] = CitationCandidate{Index: i, Influential: n.Influential, Similarity: models.Cosine(vecs[0], vecs[i+1])}
	}
	for _, c := range TopByStage1(cands, citationStage1) {
		n := neighbors[c.Index]
		paper, err := json.Marshal(n.Paper)
		if err != nil {
			return rec, fmt.Errorf("encode citation candidate: %w", err)
		}
		rec.Candidates = append(rec.Candidates, store.CitationCandidate{Reference: n.Reference, Influential: n.Influential,
			Similarity: c.Similarity, Sources: strings.Join(n.Sources, "+"), Paper: paper})
	}
	return rec, nil
}

// stagedPaper is a recorded candidate the task's stage 2 selected.
type stagedPaper struct {
	store.CitationCandidate
	paper academic.Paper
}

// stage2 is the per-task half: the LLM's 0–10 relevance of each recorded
// candidate to the task's hypothesis and the source (0.5 when its answer is
// unusable), final = 0.5 · llm/10 + 0.3 · stage 1 + 0.2 · influential, top
// 10. NLI is never used for relevance.
func (w *CitationGraphWorker) stage2(ctx context.Context, hypothesis, sourceText string, rec store.PaperCandidates, out *CitationOutput) ([]stagedPaper, error) {
	staged := make([]stagedPaper, len(rec.Candidates))
	cands := make([]CitationCandidate, len(rec.Candidates))
	for i, c := range rec.Candidates {
		staged[i].CitationCandidate = c
		if err := json.Unmarshal(c.Paper, &staged[i].paper); err != nil {
			return nil, fmt.Errorf("decode citation candidate %d of page %d: %w", c.Position, rec.PageID, err)
		}
		cands[i] = CitationCandidate{Index: i, Influential: c.Influential, Similarity: c.Similarity}
		r, err := claimExtractor(w.llm).CitationRelevance(ctx, models.CitationQuestion{Hypothesis: hypothesis,
			Source: sourceText, Candidate: candidateText(staged[i].paper)})
		if err != nil || math.IsNaN(r) || r < 0 || r > 10 {
			out.LLMFallbacks++
			cands[i].LLM = llmFallback
			continue
		}
		cands[i].LLM = r / 10
	}
	final := TopByFinal(cands, citationFinal)
	selected := make([]stagedPaper, len(final))
	for i, c := range final {
		selected[i] = staged[c.Index]
	}
	return selected, nil
}

func candidateText(p academic.Paper) string {
	return strings.TrimSpace(p.Title + "\n\n" + p.Abstract)
}

// CitationCandidate is one neighbor being ranked.
type CitationCandidate struct {
	Index       int
	Influential bool
	Similarity  float64 // cosine of source and candidate texts
	LLM         float64 // stage 2 relevance in [0,1]
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Stage1 is 0.5 · influential + 0.5 · similarity (negative similarity counts 0).
func (c CitationCandidate) Stage1() float64 {
	return 0.5*b2f(c.Influential) + 0.5*max(0, c.Similarity)
}

// Final is 0.5 · LLM + 0.3 · stage 1 + 0.2 · influential.
func (c CitationCandidate) Final() float64 {
	return 0.5*c.LLM + 0.3*c.Stage1() + 0.2*b2f(c.Influential)
}

// TopByStage1 returns the n best candidates by Stage1 (ties: input order).
func TopByStage1(cands []CitationCandidate, n int) []CitationCandidate {
	return topBy(cands, n, CitationCandidate.Stage1)
}

// TopByFinal returns the n best candidates by Final (ties: input order).
func TopByFinal(cands []CitationCandidate, n int) []CitationCandidate {
	return topBy(cands, n, CitationCandidate.Final)
}

func topBy(cands []CitationCandidate, n int, score func(CitationCandidate) float64) []CitationCandidate {
	out := slices.Clone(cands)
	slices.SortStableFunc(out, func(a, b CitationCandidate) int {
		sa, sb := score(a), score(b)
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	return out[:min(n, len(out))]
}
