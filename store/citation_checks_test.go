package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestSpanCitationChecksAreTheTasks: the checks of some spans (an export
// page's) are the task's latest checks of those spans, as the whole task's
// read gives them: the latest round wins, an edited span brings the text
// around it, a span asked twice or never checked changes nothing, and
// another task's check of the same span is not the task's.
func TestSpanCitationChecksAreTheTasks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := pgtest.Tx(t)
	q := store.New(tx)
	task, other := fixture.Task(t, tx, "glaciers"), fixture.Task(t, tx, "other")
	p := fixture.PageOf(t, tx, task, "https://example.org/glaciers", "Glaciers lost 3 percent.", "Ice sheets thinned.", "Sea level rose.")
	span := func(i int) (int32, int32) { return int32(p.Spans[i][0]), int32(p.Spans[i][1]) }
	write := func(task, job int64, at time.Time, states ...string) {
		t.Helper()
		w := store.RecheckWrite{TaskID: task, PageID: p.ID, JobID: job, CheckedAt: at, Outcome: "gone", HTTPStatus: 410, URL: p.URL}
		if states[0] != "gone" {
			now := "The page now says something else entirely."
			w.Outcome, w.HTTPStatus = "unchanged", 200
			w.Seen = &store.SeenVersion{SHA256: fmt.Sprintf("%064d", job), Content: now, FetchedAt: at}
		}
		for i, s := range states {
			start, end := span(i)
			f := store.CitationFinding{PageVersionID: p.VersionID, Start: start, End: end, State: s}
			if s == "edited" {
				f.Around = &[2]int32{4, 12}
			}
			w.Citations = append(w.Citations, f)
		}
		if _, err := q.WriteRecheck(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now().UTC()
	write(task, 1, now.Add(-2*time.Hour), "unchanged", "edited")
	write(task, 2, now.Add(-time.Hour), "gone")
	write(other, 3, now, "unchanged", "unchanged", "unchanged")

	all, err := q.TaskCitationChecks(ctx, task)
	if err != nil {
		t.Fatal(err)
	}
	whole := map[string]string{}
	for _, r := range all {
		whole[fmt.Sprint(r.PageVersionID, r.StartChar, r.EndChar)] = fmt.Sprint(r.State, r.CheckedAt.Unix(), r.SeenVersionID != nil, r.Around)
	}
	s0, e0 := span(0)
	s1, e1 := span(1)
	s2, e2 := span(2)
	if want := map[string]string{
		fmt.Sprint(p.VersionID, s0, e0): fmt.Sprint("gone", now.Add(-time.Hour).Unix(), false, ""),
		fmt.Sprint(p.VersionID, s1, e1): fmt.Sprint("edited", now.Add(-2*time.Hour).Unix(), true, "page now"),
	}; fmt.Sprint(whole) != fmt.Sprint(want) {
		t.Fatalf("the task's checks %v, want %v", whole, want)
	}
	rows, err := q.SpanCitationChecks(ctx, store.SpanCitationChecksParams{TaskID: task,
		PageVersionIds: []int64{p.VersionID, p.VersionID, p.VersionID, p.VersionID},
		Starts:         []int32{s1, s0, s1, s2}, Ends: []int32{e1, e0, e1, e2}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		key := fmt.Sprint(r.PageVersionID, r.StartChar, r.EndChar)
		if v := fmt.Sprint(r.State, r.CheckedAt.Unix(), r.SeenVersionID != nil, r.Around); v != whole[key] {
			t.Errorf("span %s: %s, the task's read says %q", key, v, whole[key])
		}
		got = append(got, key)
	}
	slices.Sort(got)
	if want := []string{fmt.Sprint(p.VersionID, s0, e0), fmt.Sprint(p.VersionID, s1, e1)}; !slices.Equal(got, want) {
		t.Errorf("spans with checks %v, want %v (each once; the unchecked one has none, the other task's is not this one's)", got, want)
	}
}
