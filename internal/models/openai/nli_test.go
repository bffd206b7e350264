package openaibackend

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// nliReply answers an NLI prompt by the hypothesis: "… is true" entails,
// "… is false" contradicts, anything else is neutral.
func nliReply(t *testing.T, c chatCall) string {
	h := between(t, c.User, "<<<BEGIN HYPOTHESIS", "END HYPOTHESIS>>>")
	switch {
	case strings.HasSuffix(h, "is true."):
		return `{"label":"entailment","confidence":0.9}`
	case strings.HasSuffix(h, "is false."):
		return `{"label":"contradiction","confidence":0.8}`
	}
	return `{"label":"neutral","confidence":0.55}`
}

func TestNLIJudgesPairsConcurrentlyWithinTheBound(t *testing.T) {
	t.Parallel()
	const limit = 2
	var (
		mu       sync.Mutex
		inflight int
		peak     int
		gate     = make(chan struct{}) // closed once limit requests were in flight together
		gateOnce sync.Once
	)
	srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) {
		if c.Schema != "nli_judgement" {
			t.Errorf("schema %q, want nli_judgement", c.Schema)
		}
		mu.Lock()
		inflight++
		peak = max(peak, inflight)
		if inflight == limit {
			gateOnce.Do(func() { close(gate) })
		}
		mu.Unlock()
		select {
		case <-gate:
		case <-time.After(10 * time.Second): // safety net against a hang; the test fails below
		}
		answer(w, nliReply(t, c))
		mu.Lock()
		inflight--
		mu.Unlock()
	})
	m := metrics.New()
	n, err := NewNLI(Options{BaseURL: srv.URL + "/v1", Model: llmModel, Concurrency: limit, Observer: m})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := n.Model(), "openai-nli:qwen2.5:7b-instruct+nli.v1"; got != want {
		t.Errorf("Model() = %q, want %q", got, want)
	}
	pairs := []models.Pair{
		{Premise: "Measurements show it.", Hypothesis: "Claim one is true."},
		{Premise: "Measurements refute it.", Hypothesis: "Claim two is false."},
		{Premise: "An unrelated passage.", Hypothesis: "Claim three is unclear."},
		{Premise: "More evidence.", Hypothesis: "Claim four is true."},
		{Premise: "Other evidence.", Hypothesis: "Claim five is false."},
	}
	got, err := n.Judge(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	sup, ref := models.Judgement{Label: models.Supports, Confidence: 0.9}, models.Judgement{Label: models.Refutes, Confidence: 0.8}
	want := []models.Judgement{sup, ref, {Label: models.Neutral, Confidence: 0.55}, sup, ref}
	if len(got) != len(want) {
		t.Fatalf("%d judgements for %d pairs", len(got), len(pairs))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pair %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	select {
	case <-gate:
	default:
		t.Errorf("never %d requests in flight together: pairs were not judged concurrently", limit)
	}
	if peak > limit {
		t.Errorf("%d requests in flight, bound %d", peak, limit)
	}
	if v := metricValue(t, m, "evidencefleet_model_tokens_total", map[string]string{"backend": "openai", "capability": "nli", "type": "prompt"}); v != 500 {
		t.Errorf("nli prompt tokens %v, want 500", v)
	}
	if got, err := n.Judge(context.Background(), nil); err != nil || len(got) != 0 {
		t.Errorf("Judge(nil) = %v, %v", got, err)
	}
}

func TestNLIUnusableAnswerMakesItsPairUnjudgeable(t *testing.T) {
	t.Parallel()
	cases := []struct{ content, want string }{
		{`{"label":"ENTAILMENT","confidence":0.9}`, `label "ENTAILMENT"`},
		{`{"label":"supports","confidence":0.9}`, `label "supports"`},
		{`{"label":"neutral","confidence":1.2}`, "confidence 1.2 outside [0,1]"},
		{`{"label":"neutral"}`, `lacks "label" or "confidence"`},
		{`{"confidence":0.5}`, `lacks "label" or "confidence"`},
		{`neutral`, "not JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.content, func(t *testing.T) {
			srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) {
				if strings.Contains(c.User, "second") {
					answer(w, tc.content)
					return
				}
				answer(w, `{"label":"neutral","confidence":0.5}`)
			})
			n, err := NewNLI(Options{BaseURL: srv.URL + "/v1", Model: llmModel})
			if err != nil {
				t.Fatal(err)
			}
			// The unusable answer makes its pair unjudgeable; the other is judged.
			got, err := n.Judge(context.Background(), []models.Pair{{Premise: "p", Hypothesis: "first"}, {Premise: "p", Hypothesis: "second"}})
			want := []models.Judgement{{Label: models.Neutral, Confidence: 0.5}, {Label: models.Unjudgeable}}
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("Judge = %v, %v; want %v", got, err, want)
			}
			if _, err := parseJudgement(tc.content); !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("parseJudgement(%s) = %v; want ErrBadResponse naming %q", tc.content, err, tc.want)
			}
		})
	}
	t.Run("server error", func(t *testing.T) {
		srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) { apiError(w, http.StatusBadGateway, "upstream") })
		n, err := NewNLI(Options{BaseURL: srv.URL + "/v1", Model: llmModel})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := n.Judge(context.Background(), []models.Pair{{Premise: "p", Hypothesis: "h"}}); !errors.Is(err, remoteerr.ErrUnavailable) || got != nil {
			t.Errorf("Judge = %v, %v; want ErrUnavailable", got, err)
		}
	})
}
