package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/rank"
	"github.com/evidencefleet/evidencefleet/internal/service"
)

// materialsJSON mirrors the documented JSON of `enqueue materials`.
type materialsJSON struct {
	TaskID         int64          `json:"task_id"`
	Query          string         `json:"query"`
	QueryHash      string         `json:"query_hash"`
	FromHypothesis bool           `json:"query_is_hypothesis"`
	RankedAt       *time.Time     `json:"ranked_at"`
	EmbedModel     string         `json:"embed_model"`
	RerankModel    string         `json:"rerank_model"`
	Ranking        []materialJSON `json:"ranking"`
	RankedQueries  []struct {
		Query     string `json:"query"`
		Fragments int    `json:"fragments"`
	} `json:"ranked_queries"`
	Hint string `json:"hint"`
}

type materialJSON struct {
	Rank        int      `json:"rank"`
	FragmentID  int64    `json:"fragment_id"`
	FinalScore  float64  `json:"final_score"`
	RerankScore float64  `json:"rerank_score"`
	TrustLevel  string   `json:"trust_level"`
	TrustWeight float64  `json:"trust_weight"`
	Domain      string   `json:"domain"`
	Title       string   `json:"title"`
	Span        spanJSON `json:"span"`
}

func TestMaterials(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task, _ := b.runTask(t)
	taskArg := fmt.Sprint(task)

	t.Run("before ranking: says so and how to rank", func(t *testing.T) {
		out := b.mustRun(t, "materials", "--task", taskArg)
		want := fmt.Sprintf(`enqueue job --kind rerank --args '{"task_id":%d}'`, task)
		if !strings.Contains(out, "No ranking") || !strings.Contains(out, want) {
			t.Errorf("materials without a ranking printed\n%s\nwant it to say there is none and show %s", out, want)
		}
		var m materialsJSON
		b.mustRunJSON(t, &m, "materials", "--task", taskArg)
		if m.Ranking == nil || len(m.Ranking) != 0 || m.RankedAt != nil || !strings.Contains(m.Hint, want) ||
			m.Query != hypothesis || !m.FromHypothesis {
			t.Errorf("materials --json without a ranking = %+v", m)
		}
		var g struct {
			Ranking []materialJSON `json:"ranking"`
		}
		raw := b.mustRun(t, "graph", "--task", taskArg, "--json")
		if err := json.Unmarshal([]byte(raw), &g); err != nil || g.Ranking == nil || len(g.Ranking) != 0 {
			t.Errorf("graph ranking before any rerank = %v (%v), want []", g.Ranking, err)
		}
	})

	// Rank the task's fragments for its hypothesis as a user would.
	b.mustRun(t, "job", "--kind", "rerank", "--args", fmt.Sprintf(`{"task_id":%d}`, task))
	b.mustRun(t, "status", "--task", taskArg, "--wait", "--interval", "50ms", "--timeout", "60s")

	var m materialsJSON
	b.mustRunJSON(t, &m, "materials", "--task", taskArg)

	t.Run("json is the stored ranking with exact spans", func(t *testing.T) {
		if m.TaskID != task || m.Query != hypothesis || !m.FromHypothesis || m.QueryHash != rank.QueryHash(hypothesis) ||
			m.RankedAt == nil || m.EmbedModel == "" || m.RerankModel == "" || m.Hint != "" {
			t.Errorf("materials header = %+v", m)
		}
		stored := b.count(t, `SELECT count(*) FROM task_rankings WHERE task_id = $1 AND query_hash = $2`, task, m.QueryHash)
		if len(m.Ranking) == 0 || len(m.Ranking) != stored {
			t.Fatalf("materials lists %d fragments, the database holds %d", len(m.Ranking), stored)
		}
		for i, r := range m.Ranking {
			if r.Rank != i+1 {
				t.Errorf("entry %d has rank %d", i, r.Rank)
			}
			var fragment int64
			var final float64
			if err := b.f.Pool.QueryRow(b.ctx, `SELECT fragment_id, final_score FROM task_rankings WHERE task_id = $1 AND query_hash = $2 AND rank = $3`,
				task, m.QueryHash, r.Rank).Scan(&fragment, &final); err != nil {
				t.Fatal(err)
			}
			if fragment != r.FragmentID || final != r.FinalScore {
				t.Errorf("rank %d: fragment %d score %v, stored %d %v", r.Rank, r.FragmentID, r.FinalScore, fragment, final)
			}
			s := r.Span
			if s.StartChar == nil || s.EndChar == nil || s.URL == "" || s.Text == "" || r.Domain == "" {
				t.Errorf("rank %d: incomplete entry %+v", r.Rank, r)
				continue
			}
			if got := b.versionSubstring(t, s.PageVersionID, *s.StartChar, *s.EndChar); got != s.Text {
				t.Errorf("rank %d: version %d [%d,%d) is %q, entry text %q", r.Rank, s.PageVersionID, *s.StartChar, *s.EndChar, got, s.Text)
			}
			if r.TrustWeight != rank.TrustWeight(r.TrustLevel) {
				t.Errorf("rank %d: trust %s weight %v", r.Rank, r.TrustLevel, r.TrustWeight)
			}
		}
	})

	t.Run("table view is a reading list", func(t *testing.T) {
		out := b.mustRun(t, "materials", "--task", taskArg)
		top := m.Ranking[0]
		for _, want := range []string{
			fmt.Sprintf("%d fragments", len(m.Ranking)),
			"  1. ",
			top.Span.URL,
			fmt.Sprintf("chars %d–%d of version %d", *top.Span.StartChar, *top.Span.EndChar, top.Span.PageVersionID),
			truncate(strings.Join(strings.Fields(top.Span.Text), " "), materialTextRunes),
		} {
			if !strings.Contains(out, want) {
				t.Errorf("materials output lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "No ranking") {
			t.Errorf("materials with a ranking says there is none:\n%s", out)
		}
	})

	t.Run("graph json includes the ranking", func(t *testing.T) {
		var g struct {
			TaskID  int64          `json:"task_id"`
			Ranking []materialJSON `json:"ranking"`
		}
		b.mustRunJSON(t, &g, "graph", "--task", taskArg)
		if len(g.Ranking) != len(m.Ranking) {
			t.Fatalf("graph ranking has %d entries, materials %d", len(g.Ranking), len(m.Ranking))
		}
		for i := range g.Ranking {
			if g.Ranking[i].FragmentID != m.Ranking[i].FragmentID || g.Ranking[i].Span.Text != m.Ranking[i].Span.Text {
				t.Errorf("graph ranking entry %d = %+v, materials %+v", i, g.Ranking[i], m.Ranking[i])
			}
		}
	})

	t.Run("another query has no ranking yet", func(t *testing.T) {
		var other materialsJSON
		b.mustRunJSON(t, &other, "materials", "--task", taskArg, "--query", "Norwegian glaciers")
		if len(other.Ranking) != 0 || other.FromHypothesis || !strings.Contains(other.Hint, `"query":"Norwegian glaciers"`) {
			t.Errorf("materials --query with no ranking = %+v", other)
		}
		if len(other.RankedQueries) != 1 || other.RankedQueries[0].Query != hypothesis || other.RankedQueries[0].Fragments != len(m.Ranking) {
			t.Errorf("ranked_queries = %+v, want the hypothesis with %d fragments", other.RankedQueries, len(m.Ranking))
		}
		out := b.mustRun(t, "materials", "--task", taskArg, "--query", "Norwegian glaciers")
		if !strings.Contains(out, "No ranking") || !strings.Contains(out, fmt.Sprintf("%q", hypothesis)) {
			t.Errorf("materials --query without a ranking printed\n%s\nwant the hint and the ranked hypothesis", out)
		}
	})

	t.Run("errors", func(t *testing.T) {
		if r := b.run(t, "materials", "--task", "999999"); r.code() != 1 || !strings.Contains(r.err.Error(), "does not exist") {
			t.Errorf("unknown task: exit %d (%v), want 1", r.code(), r.err)
		}
		if r := b.run(t, "materials"); r.code() != 2 {
			t.Errorf("no --task: exit %d (%v), want 2", r.code(), r.err)
		}
	})
}

func TestWriteMaterialsTruncatesLongTexts(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("glacier ", 60) + "END"
	start, end := int32(10), int32(10+len([]rune(long)))
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := &service.Materials{TaskID: 4, Query: "q", RankedAt: &at, Ranking: []service.RankedMaterial{{Rank: 1, FragmentID: 9, FinalScore: 0.5,
		TrustLevel: rank.Unverified, TrustWeight: 0.3, Span: service.Span{PageVersionID: 2, StartChar: start, EndChar: end, URL: "https://x.example/", Text: long}}}}
	var buf bytes.Buffer
	writeMaterials(&buf, m)
	out := buf.String()
	if strings.Contains(out, "END") || !strings.Contains(out, "…") {
		t.Errorf("table view did not truncate a %d-rune text:\n%s", len([]rune(long)), out)
	}
	if !strings.Contains(out, fmt.Sprintf("chars %d–%d of version 2", start, end)) {
		t.Errorf("table view lacks the exact span:\n%s", out)
	}
}

func TestRerankCommandQuotesForTheShell(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query string
		want  string // the args JSON the shell must pass on
	}{
		{"", `{"task_id":7}`},
		{"  sea ice ", `{"task_id":7,"query":"sea ice"}`},
		{`it's "melting"`, `{"task_id":7,"query":"it's \"melting\""}`},
		{"a'';b $(x) `y`", `{"task_id":7,"query":"a'';b $(x) ` + "`y`" + `"}`},
	}
	for _, tt := range tests {
		cmd := service.RerankCommand(7, tt.query)
		_, quoted, ok := strings.Cut(cmd, "--args ")
		if !ok || !strings.HasPrefix(cmd, "enqueue job --kind rerank ") {
			t.Fatalf("service.RerankCommand(%q) = %q", tt.query, cmd)
		}
		got, err := exec.Command("sh", "-c", "printf '%s' "+quoted).Output()
		if err != nil {
			t.Fatalf("sh: %v", err)
		}
		if string(got) != tt.want {
			t.Errorf("the shell reads %s from %s, want %s", got, quoted, tt.want)
		}
	}
}
