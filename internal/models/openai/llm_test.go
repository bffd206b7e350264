package openaibackend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// claimJSON is one claim of an extraction answer.
type claimJSON struct {
	Claim      string  `json:"claim"`
	Quote      string  `json:"quote"`
	Confidence float64 `json:"confidence"`
}

// claimsContent is an extraction answer's content.
func claimsContent(cs ...claimJSON) string {
	if cs == nil {
		cs = []claimJSON{}
	}
	b, _ := json.Marshal(map[string]any{"claims": cs})
	return string(b)
}

// firstSentence returns s up to and including its first ". ".
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

const llmModel = "qwen2.5:7b-instruct"

func TestExtractClaimsHappyPath(t *testing.T) {
	t.Parallel()
	page := "The Eiffel Tower is 330 metres tall. It was completed in 1889.\n\nParis is the capital of France."
	seed := 42
	want := chatWant{Model: llmModel, APIKey: "sk-test", Seed: &seed}
	srv := chatServer(t, want, func(w http.ResponseWriter, c chatCall) {
		if c.Schema != "claims" {
			t.Errorf("schema %q, want claims", c.Schema)
		}
		if !strings.Contains(c.User, "https://example.org/eiffel") || !strings.Contains(c.User, "Eiffel Tower – facts") {
			t.Errorf("user prompt lacks URL or title: %q", c.User)
		}
		if got := between(t, c.User, "<<<BEGIN PAGE TEXT", "END PAGE TEXT>>>"); got != page {
			t.Errorf("page text in the prompt %q, want %q", got, page)
		}
		if strings.Contains(c.User, "part 1 of") {
			t.Errorf("a single piece is announced as a part: %q", c.User)
		}
		if !strings.Contains(c.System, "at most 3 claims") {
			t.Errorf("system prompt does not pass MaxClaims 3: %q", c.System)
		}
		answer(w, claimsContent(
			claimJSON{"The Eiffel Tower is 330 metres tall.", "The Eiffel Tower is 330 metres tall.", 0.95},
			claimJSON{"The Eiffel Tower was completed in 1889.", " It was completed in 1889. ", 0.9},
		))
	})
	m := metrics.New()
	l, err := NewLLM(Options{BaseURL: srv.URL + "/v1/", Model: llmModel, APIKey: "sk-test", Seed: &seed, Observer: m})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.Model(), "openai:qwen2.5:7b-instruct+extract_claims.v1"; got != want {
		t.Errorf("Model() = %q, want %q", got, want)
	}
	got, err := l.ExtractClaims(context.Background(), models.ClaimRequest{URL: "https://example.org/eiffel", Title: "Eiffel Tower – facts", Text: page, MaxClaims: 3})
	if err != nil {
		t.Fatal(err)
	}
	wantClaims := []models.LLMClaim{
		{Claim: "The Eiffel Tower is 330 metres tall.", Quote: "The Eiffel Tower is 330 metres tall.", Confidence: 0.95},
		{Claim: "The Eiffel Tower was completed in 1889.", Quote: "It was completed in 1889.", Confidence: 0.9},
	}
	if fmt.Sprint(got) != fmt.Sprint(wantClaims) {
		t.Errorf("claims %+v, want %+v", got, wantClaims)
	}
	for typ, n := range map[string]float64{"prompt": 100, "completion": 20} {
		if v := metricValue(t, m, "evidencefleet_model_tokens_total", map[string]string{"backend": "openai", "capability": "llm", "type": typ}); v != n {
			t.Errorf("%s tokens %v, want %v", typ, v, n)
		}
	}
}

// paragraphPage is a page of n paragraphs; paragraph i states value i and
// the model's confidence for it will be i/(n+1).
func paragraphPage(n int) string {
	var ps []string
	for i := 1; i <= n; i++ {
		ps = append(ps, fmt.Sprintf("Paragraph %d states that measurement %d equals %d units. A second sentence adds context to paragraph %d.", i, i, 7*i, i))
	}
	return strings.Join(ps, "\n\n")
}

// paragraphNumber reads the number of the paragraph a piece starts with.
func paragraphNumber(t *testing.T, chunk string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscanf(chunk, "Paragraph %d", &n); err != nil {
		t.Errorf("piece does not start at a paragraph: %q", chunk)
	}
	return n
}

func TestExtractClaimsChunksLongPagesAndMerges(t *testing.T) {
	t.Parallel()
	const limit = 250
	const paras = 9
	page := paragraphPage(paras)
	var calls atomic.Int64
	srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) {
		calls.Add(1)
		chunk := between(t, c.User, "<<<BEGIN PAGE TEXT", "END PAGE TEXT>>>")
		if n := utf8.RuneCountInString(chunk); n > limit {
			t.Errorf("piece of %d characters, limit %d", n, limit)
		}
		if !strings.Contains(page, chunk) {
			t.Errorf("piece is not a substring of the page: %q", chunk)
		}
		if !strings.Contains(c.User, "This is part ") {
			t.Errorf("piece of a long page not announced as a part: %q", c.User)
		}
		p := paragraphNumber(t, chunk)
		q := firstSentence(chunk)
		answer(w, claimsContent(claimJSON{Claim: "Measurement " + strconv.Itoa(p) + " is known.", Quote: q, Confidence: float64(p) / (paras + 1)}))
	})
	l, err := NewLLM(Options{BaseURL: srv.URL + "/v1", Model: llmModel, MaxChunkChars: limit, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	all, err := l.ExtractClaims(context.Background(), models.ClaimRequest{URL: "u", Text: page, MaxClaims: 100})
	if err != nil {
		t.Fatal(err)
	}
	pieces := splitChunks(page, limit)
	if len(pieces) < 3 || int(calls.Load()) != len(pieces) || len(all) != len(pieces) {
		t.Fatalf("%d pieces, %d requests, %d claims; want ≥ 3 pieces and one request and claim each", len(pieces), calls.Load(), len(all))
	}
	last := -1
	for _, c := range all {
		at := strings.Index(page, c.Quote)
		if at <= last {
			t.Errorf("claims not in page order: %q at %d after %d", c.Quote, at, last)
		}
		last = at
	}
	// A cap below the number of pieces keeps the most confident claims
	// (the later paragraphs here), still in page order.
	capped, err := l.ExtractClaims(context.Background(), models.ClaimRequest{URL: "u", Text: page, MaxClaims: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(capped) != 2 || capped[0] != all[len(all)-2] || capped[1] != all[len(all)-1] {
		t.Errorf("capped to 2: %+v, want the two most confident %+v", capped, all[len(all)-2:])
	}
}

func TestExtractClaimsDropsRepeatsAndCutsOverDelivery(t *testing.T) {
	t.Parallel()
	page := paragraphPage(4)
	srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) {
		// Every piece repeats the same claim (spacing and case differ),
		// then adds four of its own.
		p := paragraphNumber(t, between(t, c.User, "<<<BEGIN PAGE TEXT", "END PAGE TEXT>>>"))
		cs := []claimJSON{{Claim: "Water  boils at 100 °C at sea level.", Quote: "x", Confidence: 0.5}}
		if p%2 == 0 {
			cs[0].Claim = "water boils at 100 °C at sea level."
		}
		for k := range 4 {
			cs = append(cs, claimJSON{Claim: fmt.Sprintf("Claim %d.%d", p, k), Quote: "q", Confidence: 0.5})
		}
		answer(w, claimsContent(cs...))
	})
	l, err := NewLLM(Options{BaseURL: srv.URL + "/v1", Model: llmModel, MaxChunkChars: 150})
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.ExtractClaims(context.Background(), models.ClaimRequest{Text: page, MaxClaims: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Each piece's answer is cut to 3 (the repeat + 2 own); the repeats
	// collapse to one; the merged list is cut to 3, ties kept in page order.
	if len(got) != 3 || got[0].Claim != "Water  boils at 100 °C at sea level." || got[1].Claim != "Claim 1.0" || got[2].Claim != "Claim 1.1" {
		t.Errorf("claims %+v", got)
	}
}

func TestExtractClaimsWithoutRequest(t *testing.T) {
	t.Parallel()
	srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) {
		t.Errorf("unexpected request: %s", c.Body)
		answer(w, claimsContent())
	})
	l, err := NewLLM(Options{BaseURL: srv.URL + "/v1", Model: llmModel})
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []models.ClaimRequest{{Text: "Some text.", MaxClaims: 0}, {Text: " \n\t ", MaxClaims: 5}} {
		if got, err := l.ExtractClaims(context.Background(), req); err != nil || len(got) != 0 {
			t.Errorf("ExtractClaims(%+v) = %v, %v; want nothing", req, got, err)
		}
	}
	if got, err := l.Relevance(context.Background(), "query", "   "); err != nil || got != 0 {
		t.Errorf("Relevance of a blank text = %v, %v; want 0, nil", got, err)
	}
}

func TestExtractClaimsToleratesWrappedJSON(t *testing.T) {
	t.Parallel()
	obj := claimsContent(claimJSON{"A claim.", "A quote.", 0.7})
	for name, content := range map[string]string{
		"json fence":        "```json\n" + obj + "\n```",
		"bare fence":        "```\n" + obj + "\n```\n",
		"one-line fence":    "```json" + obj + "```",
		"think block":       "<think>The page says A.</think>\n\n" + obj,
		"padded whitespace": "\n\n  " + obj + "\n\n\n",
	} {
		t.Run(name, func(t *testing.T) {
			srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) { answer(w, content) })
			l, err := NewLLM(Options{BaseURL: srv.URL + "/v1", Model: llmModel})
			if err != nil {
				t.Fatal(err)
			}
			got, err := l.ExtractClaims(context.Background(), models.ClaimRequest{Text: "A quote.", MaxClaims: 5})
			if err != nil || len(got) != 1 || got[0] != (models.LLMClaim{Claim: "A claim.", Quote: "A quote.", Confidence: 0.7}) {
				t.Errorf("got %+v, %v", got, err)
			}
		})
	}
}

// garbageAnswers are well-formed HTTP answers (status 200) whose chat
// content (or envelope) is unusable. content answers are content errors
// (Relevance falls back); body answers break the envelope (always errors).
var garbageAnswers = []struct {
	name    string
	content string // sent as the message content with finish_reason stop, unless body is set
	body    []byte // the whole response body
	want    string // part of the error message
	relOK   bool   // the content is a valid relevance answer (skip it there)
}{
	{name: "prose instead of JSON", content: "Here are the claims: the tower is tall.", want: "not JSON"},
	{name: "missing field", content: `{"claims":[{"claim":"a","quote":"b"}]}`, want: `lacks "claim", "quote" or "confidence"`, relOK: false},
	{name: "wrong type", content: `{"claims":[{"claim":"a","quote":"b","confidence":"high"}]}`, want: "not JSON of the schema's shape"},
	{name: "confidence above 1", content: `{"claims":[{"claim":"a","quote":"b","confidence":1.5}]}`, want: "confidence 1.5 outside [0,1]"},
	{name: "confidence below 0", content: `{"claims":[{"claim":"a","quote":"b","confidence":-0.1}]}`, want: "confidence -0.1 outside [0,1]"},
	{name: "confidence as percent", content: `{"claims":[{"claim":"a","quote":"b","confidence":85}]}`, want: "confidence 85 outside [0,1]"},
	{name: "unknown field", content: `{"claims":[],"note":"none found"}`, want: `unknown field "note"`},
	{name: "two objects", content: `{"claims":[]} {"claims":[]}`, want: "data after the JSON object"},
	{name: "claims null", content: `{"claims":null}`, want: `no "claims" array`},
	{name: "empty object", content: `{}`, want: `no "claims" array`},
	{name: "claims not an array", content: `{"claims":"none"}`, want: "not JSON of the schema's shape"},
	{name: "empty claim", content: `{"claims":[{"claim":" ","quote":"b","confidence":0.5}]}`, want: "claims[0] has an empty claim"},
	{name: "empty quote", content: `{"claims":[{"claim":"a","quote":"","confidence":0.5}]}`, want: "claims[0] has an empty quote"},
	{name: "truncated by max_tokens", body: completion(assistant(`{"claims":[{"claim":"The tower","quo`), "length", 100, 4096), want: `finish_reason "length"`},
	{name: "refusal", body: completion(map[string]any{"role": "assistant", "content": nil, "refusal": "I can't help with that."}, "stop", 10, 5), want: "refused"},
	{name: "content filter", body: completion(assistant(""), "content_filter", 10, 0), want: "content filter"},
	{name: "empty content", body: completion(assistant(""), "stop", 10, 0), want: "content is empty"},
	{name: "no choices", body: []byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1731000000,"model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":0,"total_tokens":1}}`), want: "no choices"},
	{name: "body not JSON", body: []byte("<html><body>502 Bad Gateway</body></html>"), want: "not a chat.completion object"},
	{name: "body truncated", body: completion(assistant(`{"claims":[]}`), "stop", 1, 1)[:40], want: "not a chat.completion object"},
}

func TestExtractClaimsRejectsGarbage(t *testing.T) {
	t.Parallel()
	for _, tc := range garbageAnswers {
		t.Run(tc.name, func(t *testing.T) {
			srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) {
				if tc.body != nil {
					writeJSON(w, tc.body)
					return
				}
				answer(w, tc.content)
			})
			m := metrics.New()
			l, err := NewLLM(Options{BaseURL: srv.URL + "/v1", Model: llmModel, Observer: m})
			if err != nil {
				t.Fatal(err)
			}
			got, err := l.ExtractClaims(context.Background(), models.ClaimRequest{Text: "The tower is tall.", MaxClaims: 5})
			if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ExtractClaims = %+v, %v; want ErrBadResponse containing %q", got, err, tc.want)
			}
			if v := metricValue(t, m, "evidencefleet_model_errors_total", map[string]string{"backend": "openai", "capability": "llm", "kind": "bad_response"}); v != 1 {
				t.Errorf("bad_response errors %v, want 1", v)
			}
		})
	}
}

func TestRelevance(t *testing.T) {
	t.Parallel()
	cases := []struct {
		content string
		want    float64
	}{
		{`{"score": 7}`, 7},
		{`{"score": 7.5}`, 7.5},
		{`{"score": 0}`, 0},
		{`{"score": 12}`, 10},
		{`{"score": -3}`, 0},
	}
	for _, tc := range cases {
		t.Run(tc.content, func(t *testing.T) {
			srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) {
				if c.Schema != "relevance" {
					t.Errorf("schema %q, want relevance", c.Schema)
				}
				if !strings.Contains(c.User, "Query: effects of ocean warming on coral") ||
					between(t, c.User, "<<<BEGIN TEXT", "END TEXT>>>") != "Coral bleaching rises with sea temperature." {
					t.Errorf("user prompt lacks query or text: %q", c.User)
				}
				answer(w, tc.content)
			})
			l, err := NewLLM(Options{BaseURL: srv.URL + "/v1", Model: llmModel})
			if err != nil {
				t.Fatal(err)
			}
			got, err := l.Relevance(context.Background(), "effects of ocean warming on coral", "Coral bleaching rises with sea temperature.")
			if err != nil || got != tc.want {
				t.Errorf("Relevance = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestCitationRelevance: the prompt carries the hypothesis and both
// papers, each cut to its first piece; the answer is read like Relevance's.
func TestCitationRelevance(t *testing.T) {
	t.Parallel()
	const limit = 120
	source := paragraphPage(5)
	srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) {
		if c.Schema != "citation_relevance" {
			t.Errorf("schema %q, want citation_relevance", c.Schema)
		}
		if !strings.Contains(c.User, "Hypothesis: Warming oceans bleach corals.\n") {
			t.Errorf("user prompt lacks the hypothesis: %q", c.User)
		}
		if got := between(t, c.User, "<<<BEGIN SOURCE PAPER", "END SOURCE PAPER>>>"); utf8.RuneCountInString(got) > limit || got == "" || !strings.HasPrefix(source, got) {
			t.Errorf("source in the prompt %q: want a prefix of the source of at most %d characters", got, limit)
		}
		if got := between(t, c.User, "<<<BEGIN CANDIDATE PAPER", "END CANDIDATE PAPER>>>"); got != "Coral bleaching rises with sea temperature." {
			t.Errorf("candidate in the prompt %q", got)
		}
		answer(w, `{"score": 12}`)
	})
	l, err := NewLLM(Options{BaseURL: srv.URL + "/v1", Model: llmModel, MaxChunkChars: limit})
	if err != nil {
		t.Fatal(err)
	}
	q := models.CitationQuestion{Hypothesis: "Warming oceans bleach corals.", Source: source, Candidate: "Coral bleaching rises with sea temperature."}
	if got, err := l.CitationRelevance(context.Background(), q); err != nil || got != 10 {
		t.Errorf("CitationRelevance = %v, %v; want 10 (clamped)", got, err)
	}
	q.Candidate = " "
	if got, err := l.CitationRelevance(context.Background(), q); err != nil || got != 0 {
		t.Errorf("CitationRelevance of a blank candidate = %v, %v; want 0 without a request", got, err)
	}
}

func TestRelevanceCutsLongText(t *testing.T) {
	t.Parallel()
	const limit = 120
	text := paragraphPage(5)
	srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) {
		got := between(t, c.User, "<<<BEGIN TEXT", "END TEXT>>>")
		if utf8.RuneCountInString(got) > limit || !strings.HasPrefix(text, got) {
			t.Errorf("text in the prompt %q: want a prefix of the text of at most %d characters", got, limit)
		}
		answer(w, `{"score": 3}`)
	})
	l, err := NewLLM(Options{BaseURL: srv.URL + "/v1", Model: llmModel, MaxChunkChars: limit})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := l.Relevance(context.Background(), "q", text); err != nil || got != 3 {
		t.Errorf("Relevance = %v, %v; want 3", got, err)
	}
}

func TestRelevanceFallsBackOnlyOnUnusableContent(t *testing.T) {
	t.Parallel()
	for _, tc := range garbageAnswers {
		t.Run(tc.name, func(t *testing.T) {
			content := tc.content
			if content != "" {
				// The extraction garbage, reshaped for the relevance schema.
				content = strings.ReplaceAll(content, `"claims"`, `"scores"`)
			}
			srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) {
				if tc.body != nil {
					writeJSON(w, tc.body)
					return
				}
				answer(w, content)
			})
			m := metrics.New()
			l, err := NewLLM(Options{BaseURL: srv.URL + "/v1", Model: llmModel, Observer: m})
			if err != nil {
				t.Fatal(err)
			}
			got, err := l.Relevance(context.Background(), "q", "some text")
			envelope := tc.name == "no choices" || strings.HasPrefix(tc.name, "body ")
			switch {
			case envelope && (!errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("broken envelope: Relevance = %v, %v; want ErrBadResponse containing %q", got, err, tc.want)
			case !envelope && (err != nil || got != NeutralRelevance):
				t.Errorf("unusable content: Relevance = %v, %v; want %v, nil", got, err, NeutralRelevance)
			}
			if v := metricValue(t, m, "evidencefleet_model_errors_total", map[string]string{"backend": "openai", "capability": "llm", "kind": "bad_response"}); v != 1 {
				t.Errorf("bad_response errors %v, want 1", v)
			}
		})
	}
	for _, status := range []int{http.StatusInternalServerError, http.StatusTooManyRequests, http.StatusBadRequest} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			srv := chatServer(t, chatWant{Model: llmModel}, func(w http.ResponseWriter, c chatCall) { apiError(w, status, "nope") })
			l, err := NewLLM(Options{BaseURL: srv.URL + "/v1", Model: llmModel})
			if err != nil {
				t.Fatal(err)
			}
			want := remoteerr.ErrUnavailable
			if status == http.StatusBadRequest {
				want = remoteerr.ErrRejected
			}
			if got, err := l.Relevance(context.Background(), "q", "text"); !errors.Is(err, want) {
				t.Errorf("Relevance = %v, %v; want %v", got, err, want)
			}
		})
	}
}
