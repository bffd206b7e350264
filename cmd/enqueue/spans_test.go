package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/modelcard"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
	"github.com/evidencefleet/evidencefleet/internal/service"
)

// paraphrase is how the test LLM words every claim: never as its quote.
const paraphrase = "In other words: "

// testLLMModel is the extractor's model id: backend, model and prompt version.
const testLLMModel = "openai:test-llm+extract_claims.v1"

// TestExportedSpansArePageText runs a task whose claims come from an
// OpenAI-compatible extractor that paraphrases its quotes, then checks every
// exported span — claim origins and edge sources in `graph`, the origin
// quotes of `report`, the ranked spans of `materials` — against the page
// version's own text at [start_char, end_char). It also checks that every
// output names the models behind its judgements: the extractor is a trained
// model here, the NLI, embedder and reranker are built-ins, so the baseline
// banner names those and not the extractor.
func TestExportedSpansArePageText(t *testing.T) {
	t.Parallel()
	servers := testfleet.StartModelServers(t)
	servers.EditClaims = func(_ string, claims []models.LLMClaim) []models.LLMClaim {
		for i := range claims {
			claims[i].Claim = paraphrase + strings.ToLower(claims[i].Quote)
		}
		return claims
	}
	f := testfleet.Start(t, testfleet.Options{Pages: cliPages(), Adjust: func(c *config.Config) {
		c.LLM = config.Model{Backend: "openai", URL: servers.OpenAI.URL + "/v1", ModelName: "test-llm",
			Concurrency: 2, Retries: 1, BreakerFailures: 5, BreakerCooldown: time.Second}
	}})
	b := &bundle{ctx: context.Background(), f: f, dir: t.TempDir(), url: f.URL}
	task, _ := b.runTask(t)
	b.mustRun(t, "job", "--kind", "rerank", "--args", fmt.Sprintf(`{"task_id": %d, "top_k": 5}`, task))
	b.mustRun(t, "status", "--task", fmt.Sprint(task), "--wait", "--interval", "50ms", "--timeout", "90s")

	var g service.Graph
	b.mustRunJSON(t, &g, "graph", "--task", fmt.Sprint(task))
	extracted := 0
	for _, c := range g.Claims {
		if c.Kind != "extracted" {
			continue
		}
		extracted++
		if c.Origin == nil {
			t.Fatalf("extracted claim %s has no origin span", c.EvidenceNo)
		}
		if !strings.HasPrefix(c.Text, paraphrase) {
			t.Fatalf("claim %s reads %q: the extractor's wording was not stored", c.EvidenceNo, c.Text)
		}
		o := c.Origin
		if want := b.versionSubstring(t, o.PageVersionID, int(o.StartChar), int(o.EndChar)); o.Text != want {
			t.Errorf("claim %s origin text %q, want the version's text %q", c.EvidenceNo, o.Text, want)
		}
		if c.ExtractorModel == nil || *c.ExtractorModel != testLLMModel {
			t.Errorf("claim %s extractor_model %v, want test-llm", c.EvidenceNo, c.ExtractorModel)
		}
	}
	if extracted == 0 {
		t.Fatal("no extracted claims to check")
	}
	if len(g.Edges) == 0 {
		t.Fatal("no edges to check")
	}
	for _, e := range g.Edges {
		s := e.Source
		if want := b.versionSubstring(t, s.PageVersionID, int(s.StartChar), int(s.EndChar)); s.Text != want {
			t.Errorf("edge %d source text %q, want the version's text %q", e.ID, s.Text, want)
		}
	}

	wantModels := map[string]struct {
		model    string
		baseline bool
	}{
		"claims": {testLLMModel, false},
		"nli":    {builtin.LearnedNLIModel, true},
		"embed":  {builtin.EmbedderModel + "+" + models.PassageFormat, true}, // fragments are embedded as passages
		"rerank": {builtin.BM25RerankerModel, true},
	}
	if len(g.Models) != len(wantModels) {
		t.Errorf("graph models %+v, want one per capability %v", g.Models, wantModels)
	}
	for _, m := range g.Models {
		want, ok := wantModels[m.Capability]
		if !ok || m.Model != want.model || m.Baseline != want.baseline || m.Judgements <= 0 {
			t.Errorf("graph model %+v, want %+v with judgements", m, want)
		}
	}
	if !strings.Contains(g.Notice, builtin.LearnedNLIModel) || strings.Contains(g.Notice, "test-llm") {
		t.Errorf("graph notice %q: want the built-ins named, not the trained extractor", g.Notice)
	}

	report := b.mustRun(t, "report", "--task", fmt.Sprint(task), "--all")
	if first, _, _ := strings.Cut(report, "\n"); first != g.Notice {
		t.Errorf("report starts with %q, want the baseline banner %q", first, g.Notice)
	}
	if !strings.Contains(report, "models: claims "+testLLMModel+" (") || !strings.Contains(report, "nli "+builtin.LearnedNLIModel+" (") {
		t.Errorf("report does not name its models:\n%s", report)
	}
	origins := 0
	for _, line := range strings.Split(report, "\n") {
		if q, ok := strings.CutPrefix(line, "    origin: “"); ok {
			origins++
			if strings.HasPrefix(q, paraphrase) {
				t.Errorf("report origin quotes the claim's wording, not the page: %s", line)
			}
		}
	}
	if origins != extracted {
		t.Errorf("report shows %d origin quotes, want %d", origins, extracted)
	}

	var m service.Materials
	b.mustRunJSON(t, &m, "materials", "--task", fmt.Sprint(task))
	if len(m.Ranking) == 0 {
		t.Fatal("no ranking to check")
	}
	for _, r := range m.Ranking {
		s := r.Span
		if want := b.versionSubstring(t, s.PageVersionID, int(s.StartChar), int(s.EndChar)); s.Text != want {
			t.Errorf("ranked fragment %d text %q, want the version's text %q", r.FragmentID, s.Text, want)
		}
	}
	if m.Notice != modelcard.Banner([]string{builtin.EmbedderModel + "+" + models.PassageFormat, builtin.BM25RerankerModel}) || m.Notice == "" {
		t.Errorf("materials notice %q, want the banner of the built-in embedder and reranker", m.Notice)
	}

	var st service.Status
	b.mustRunJSON(t, &st, "status", "--task", fmt.Sprint(task))
	if len(st.Models) != len(wantModels) || st.Notice != g.Notice {
		t.Errorf("status models %+v notice %q, want the graph's", st.Models, st.Notice)
	}
	if out := b.mustRun(t, "status", "--task", fmt.Sprint(task)); !strings.Contains(out, "models: claims "+testLLMModel+" (") {
		t.Errorf("status does not name its models:\n%s", out)
	}
}

// TestDOTNamesModelsAndCitations renders a small graph: the DOT output is
// labelled with the banner and models and draws every cites edge.
func TestDOTNamesModelsAndCitations(t *testing.T) {
	t.Parallel()
	g := &service.Graph{TaskID: 7, Notice: modelcard.Banner([]string{builtin.LearnedNLIModel}),
		Models:    []service.ModelUse{{Capability: "nli", Model: builtin.LearnedNLIModel, Judgements: 3, Baseline: true}},
		Pages:     []service.GraphPage{{ID: 1, URL: "https://a.example/x"}, {ID: 2, URL: "https://doi.org/10.1/b"}},
		Citations: []service.GraphCitation{{Citing: 1, Cited: 2, Source: "s2,openalex"}}}
	var out strings.Builder
	writeDOT(&out, g)
	dot := out.String()
	if err := checkDOTSyntax(dot); err != nil {
		t.Fatalf("DOT: %v\n%s", err, dot)
	}
	for _, want := range []string{`p1 -> p2 [label="cites s2,openalex", style=dashed`, "nli " + builtin.LearnedNLIModel + " (3 edges)", "BASELINE MODELS"} {
		if !strings.Contains(dot, want) {
			t.Errorf("DOT lacks %q:\n%s", want, dot)
		}
	}
	if _, err := json.Marshal(g); err != nil {
		t.Fatal(err)
	}
}
