package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/api"
	"github.com/evidencefleet/evidencefleet/internal/apiserver"
	"github.com/evidencefleet/evidencefleet/internal/apitoken"
	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestSourceChangedEvent: a task's event stream sends source_changed when
// a recheck finds one of its citations edited, with the rechecks' summary
// in its data, and goes on.
func TestSourceChangedEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := scratchPool(t)
	st := store.NewStore(pool)
	ts := serve(t, pool, apiserver.Options{Events: api.EventOptions{Poll: 50 * time.Millisecond}})
	secret, _, err := apitoken.Issue(ctx, st, apitoken.Organization, "acme", "stream")
	if err != nil {
		t.Fatal(err)
	}
	task := createTask(t, ts.URL, secret) // no worker: the task stays active
	const quote = "The glacier lost 3 percent of its ice in 2022."
	p := fixture.PageOf(t, pool, task, "https://example.org/glacier", quote)
	fixture.ExtractedClaim(t, pool, task, p, 0, quote)

	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	resp := call(t, sctx, http.DefaultClient, http.MethodGet, fmt.Sprintf("%s/v1/tasks/%d/events", ts.URL, task), secret, "")
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(make([]byte, 1<<16), 1<<20)
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "id: ") {
		t.Fatalf("no first event: %q, %v", lines.Text(), lines.Err())
	}
	fixture.EditedRecheck(t, pool, task, p, 0, "The glacier lost 2 percent of its ice in 2022.")
	var event string
	for lines.Scan() {
		l := lines.Text()
		if strings.HasPrefix(l, "event: ") {
			event = strings.TrimPrefix(l, "event: ")
			continue
		}
		if event != api.EventSourceChanged || !strings.HasPrefix(l, "data: ") {
			continue
		}
		var progress api.TaskProgress
		if err := json.Unmarshal([]byte(strings.TrimPrefix(l, "data: ")), &progress); err != nil {
			t.Fatal(err)
		}
		if r := progress.Rechecks; r.Edited != 1 || r.Checked != 1 || r.Citations != 1 || r.LastCheckedAt == nil {
			t.Errorf("source_changed data's rechecks %+v, want the one citation checked and edited", r)
		}
		return
	}
	t.Fatalf("the stream ended without source_changed: %v", lines.Err())
}
