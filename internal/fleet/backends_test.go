package fleet_test

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
)

// runWorkload seeds the workload into a fresh database, runs one worker
// process with env until the queue is idle, stops it and returns the graph.
func runWorkload(t *testing.T, name string, w workload, env map[string]string) graph {
	t.Helper()
	url := pgtest.URL(t)
	pool := openPool(t, url)
	task := seedTask(t, pool, w, w.claims, true)
	proc := startWorker(t, name, workerEnv(url, w.archive, env))
	start := time.Now()
	waitIdle(t, pool, 120*time.Second, proc)
	// Then a ranking of the task's fragments for its hypothesis.
	testfleet.InsertRawJob(t, pool, "rerank", "rerank", fmt.Sprintf(`{"task_id": %d, "top_k": 10}`, task))
	waitIdle(t, pool, 60*time.Second, proc)
	proc.stop(t, 15*time.Second)
	if bad := queryStrings(t, pool, `SELECT concat_ws(' ', id, kind, state, errors::text) FROM river_job
		WHERE state <> 'completed' OR cardinality(errors) > 0 ORDER BY id`); len(bad) > 0 {
		t.Errorf("%s: jobs not completed cleanly: %v", name, bad)
	}
	g := readGraph(t, pool)
	t.Logf("%s: idle after %s: %s", name, time.Since(start).Round(time.Millisecond), g.Summary())
	return g
}

// renameModels replaces model ids in every row, so graphs built by the same
// model behind different transports compare equal.
func renameModels(g graph, names map[string]string) graph {
	out := graph{}
	for table, rows := range g {
		for _, r := range rows {
			for from, to := range names {
				r = strings.ReplaceAll(r, from, to)
			}
			out[table] = append(out[table], r)
		}
	}
	return out
}

// TestHTTPBackendsBuildTheSameGraph runs the same workload three times: on
// the built-in models, and with every capability switched to an HTTP backend
// (TEI embeddings + NLI + Jina rerank + OpenAI-compatible claim extraction;
// then OpenAI-compatible embeddings + NLI + TEI rerank) served by test
// servers that speak the real wire formats and answer with the built-in
// models. Only the transport differs, so the graphs must be equal row for
// row, model ids aside. One thing cannot cross the wire: the built-in NLI's
// hold-backs (models.Judgement.HoldBack, which a served model's answer has
// no field for), so the reference run does not honour them.
func TestHTTPBackendsBuildTheSameGraph(t *testing.T) {
	t.Parallel()
	w := climateWorkload(t, 8)
	servers := testfleet.StartModelServers(t)
	ref := deterministicEnv()
	ref["EVF_NLI_HOLD_BACK"] = "false"
	embedModel := builtin.EmbedderModel
	cases := []struct {
		name   string
		env    map[string]string
		rename map[string]string
	}{
		{
			name: "tei-jina-openai",
			env: map[string]string{
				"EVF_EMBED_BACKEND": "tei", "EVF_EMBED_URL": servers.TEI.URL, "EVF_EMBED_MODEL": "hash",
				"EVF_NLI_BACKEND": "tei", "EVF_NLI_URL": servers.TEI.URL, "EVF_NLI_MODEL": "learned",
				"EVF_RERANK_BACKEND": "jina", "EVF_RERANK_URL": servers.Jina.URL, "EVF_RERANK_MODEL": "bm25",
				"EVF_LLM_BACKEND": "openai", "EVF_LLM_URL": servers.OpenAI.URL + "/v1", "EVF_LLM_MODEL": "sentences",
			},
			rename: map[string]string{"tei:hash": embedModel, "tei:learned": builtin.LearnedNLIModel, "jina:bm25": builtin.BM25RerankerModel},
		},
		{
			name: "openai-tei",
			env: map[string]string{
				"EVF_EMBED_BACKEND": "openai", "EVF_EMBED_URL": servers.OpenAI.URL + "/v1", "EVF_EMBED_MODEL": "hash",
				"EVF_NLI_BACKEND": "openai", "EVF_NLI_URL": servers.OpenAI.URL + "/v1", "EVF_NLI_MODEL": "learned",
				"EVF_RERANK_BACKEND": "tei", "EVF_RERANK_URL": servers.TEI.URL, "EVF_RERANK_MODEL": "bm25",
				"EVF_LLM_BACKEND": "openai", "EVF_LLM_URL": servers.OpenAI.URL + "/v1", "EVF_LLM_MODEL": "sentences",
			},
			rename: map[string]string{"openai:hash": embedModel, "openai-nli:learned+nli.v1": builtin.LearnedNLIModel, "tei:bm25": builtin.BM25RerankerModel},
		},
	}
	// The three runs at once, each on its own database; compared when all
	// have ended.
	var mu sync.Mutex
	graphs := map[string]graph{}
	t.Run("runs", func(t *testing.T) {
		t.Run("builtin", func(t *testing.T) {
			t.Parallel()
			g := runWorkload(t, "builtin", w, ref)
			mu.Lock()
			graphs["builtin"] = g
			mu.Unlock()
		})
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				env := deterministicEnv()
				for k, v := range tc.env {
					env[k] = v
				}
				// The built-in calibrated cosine floor: the served model is the built-in embedder.
				env["EVF_MIN_SIMILARITY"] = strconv.FormatFloat(builtin.EmbedderMinSimilarity, 'g', -1, 64)
				g := renameModels(runWorkload(t, tc.name, w, env), tc.rename)
				mu.Lock()
				graphs[tc.name] = g
				mu.Unlock()
			})
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	want := graphs["builtin"]
	if len(want["claims"]) < 2 || countNLI(want) == 0 || len(want["rankings"]) == 0 {
		t.Fatalf("the reference graph is trivial (%s): the comparison would prove nothing", want.Summary())
	}
	for _, tc := range cases {
		if d := diffGraphs(want, graphs[tc.name], 10); d != "" {
			t.Errorf("%s: the graph differs from the built-in run:\n%s", tc.name, d)
		}
	}
	for _, c := range []struct{ server, path string }{
		{"tei", "/embed"}, {"tei", "/predict"}, {"tei", "/rerank"}, {"jina", "/v1/rerank"},
		{"openai", "/v1/chat/completions"}, {"openai", "/v1/embeddings"},
	} {
		if servers.Calls(c.server, c.path) == 0 {
			t.Errorf("%s %s was never called: the run did not use that backend", c.server, c.path)
		}
	}
}
