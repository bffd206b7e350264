package planner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/planner"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/store"
)

// searchServer answers SearxNG JSON queries over pages: every page sharing
// a word of four or more letters with the query, by how many it shares
// (then URL), at most 20.
func searchServer(t *testing.T, pages []corpus.Page) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		words := map[string]bool{}
		for _, w := range strings.Fields(strings.ToLower(r.URL.Query().Get("q"))) {
			if len(w) >= 4 {
				words[w] = true
			}
		}
		type hit struct {
			URL     string `json:"url"`
			Title   string `json:"title"`
			Content string `json:"content"`
			score   int
		}
		var hits []hit
		for _, p := range pages {
			text := strings.ToLower(string(p.Body))
			n := 0
			for w := range words {
				if strings.Contains(text, w) {
					n++
				}
			}
			if n > 0 {
				hits = append(hits, hit{URL: p.URL, Title: p.URL, Content: "", score: n})
			}
		}
		slices.SortFunc(hits, func(a, b hit) int {
			if a.score != b.score {
				return b.score - a.score
			}
			return strings.Compare(a.URL, b.URL)
		})
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"query": r.URL.Query().Get("q"), "results": hits[:min(20, len(hits))]})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// corpusPages: the glacier archive and ten pages that name the Zorblat
// river without saying anything of its floods.
func corpusPages() []corpus.Page {
	pages := testfleet.GlacierPages()
	for i := range 10 {
		pages = append(pages, testfleet.Page(fmt.Sprintf("https://zorblat%d.example.org/", i), fmt.Sprintf("Zorblat notes %d", i),
			fmt.Sprintf("The Zorblat river valley has a museum of old maps, opened in %d.", 1900+i),
			"Visitors to the Zorblat valley walk along quiet trails in summer."))
	}
	return pages
}

type bundle struct {
	f   *testfleet.Fleet
	svc *service.Service
}

func setup(t *testing.T) *bundle {
	t.Helper()
	pages := corpusPages()
	search := searchServer(t, pages)
	f := testfleet.Start(t, testfleet.Options{Pages: pages, Adjust: func(c *config.Config) {
		c.SearchURL = search.URL
		c.TaskSettle = 100 * time.Millisecond
	}})
	return &bundle{f: f, svc: service.New(f.Store, f.Client)}
}

// run creates a self-directed task with claims and waits until it is
// completed.
func (b *bundle) run(t *testing.T, budget string, claims ...string) int64 {
	t.Helper()
	ctx := context.Background()
	task, err := b.svc.CreateTask(ctx, "acme", intake.TaskSpec{Hypothesis: claims[0], Budget: budget, Retrieval: "self_directed"})
	if err != nil {
		t.Fatal(err)
	}
	if len(claims) > 1 {
		if _, err := b.svc.AddClaims(ctx, "acme", task.ID, claims[1:]); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		st, err := b.svc.Status(ctx, "acme", task.ID)
		if err != nil {
			t.Fatal(err)
		}
		if st.TaskStatus == "completed" {
			return task.ID
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %d not completed: %+v", task.ID, st)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

type event struct {
	kind    string
	payload map[string]any
}

func (b *bundle) events(t *testing.T, task int64) []event {
	t.Helper()
	rows, err := b.f.Store.TaskEvents(context.Background(), store.TaskEventsParams{TaskID: &task, MaxRows: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var out []event
	for _, r := range rows {
		var p map[string]any
		if err := json.Unmarshal(r.Payload, &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, event{r.EventType, p})
	}
	return out
}

func (b *bundle) count(t *testing.T, sql string, task int64) int {
	t.Helper()
	var n int
	if err := b.f.Pool.QueryRow(context.Background(), sql, task).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

var claims = []string{
	"Glaciers are retreating worldwide because of rising temperatures.",
	"Glacier retreat in the Alps has accelerated since 1980.",
	"Mountain glaciers contributed about 21 % of sea level rise between 2000 and 2019.",
	"Several glaciers in Norway advanced during the 1990s.",
	"Rising temperatures are causing glaciers to retreat at an accelerating rate.",
	"The Rhône Glacier lost a large part of its volume.",
}

// TestBudgetClassBoundsTheSearches: the same claims, searched for by the
// fleet itself, cost fewer searches on budget minimal than on deep, and
// every stage's decision is recorded with its numbers.
func TestBudgetClassBoundsTheSearches(t *testing.T) {
	t.Parallel()
	b := setup(t)
	searches := `SELECT count(*) FROM targets WHERE task_id = $1 AND via = 'planner'`
	minimal := b.run(t, "minimal", claims...)
	deep := b.run(t, "deep", claims...)
	nMin, nDeep := b.count(t, searches, minimal), b.count(t, searches, deep)
	t.Logf("searches: minimal %d, deep %d", nMin, nDeep)
	if nMin == 0 || nMin >= nDeep {
		t.Errorf("searches: minimal %d, deep %d; want minimal fewer (and some)", nMin, nDeep)
	}
	if lim := planner.DefaultLimits["minimal"].Searches; nMin > lim {
		t.Errorf("minimal made %d searches, over its limit %d", nMin, lim)
	}
	for _, task := range []int64{minimal, deep} {
		kinds := map[string]int{}
		var selection map[string]any
		for _, e := range b.events(t, task) {
			kinds[e.kind]++
			if e.kind == planner.EventTargetSelection {
				selection = e.payload
			}
		}
		if kinds[planner.EventTargetSelection] != 1 || kinds[planner.EventURLsRegistered] == 0 || kinds[planner.EventDone] != 1 {
			t.Errorf("task %d events %v: want one target_selection, urls_registered, one retrieval_done", task, kinds)
		}
		if selection == nil {
			continue
		}
		sel := selection["selection"].(map[string]any)
		if len(sel["evoi"].([]any)) != len(claims) || sel["stop"] == "" {
			t.Errorf("task %d: target_selection %v: want the EVOI of every claim and why it stopped", task, selection)
		}
	}
	var kMin, kDeep float64
	for _, e := range b.events(t, minimal) {
		if e.kind == planner.EventTargetSelection {
			kMin = e.payload["selection"].(map[string]any)["k"].(float64)
		}
	}
	for _, e := range b.events(t, deep) {
		if e.kind == planner.EventTargetSelection {
			kDeep = e.payload["selection"].(map[string]any)["k"].(float64)
		}
	}
	if kMin > 3 || kDeep < 3 {
		t.Errorf("targets chosen: minimal %v (ceiling 3), deep %v (floor 3)", kMin, kDeep)
	}
}

// TestWeakEvidenceBuysMoreFetches: a claim whose search finds only pages
// that say nothing of it gets more than its first two result pages, one at
// a time, each release recorded with the EVOI that bought it.
func TestWeakEvidenceBuysMoreFetches(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task := b.run(t, "deep", "The Zorblat river valley floods every spring.")
	fetched := b.count(t, `SELECT count(*) FROM targets r JOIN targets q ON q.id = r.source_target_id
		WHERE q.task_id = $1 AND q.via = 'planner' AND r.stage <> 'deferred'`, task)
	if fetched <= 2 {
		t.Fatalf("the claim's result pages fetched: %d, want more than 2", fetched)
	}
	var released int
	for _, e := range b.events(t, task) {
		if e.kind != planner.EventFetchesReleased {
			continue
		}
		for _, d := range e.payload["claims"].([]any) {
			d := d.(map[string]any)
			if d["released"] != nil && d["released"] != "" {
				released++
				if d["reason"] != "evoi" || d["evoi_next"].(float64) < 0.25 {
					t.Errorf("a release without its reason: %v", d)
				}
			}
		}
	}
	if released == 0 {
		t.Errorf("no fetches_released event names a released page")
	}
	t.Logf("fetched %d result pages, %d released by EVOI", fetched, released)
}

// TestNoSearchBackend: without a search backend a self-directed task says
// why it searched nothing, and completes.
func TestNoSearchBackend(t *testing.T) {
	t.Parallel()
	f := testfleet.Start(t, testfleet.Options{Pages: corpusPages(), Adjust: func(c *config.Config) {
		c.SearchURL = ""
		c.ReplayDir = "" // else the replay archive is searched offline
		c.TaskSettle = 100 * time.Millisecond
	}})
	b := &bundle{f: f, svc: service.New(f.Store, f.Client)}
	task := b.run(t, "standard", claims[:2]...)
	var why string
	for _, e := range b.events(t, task) {
		if e.kind == planner.EventBudgetExhausted {
			why, _ = e.payload["resource"].(string)
		}
	}
	if why != "search_backend" {
		t.Errorf("events %v: want budget_exhausted naming the missing search backend", b.events(t, task))
	}
	if n := b.count(t, `SELECT count(*) FROM targets WHERE task_id = $1`, task); n != 0 {
		t.Errorf("%d targets registered without a search backend, want none", n)
	}
}
