package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// TestStatusShowsTheTokensTheServersReported runs a task whose claim
// extraction, embeddings and NLI all go to an OpenAI-compatible server (the
// test servers, whose answers carry usage as such servers report it) and
// checks that `enqueue status` shows exactly the tokens those answers
// reported, read back from the answers as they went on the wire, the
// requests the server received as model calls, and the replayed fetches
// with their bytes.
func TestStatusShowsTheTokensTheServersReported(t *testing.T) {
	t.Parallel()
	servers := testfleet.StartModelServers(t)
	api := servers.OpenAI.URL + "/v1"
	f := testfleet.Start(t, testfleet.Options{Pages: cliPages(), Adjust: func(c *config.Config) {
		c.LLM.Backend, c.LLM.URL, c.LLM.ModelName = "openai", api, "test-llm"
		c.Embed.Backend, c.Embed.URL, c.Embed.ModelName = "openai", api, "hash"
		c.NLI.Backend, c.NLI.URL, c.NLI.ModelName = "openai", api, "learned"
		c.MinSimilarity = 0.05 // the served embedder is the hashed one
	}})
	b := &bundle{ctx: context.Background(), f: f, dir: t.TempDir(), url: f.URL}
	task, _ := b.runTask(t)
	// A job's spending is written once its attempt returns, just after a
	// job that completes itself is seen completed: stopping the worker
	// waits for every attempt, and so for every write.
	if err := f.Client.Stop(b.ctx); err != nil {
		t.Fatal(err)
	}

	var want cost.Counts
	for _, path := range []string{"/v1/chat/completions", "/v1/embeddings"} {
		want.ModelCalls += int64(servers.Calls("openai", path))
		for _, answer := range servers.Answers("openai", path) {
			var u struct {
				Usage *struct {
					PromptTokens     int64 `json:"prompt_tokens"`
					CompletionTokens int64 `json:"completion_tokens"`
				} `json:"usage"`
			}
			if err := json.Unmarshal(answer, &u); err != nil || u.Usage == nil {
				t.Fatalf("an answer of %s has no usage (%v): %.200s", path, err, answer)
			}
			want.TokensIn += u.Usage.PromptTokens
			want.TokensOut += u.Usage.CompletionTokens
		}
	}
	for _, p := range cliPages() {
		want.Fetches++
		want.FetchBytes += int64(len(p.Body))
	}
	if want.TokensIn == 0 || want.TokensOut == 0 || servers.Calls("openai", "/v1/embeddings") == 0 {
		t.Fatalf("the run reported no tokens in or out, or embedded nothing (%+v): the check would prove nothing", want)
	}

	var st struct {
		Costs service.Costs `json:"costs"`
	}
	b.mustRunJSON(t, &st, "status", "--task", fmt.Sprint(task))
	if st.Costs.Total != want {
		t.Errorf("status costs total %+v\nwant (from the answers) %+v", st.Costs.Total, want)
	}
	var sum cost.Counts
	byStage := map[string]cost.Counts{}
	for _, s := range st.Costs.Stages {
		sum = sum.Plus(s.Counts)
		byStage[s.Stage] = s.Counts
	}
	if sum != st.Costs.Total {
		t.Errorf("stages add up to %+v, total says %+v", sum, st.Costs.Total)
	}
	if c := byStage[jobs.KindTargetQueue]; c.TokensOut == 0 || c.Fetches != want.Fetches {
		t.Errorf("target_queue spent %+v: want the claim extraction's tokens out and every fetch", c)
	}
	if c := byStage[jobs.KindEmbed]; c.ModelCalls == 0 || c.TokensIn == 0 || c.TokensOut != 0 {
		t.Errorf("embed spent %+v: want embedding calls with tokens in only", c)
	}
	if c := byStage[jobs.KindVerifyNLI]; c.ModelCalls == 0 || c.TokensOut == 0 {
		t.Errorf("verify_nli spent %+v: want NLI chat calls", c)
	}

	text := b.mustRun(t, "status", "--task", fmt.Sprint(task))
	total := fmt.Sprintf("total %d %d %d %d %d %d %d", want.ModelCalls, want.TokensIn, want.TokensOut,
		want.Searches, want.AcademicCalls, want.Fetches, want.FetchBytes)
	if !strings.Contains(strings.Join(strings.Fields(text), " "), total) {
		t.Errorf("status does not print the total row %q:\n%s", total, text)
	}
}

// TestWriteCosts checks the status table's layout: a header, a row per
// stage in order and the total, or a line when nothing was recorded.
func TestWriteCosts(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	writeCosts(&buf, service.Costs{})
	if got := buf.String(); got != "costs: none recorded\n" {
		t.Errorf("no costs: %q", got)
	}
	buf.Reset()
	embed := cost.Counts{ModelCalls: 3, TokensIn: 1200}
	target := cost.Counts{ModelCalls: 2, TokensIn: 900, TokensOut: 150, Fetches: 3, FetchBytes: 48213}
	writeCosts(&buf, service.Costs{Stages: []service.StageCost{{Stage: "embed", Counts: embed}, {Stage: "target_queue", Counts: target}},
		Total: embed.Plus(target)})
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	want := []string{
		"costs:",
		"stage model calls tokens in tokens out searches academic calls fetches fetched bytes",
		"embed 3 1200 0 0 0 0 0",
		"target_queue 2 900 150 0 0 3 48213",
		"total 5 2100 150 0 0 3 48213",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	width := len(lines[1])
	for i, l := range lines {
		if got := strings.Join(strings.Fields(l), " "); got != want[i] {
			t.Errorf("line %d %q, want the fields %q", i, l, want[i])
		}
		if i > 0 && len(l) != width {
			t.Errorf("line %d is %d wide, the header %d: columns not aligned:\n%s", i, len(l), width, buf.String())
		}
	}
}
