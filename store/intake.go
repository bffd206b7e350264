package store

import (
	"context"
	"fmt"
)

// AddedHypothesis is the claim of one text given to AddHypotheses.
type AddedHypothesis struct {
	ID         int64
	EvidenceNo int32
	New        bool // inserted by this call
}

// AddHypotheses adds hypothesis claims (no origin) to an active task in q's
// transaction and returns the claim of each text, in order. It takes the
// task's row lock (LockActiveTask), reads the task's hypotheses with the same
// normalised text (TextHash), inserts the others under the task's next
// evidence numbers, in the order of texts, and advances the task's numbering
// and work_version when it inserted any. A text already on the task returns
// the existing claim; a text repeated in texts is inserted once and every
// repetition returns it. The texts are trimmed and checked by the caller.
func (q *Queries) AddHypotheses(ctx context.Context, taskID int64, texts []string) ([]AddedHypothesis, error) {
	hashes := make([]string, len(texts))
	for i, t := range texts {
		hashes[i] = TextHash(t)
	}
	task, err := q.LockActiveTask(ctx, taskID)
	if err != nil {
		return nil, err
	}
	existing, err := q.ExistingHypotheses(ctx, ExistingHypothesesParams{TaskID: taskID, TextHashes: hashes})
	if err != nil {
		return nil, fmt.Errorf("read existing claims: %w", err)
	}
	have := make(map[string]ExistingHypothesesRow, len(existing))
	for _, e := range existing {
		have[e.TextHash] = e
	}
	out := make([]AddedHypothesis, len(texts))
	next := task.NextEvidenceNo
	p := InsertHypothesesParams{TaskID: taskID}
	pending := map[string]int{} // hash → index in p
	for i, h := range hashes {
		if e, ok := have[h]; ok {
			out[i].ID, out[i].EvidenceNo = e.ID, e.EvidenceNo
			continue
		}
		if _, dup := pending[h]; dup {
			continue
		}
		pending[h] = len(p.Texts)
		p.EvidenceNos = append(p.EvidenceNos, next)
		p.Texts = append(p.Texts, texts[i])
		p.TextHashes = append(p.TextHashes, h)
		next++
	}
	if len(p.Texts) == 0 {
		return out, nil
	}
	rows, err := q.InsertHypotheses(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("insert claims: %w", err)
	}
	byNo := make(map[int32]int64, len(rows))
	for _, r := range rows {
		byNo[r.EvidenceNo] = r.ID
	}
	for i, h := range hashes {
		if j, ok := pending[h]; ok && out[i].ID == 0 {
			out[i].EvidenceNo = p.EvidenceNos[j]
			out[i].ID = byNo[p.EvidenceNos[j]]
			out[i].New = true
		}
	}
	if err := q.AdvanceTask(ctx, AdvanceTaskParams{ID: taskID, NextEvidenceNo: next}); err != nil {
		return nil, fmt.Errorf("advance task: %w", err)
	}
	return out, nil
}
