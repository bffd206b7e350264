package openaibackend

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

const splitHypothesis = "Glaciers are retreating worldwide because of rising temperatures."

// TestSplitHypothesis: the prompt carries the hypothesis and the bound;
// the sub-claims come back trimmed, without repeats or a restatement of
// the hypothesis, and SplitModel names the prompt.
func TestSplitHypothesis(t *testing.T) {
	t.Parallel()
	srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) {
		if c.Schema != "split_hypothesis" {
			t.Errorf("schema %q, want split_hypothesis", c.Schema)
		}
		if got := between(t, c.User, "<<<BEGIN HYPOTHESIS", "END HYPOTHESIS>>>"); got != splitHypothesis {
			t.Errorf("hypothesis in the prompt %q", got)
		}
		if !strings.Contains(c.System, "at most 5 sub-claims") {
			t.Errorf("system prompt does not bound the sub-claims: %q", c.System)
		}
		answer(w, `{"sub_claims":[" Glaciers are retreating worldwide. ","Global temperatures are rising.","global  temperatures are rising.","`+splitHypothesis+`"]}`)
	})
	l, err := NewLLM(Options{BaseURL: srv.URL + "/v1", Model: llmModel})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.SplitModel(), "openai:"+llmModel+"+split_hypothesis.v1"; got != want {
		t.Errorf("SplitModel() = %q, want %q", got, want)
	}
	got, err := l.SplitHypothesis(context.Background(), splitHypothesis)
	want := []string{"Glaciers are retreating worldwide.", "Global temperatures are rising."}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("SplitHypothesis = %q, %v; want %q", got, err, want)
	}
	if got, err := l.SplitHypothesis(context.Background(), "  "); err != nil || got != nil {
		t.Errorf("SplitHypothesis of a blank hypothesis = %q, %v; want none without a request", got, err)
	}
}

// TestSplitHypothesisAtomic: an empty list is an answer (the hypothesis is
// one fact).
func TestSplitHypothesisAtomic(t *testing.T) {
	t.Parallel()
	srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, _ chatCall) { answer(w, `{"sub_claims":[]}`) })
	l, err := NewLLM(Options{BaseURL: srv.URL + "/v1", Model: llmModel})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := l.SplitHypothesis(context.Background(), "Water boils at 100 °C at sea level."); err != nil || len(got) != 0 {
		t.Errorf("SplitHypothesis = %q, %v; want no sub-claims", got, err)
	}
}

// TestSplitHypothesisRefusesJunk: an unusable answer proposes nothing and
// fails with ErrBadResponse naming the fault.
func TestSplitHypothesisRefusesJunk(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, content, want string }{
		{"prose", "The hypothesis depends on two facts.", "not JSON"},
		{"too many", `{"sub_claims":["a.","b.","c.","d.","e.","f."]}`, "6 sub-claims, more than the 5 asked for"},
		{"empty string", `{"sub_claims":["Glaciers retreat.","  "]}`, "sub_claims[1] is empty"},
		{"null item", `{"sub_claims":[null]}`, "sub_claims[0] is empty"},
		{"over long", `{"sub_claims":["` + strings.Repeat("x", 2001) + `"]}`, "more than the 2000 allowed"},
		{"missing array", `{}`, `no "sub_claims" array`},
		{"wrong type", `{"sub_claims":"none"}`, "not JSON of the schema's shape"},
		{"unknown field", `{"sub_claims":[],"why":"x"}`, `unknown field "why"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, _ chatCall) { answer(w, tc.content) })
			m := metrics.New()
			l, err := NewLLM(Options{BaseURL: srv.URL + "/v1", Model: llmModel, Observer: m})
			if err != nil {
				t.Fatal(err)
			}
			got, err := l.SplitHypothesis(context.Background(), splitHypothesis)
			if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), tc.want) || got != nil {
				t.Fatalf("SplitHypothesis = %q, %v; want ErrBadResponse containing %q", got, err, tc.want)
			}
			if v := metricValue(t, m, "evidencefleet_model_errors_total", map[string]string{"backend": "openai", "capability": "llm", "kind": "bad_response"}); v != 1 {
				t.Errorf("bad_response errors %v, want 1", v)
			}
		})
	}
}
