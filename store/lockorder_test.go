package store_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// paperPage is a fetched page of one fragment, declaring doi and linking
// the given DOIs.
func paperPage(url, doi string, linked ...string) store.PageWrite {
	text := "A study of " + url
	p := store.PageWrite{URL: url, FinalURL: url, Title: url, Fetched: true, Status: 200, ContentType: "text/html",
		FetchedAt: time.Now().UTC(), SHA256: fmt.Sprintf("%x", url), Content: text,
		Fragments: []store.FragmentSpan{{Start: 0, End: len(text), Text: text}}, EmbedModel: "test"}
	if doi != "" {
		p.Identifiers = []store.Identifier{{Type: "doi", Value: doi}}
	}
	for _, d := range linked {
		p.Linked = append(p.Linked, store.Identifier{Type: "doi", Value: d})
	}
	return p
}

// TestWritersShareOneLockOrder runs the writers that take page keys and the
// task's row — target_queue's WritePage, citation_graph's
// WriteCitationGraph, verify_nli's WriteJudgements — concurrently on one
// task and on overlapping papers, each in its own committed transaction,
// with papers in every order. One lock order (page keys sorted, then the
// task row) means no transaction ever ends in a deadlock (SQLSTATE 40P01)
// or any other error.
func TestWritersShareOneLockOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	st := store.NewStore(pool)
	task := fixture.Task(t, pool, "Sparse networks train well.")
	source := fixture.PageOf(t, pool, task, "https://papers.example.org/source", "The source paper.")
	const papers = 12
	doi := func(i int) string { return fmt.Sprintf("10.5555/paper.%d", i) }
	url := func(i int) string { return fmt.Sprintf("https://papers.example.org/p%d", i) }

	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for w := range 8 {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(w), 7))
			for round := range 15 {
				perm := rnd.Perm(papers)
				var err error
				switch (w + round) % 3 {
				case 0: // a fetched paper linking others, in a random order
					i := perm[0]
					linked := []string{doi(perm[1]), doi(perm[2]), doi(perm[3])}
					// As the worker does, the target is registered on its own
					// before the write (inserting it in the write's transaction
					// would take a key-share lock on the task row first).
					tgt, err2 := st.EnsureTarget(ctx, store.EnsureTargetParams{TaskID: task, Kind: "url", Value: url(i)})
					if err2 != nil {
						errs <- err2
						continue
					}
					err = st.InTx(ctx, func(_ pgx.Tx, q *store.Queries) error {
						_, err := q.WritePage(ctx, paperPage(url(i), doi(i), linked...), store.PageForTask{TaskID: task, TargetID: tgt.ID})
						return err
					})
				case 1: // a citation graph of five papers, in a random order
					write := store.CitationGraphWrite{TaskID: task, SourcePageID: source.ID}
					for _, i := range perm[:5] {
						write.Pages = append(write.Pages, store.CitedPage{Page: paperPage("https://doi.org/"+doi(i), doi(i)), Reference: true, Sources: "test"})
					}
					err = st.InTx(ctx, func(_ pgx.Tx, q *store.Queries) error {
						_, err := q.WriteCitationGraph(ctx, write)
						return err
					})
				case 2: // a verify round: the task's row, no judgement
					err = st.InTx(ctx, func(_ pgx.Tx, q *store.Queries) error {
						_, err := q.WriteJudgements(ctx, store.Judgements{TaskID: task})
						return err
					})
				}
				if err != nil {
					errs <- fmt.Errorf("writer %d round %d: %w", w, round, err)
				}
			}
		})
	}
	wg.Wait()
	reportWriterErrors(t, errs)
	var pages int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pages WHERE doi LIKE '10.5555/paper.%'`).Scan(&pages); err != nil || pages != papers {
		t.Errorf("%d pages for %d papers (%v): one page per paper", pages, papers, err)
	}
}

// reportWriterErrors fails the test with each concurrent writer's error
// (errs is closed here), a deadlock (40P01) named as one.
func reportWriterErrors(t *testing.T, errs chan error) {
	t.Helper()
	close(errs)
	for err := range errs {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "40P01" {
			t.Errorf("deadlock: %v", err)
		} else {
			t.Error(err)
		}
	}
}
