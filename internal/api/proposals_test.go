package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/apiserver"
	"github.com/evidencefleet/evidencefleet/store"
)

// proposeLinks gives a task claims E90 and E91 with the proposed links E1
// → E90 and E1 → E91 (as the planner's hypothesis split makes them).
func proposeLinks(t *testing.T, pool *pgxpool.Pool, task int64) {
	t.Helper()
	ctx := context.Background()
	q := store.New(pool)
	for _, no := range []int32{90, 91} {
		text := fmt.Sprintf("Sub-claim %d.", no)
		if _, err := q.InsertHypotheses(ctx, store.InsertHypothesesParams{TaskID: task, EvidenceNos: []int32{no},
			Texts: []string{text}, TextHashes: []string{store.TextHash(text)}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.ProposeClaimLinks(ctx, task, []store.NewClaimLink{
		{TaskID: task, From: 1, To: 90, Relation: "depends_on", Weight: 1, By: "llm:test", Reason: "split"},
		{TaskID: task, From: 1, To: 91, Relation: "depends_on", Weight: 1, By: "llm:test", Reason: "split"},
	}); err != nil {
		t.Fatal(err)
	}
}

// TestReviewProposedLinks: the owner accepts E1 → E90 (status accepted,
// who in the event log) and rejects E1 → E91 (gone); a second review of
// either, or of a link that was never proposed, is 400 naming why.
func TestReviewProposedLinks(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{})
	proposeLinks(t, b.pool, b.owner.task)
	path := fmt.Sprintf("/v1/tasks/%d/links", b.owner.task)
	resp, data := b.call(t, http.MethodPost, path+"/accept", b.owner.token, []byte(`{"from": "E1", "to": "E90", "reviewer": "rev"}`))
	var link struct{ From, To, Status, CreatedBy string }
	if err := json.Unmarshal(data, &link); err != nil || resp.StatusCode != http.StatusOK || link.Status != "accepted" || link.To != "E90" {
		t.Fatalf("accept: %d %s", resp.StatusCode, data)
	}
	if resp, data := b.call(t, http.MethodPost, path+"/reject", b.owner.token, []byte(`{"from": "E1", "to": "E91"}`)); resp.StatusCode != http.StatusOK ||
		!strings.Contains(string(data), `"rejected":true`) {
		t.Fatalf("reject: %d %s", resp.StatusCode, data)
	}
	for _, tc := range []struct{ op, body string }{
		{"accept", `{"from": "E1", "to": "E90"}`}, {"reject", `{"from": "E1", "to": "E91"}`}, {"reject", `{"from": "E1", "to": "E90"}`},
	} {
		resp, data := b.call(t, http.MethodPost, path+"/"+tc.op, b.owner.token, []byte(tc.body))
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(data), "no proposed claim link") {
			t.Errorf("%s %s again: %d %s, want 400 no proposed claim link", tc.op, tc.body, resp.StatusCode, data)
		}
	}
	_, data = b.call(t, http.MethodGet, path, b.owner.token, nil)
	var list struct {
		Links []struct{ From, To, Status string } `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil || len(list.Links) != 1 || list.Links[0].To != "E90" || list.Links[0].Status != "accepted" {
		t.Errorf("links after review: %s", data)
	}
	var by string
	if err := b.pool.QueryRow(context.Background(), `SELECT payload ->> 'by' FROM event_log WHERE task_id = $1 AND event_type = $2`,
		b.owner.task, store.EventClaimLinkAccepted).Scan(&by); err != nil || !strings.Contains(by, "(rev)") {
		t.Errorf("accepted by %q, %v: want the token and the reviewer", by, err)
	}
}
