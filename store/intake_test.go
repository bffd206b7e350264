package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// AddHypotheses numbers new texts in order after the task's last claim,
// returns existing and repeated texts as one claim, and advances the task
// only when it inserted.
func TestAddHypotheses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := pgtest.Tx(t)
	q := store.New(tx)
	task := fixture.Task(t, tx, "h")
	first, err := q.AddHypotheses(ctx, task, []string{"A claim.", "Another claim."})
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 2 || !first[0].New || !first[1].New || first[0].EvidenceNo+1 != first[1].EvidenceNo {
		t.Fatalf("first call: %+v, want two new claims numbered in order", first)
	}
	before, err := q.GetTask(ctx, task)
	if err != nil {
		t.Fatal(err)
	}
	// "a  claim." normalises as "A claim.": the existing claim.
	second, err := q.AddHypotheses(ctx, task, []string{"Third.", "a  claim.", "Third."})
	if err != nil {
		t.Fatal(err)
	}
	want := []store.AddedHypothesis{
		{ID: second[0].ID, EvidenceNo: first[1].EvidenceNo + 1, New: true},
		first[0],
		{ID: second[0].ID, EvidenceNo: first[1].EvidenceNo + 1, New: true},
	}
	want[1].New = false
	for i := range want {
		if second[i] != want[i] || second[i].ID == 0 {
			t.Errorf("second call, text %d: %+v, want %+v", i, second[i], want[i])
		}
	}
	after, err := q.GetTask(ctx, task)
	if err != nil {
		t.Fatal(err)
	}
	if after.NextEvidenceNo != want[0].EvidenceNo+1 || after.WorkVersion != before.WorkVersion+1 {
		t.Errorf("task after: next %d, work version %d; want %d, %d", after.NextEvidenceNo, after.WorkVersion,
			want[0].EvidenceNo+1, before.WorkVersion+1)
	}
	again, err := q.AddHypotheses(ctx, task, []string{"Third."})
	if err != nil || len(again) != 1 || again[0].New || again[0].ID != want[0].ID {
		t.Fatalf("repeat: %+v, %v; want the existing claim", again, err)
	}
	if same, err := q.GetTask(ctx, task); err != nil || same.WorkVersion != after.WorkVersion {
		t.Errorf("nothing inserted, yet work version %d → %d (%v)", after.WorkVersion, same.WorkVersion, err)
	}
	if _, err := q.AddHypotheses(ctx, -1, []string{"x"}); !errors.Is(err, errs.ErrTaskNotFound) {
		t.Errorf("missing task: %v, want ErrTaskNotFound", err)
	}
}
