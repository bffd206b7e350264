package workers

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// EmbedWorker works embed jobs.
type EmbedWorker struct {
	river.WorkerDefaults[jobs.EmbedArgs]
	store    *store.Store
	embedder models.Embedder
	cfg      EmbedConfig
	logger   *slog.Logger
}

// NewEmbedWorker is the embed worker; a nil logger records nothing.
func NewEmbedWorker(st *store.Store, embedder models.Embedder, cfg EmbedConfig, log *slog.Logger) *EmbedWorker {
	return &EmbedWorker{store: st, embedder: embedder, cfg: cfg, logger: logger(log)}
}

// Work embeds in batches and stores the vectors with the completion. A
// fragment is embedded with its page title (models.PassageVector) and
// recorded under models.PassageModel.
func (w *EmbedWorker) Work(ctx context.Context, job *river.Job[jobs.EmbedArgs]) error {
	model := models.PassageModel(w.embedder)
	ids := job.Args.FragmentIDs
	if job.Args.PageVersionID != 0 {
		rows, err := w.store.VersionFragments(ctx, store.VersionFragmentsParams{PageVersionID: job.Args.PageVersionID, EmbedModel: model})
		if err != nil {
			return fmt.Errorf("read fragments of version %d: %w", job.Args.PageVersionID, err)
		}
		ids = ids[:0:0]
		for _, r := range rows {
			ids = append(ids, r.ID)
		}
	}
	todo, err := w.store.FragmentsToEmbed(ctx, store.FragmentsToEmbedParams{Ids: ids, EmbedModel: model})
	if err != nil {
		return fmt.Errorf("read fragments to embed: %w", err)
	}
	batch := w.cfg.BatchSize
	if batch <= 0 {
		batch = 64
	}
	fragIDs := make([]int64, 0, len(todo))
	vectors := make([][]float32, 0, len(todo))
	for start := 0; start < len(todo); start += batch {
		end := min(start+batch, len(todo))
		for _, f := range todo[start:end] {
			fragIDs = append(fragIDs, f.ID)
		}
		vecs, err := embedPassages(ctx, w.embedder, todo[start:end])
		if err != nil {
			return modelErr(err, fmt.Sprintf("embed %d fragments with %s", end-start, model))
		}
		vectors = append(vectors, vecs...)
	}
	var stored int64
	err = w.store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		res, err := q.WriteEmbeddings(ctx, job.Args.TaskID, fragIDs, vectors, model)
		if err != nil {
			return err
		}
		stored = res.Stored
		if res.Verify {
			// New embeddings are new evidence: a verify_nli that stopped
			// waiting for them (or is running now) must see them.
			if _, err := river.ClientFromContext[pgx.Tx](ctx).InsertTx(ctx, tx, jobs.VerifyNLIArgs{TaskID: job.Args.TaskID}, nil); err != nil {
				return fmt.Errorf("enqueue verify_nli: %w", err)
			}
		}
		return completeTx(ctx, tx, job, map[string]any{"embedded": stored, "requested": len(ids), "model": model})
	})
	if err != nil {
		return fmt.Errorf("store embeddings: %w", err)
	}
	w.logger.DebugContext(ctx, "fragments embedded", slog.Int64("job_id", job.ID), slog.Int64("embedded", stored))
	return nil
}

// embedPassages embeds fragments with their page titles: the texts in one
// call, each distinct non-empty title once in another, combined by
// models.PassageVector.
func embedPassages(ctx context.Context, e models.Embedder, frags []store.FragmentsToEmbedRow) ([][]float32, error) {
	texts := make([]string, len(frags))
	titleIdx := map[string]int{}
	var titles []string
	for i, f := range frags {
		texts[i] = f.Text
		if _, ok := titleIdx[f.Title]; !ok && strings.TrimSpace(f.Title) != "" {
			titleIdx[f.Title] = len(titles)
			titles = append(titles, f.Title)
		}
	}
	vecs, err := e.Embed(ctx, texts)
	if err == nil {
		err = checkVectors(vecs, len(texts), e.Dim())
	}
	if err != nil || len(titles) == 0 {
		return vecs, err
	}
	titleVecs, err := e.Embed(ctx, titles)
	if err == nil {
		err = checkVectors(titleVecs, len(titles), e.Dim())
	}
	if err != nil {
		return nil, fmt.Errorf("page titles: %w", err)
	}
	for i, f := range frags {
		if t, ok := titleIdx[f.Title]; ok {
			vecs[i] = models.PassageVector(vecs[i], titleVecs[t])
		}
	}
	return vecs, nil
}
