package store

import (
	"context"
	"fmt"
)

// CitedPage is one paper a citation graph keeps: its abstract-only page,
// whether the source cites it (a reference) or it cites the source, and
// the APIs that reported the link.
type CitedPage struct {
	Page      PageWrite
	Reference bool
	Sources   string
}

// CitationGraphWrite is what a citation_graph job adds to a task: the
// pages the citation graph of the task's page SourcePageID kept, which
// entered the task at SourceDepth.
type CitationGraphWrite struct {
	TaskID, SourcePageID int64
	SourceDepth          int
	Pages                []CitedPage
}

// CitationGraphWritten is what WriteCitationGraph did.
type CitationGraphWritten struct {
	EdgesNew, PagesNew int
	ToEmbed            []int64 // fragments of the pages without an embedding
}

// WriteCitationGraph is the citation_graph job's one write. Lock order, as
// every writer: the page keys of all its pages at once (sorted), then the
// task's row lock (an active task); then each page (StorePage), its cites
// edge with the source, and its link to the task (retrieval context
// citation from the source page, one deeper than it); the task's
// work_version moves when a page is new to it.
func (q *Queries) WriteCitationGraph(ctx context.Context, w CitationGraphWrite) (CitationGraphWritten, error) {
	var out CitationGraphWritten
	pages := make([]PageWrite, len(w.Pages))
	for i, c := range w.Pages {
		pages[i] = c.Page
	}
	if err := q.lockResourceKeys(ctx, pageLockKeys(pages...)); err != nil {
		return out, err
	}
	task, err := q.LockActiveTask(ctx, w.TaskID)
	if err != nil {
		return out, err
	}
	for _, c := range w.Pages {
		st, err := q.StorePage(ctx, c.Page)
		if err != nil {
			return out, err
		}
		out.ToEmbed = append(out.ToEmbed, st.ToEmbed...)
		citing, cited := w.SourcePageID, st.PageID
		if !c.Reference {
			citing, cited = st.PageID, w.SourcePageID
		}
		source := c.Sources
		added, err := q.InsertCitesEdge(ctx, InsertCitesEdgeParams{CitingPageID: citing, CitedPageID: cited, CitationSource: &source})
		if err != nil {
			return out, fmt.Errorf("insert cites edge: %w", err)
		}
		out.EdgesNew += int(added)
		sourcePage := w.SourcePageID
		isNew, err := q.AddTaskPage(ctx, AddTaskPageParams{TaskID: w.TaskID, PageID: st.PageID,
			PageVersionID: &st.VersionID, Reason: ContextCitation, Depth: int32(w.SourceDepth + 1), SourcePageID: &sourcePage})
		if err != nil {
			return out, fmt.Errorf("add task page: %w", err)
		}
		if isNew {
			out.PagesNew++
		}
	}
	if out.PagesNew > 0 {
		if err := q.AdvanceTask(ctx, AdvanceTaskParams{ID: w.TaskID, NextEvidenceNo: task.NextEvidenceNo}); err != nil {
			return out, fmt.Errorf("advance task: %w", err)
		}
	}
	return out, nil
}
