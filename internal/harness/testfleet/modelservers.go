package testfleet

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
)

// ModelServers are httptest servers that speak the documented wire formats
// of an OpenAI-compatible server (/v1/chat/completions with json_schema
// response formats, /v1/embeddings), Hugging Face text-embeddings-inference
// (/embed, /predict, /rerank) and a Jina-style reranker (/v1/rerank),
// answering with the built-in models. A fleet configured with its HTTP
// backends against them must build the same graph as with the built-ins:
// only the transport differs.
type ModelServers struct {
	OpenAI *httptest.Server
	TEI    *httptest.Server
	Jina   *httptest.Server

	// EditClaims, when set, may change the claims the chat server answers
	// for a page text (e.g. add one whose quote is not in the page).
	EditClaims func(pageText string, claims []models.LLMClaim) []models.LLMClaim

	embedder *builtin.HybridEmbedder
	nli      *builtin.LearnedNLI
	reranker *builtin.BM25Reranker
	llm      *builtin.SentenceLLM

	mu       sync.Mutex
	calls    map[string]int      // "server path" → requests
	answers  map[string][][]byte // "server path" → bodies of the 2xx answers
	requests map[string][][]byte // "server path" → bodies of the requests
}

// StartModelServers starts the servers; they stop when the test ends.
func StartModelServers(t testing.TB) *ModelServers {
	t.Helper()
	nli, err := builtin.NewLearnedNLI()
	if err != nil {
		t.Fatal(err)
	}
	embedder, err := builtin.NewHybridEmbedder(0)
	if err != nil {
		t.Fatal(err)
	}
	s := &ModelServers{embedder: embedder, nli: nli,
		reranker: builtin.NewBM25Reranker(), llm: builtin.NewSentenceLLM(), calls: map[string]int{}, answers: map[string][][]byte{}, requests: map[string][][]byte{}}
	oai := http.NewServeMux()
	oai.HandleFunc("POST /v1/chat/completions", s.chat)
	oai.HandleFunc("POST /v1/embeddings", s.embeddings)
	s.OpenAI = httptest.NewServer(s.count("openai", oai))
	tei := http.NewServeMux()
	tei.HandleFunc("POST /embed", s.teiEmbed)
	tei.HandleFunc("POST /predict", s.teiPredict)
	tei.HandleFunc("POST /rerank", s.teiRerank)
	s.TEI = httptest.NewServer(s.count("tei", tei))
	jina := http.NewServeMux()
	jina.HandleFunc("POST /v1/rerank", s.jinaRerank)
	s.Jina = httptest.NewServer(s.count("jina", jina))
	t.Cleanup(func() { s.OpenAI.Close(); s.TEI.Close(); s.Jina.Close() })
	return s
}

// Calls returns how many requests server ("openai", "tei", "jina") got on path.
func (s *ModelServers) Calls(server, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[server+" "+path]
}

// Answers returns the bodies of the 2xx answers server ("openai", "tei",
// "jina") sent on path, in order, as they went on the wire (a test reads
// the usage they reported).
func (s *ModelServers) Answers(server, path string) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.answers[server+" "+path])
}

// Requests returns the bodies of the requests server ("openai", "tei",
// "jina") got on path, in order, as they came on the wire (a test reads
// what a prompt carried).
func (s *ModelServers) Requests(server, path string) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests[server+" "+path])
}

func (s *ModelServers) count(server string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := server + " " + r.URL.Path
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.mu.Lock()
		s.calls[key]++
		s.requests[key] = append(s.requests[key], body)
		s.mu.Unlock()
		rec := &answerRecorder{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		if rec.status < 300 {
			s.mu.Lock()
			s.answers[key] = append(s.answers[key], rec.body.Bytes())
			s.mu.Unlock()
		}
	})
}

// answerRecorder keeps a copy of the status and body it writes.
type answerRecorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (a *answerRecorder) WriteHeader(status int) {
	a.status = status
	a.ResponseWriter.WriteHeader(status)
}

func (a *answerRecorder) Write(p []byte) (int, error) {
	a.body.Write(p)
	return a.ResponseWriter.Write(p)
}

// teiError answers like TEI: {"error": …, "error_type": …}.
func teiError(w http.ResponseWriter, status int, format string, args ...any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": fmt.Sprintf(format, args...), "error_type": "Validation"})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// decodeStrictly reads a TEI request body, refusing unknown fields as TEI does.
func decodeStrictly(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		teiError(w, http.StatusUnprocessableEntity, "Failed to deserialize the JSON body: %v", err)
		return false
	}
	return true
}

// stringOrList reads a JSON string or array of strings.
func stringOrList(raw json.RawMessage) ([]string, bool) {
	var list []string
	if err := json.Unmarshal(raw, &list); err == nil {
		return list, true
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, true
	}
	return nil, false
}

// teiEmbed: POST /embed {"inputs": [..], "normalize", "truncate", …} → [[f32]].
func (s *ModelServers) teiEmbed(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Inputs              json.RawMessage `json:"inputs"`
		Normalize           *bool           `json:"normalize"`
		Truncate            *bool           `json:"truncate"`
		TruncationDirection string          `json:"truncation_direction"`
		PromptName          *string         `json:"prompt_name"`
		Dimensions          *int            `json:"dimensions"`
	}
	if !decodeStrictly(w, r, &req) {
		return
	}
	texts, ok := stringOrList(req.Inputs)
	if !ok || len(texts) == 0 {
		teiError(w, http.StatusUnprocessableEntity, "`inputs` must be a string or a non-empty list of strings")
		return
	}
	vecs, err := s.embedder.Embed(r.Context(), texts)
	if err != nil {
		teiError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	writeJSON(w, vecs)
}

// nliLabelName is the label name of an NLI cross-encoder for a relation.
var nliLabelName = map[string]string{models.Supports: "entailment", models.Refutes: "contradiction", models.Neutral: "neutral"}

// teiPredict: POST /predict {"inputs": [[premise, hypothesis], …]} → one
// list of {"label","score"} per pair, sorted by score as TEI sorts them.
// The built-in NLI gives its top label and probability; the rest is split
// evenly between the other two labels.
func (s *ModelServers) teiPredict(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Inputs              [][]string `json:"inputs"`
		RawScores           *bool      `json:"raw_scores"`
		Truncate            *bool      `json:"truncate"`
		TruncationDirection string     `json:"truncation_direction"`
	}
	if !decodeStrictly(w, r, &req) {
		return
	}
	pairs := make([]models.Pair, len(req.Inputs))
	for i, in := range req.Inputs {
		if len(in) != 2 {
			teiError(w, http.StatusUnprocessableEntity, "inputs[%d]: want a [premise, hypothesis] pair", i)
			return
		}
		pairs[i] = models.Pair{Premise: in[0], Hypothesis: in[1]}
	}
	js, err := s.nli.Judge(r.Context(), pairs)
	if err != nil {
		teiError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	type labelScore struct {
		Label string  `json:"label"`
		Score float64 `json:"score"`
	}
	out := make([][]labelScore, len(js))
	for i, j := range js {
		rest := (1 - j.Confidence) / 2
		row := []labelScore{{nliLabelName[j.Label], j.Confidence}}
		for _, l := range []string{models.Refutes, models.Supports, models.Neutral} {
			if l != j.Label {
				row = append(row, labelScore{nliLabelName[l], rest})
			}
		}
		sort.SliceStable(row, func(a, b int) bool { return row[a].Score > row[b].Score })
		out[i] = row
	}
	writeJSON(w, out)
}

type rankResult struct {
	Index int     `json:"index"`
	Score float64 `json:"score"`
}

// rank scores docs with the built-in reranker, best first.
func (s *ModelServers) rank(r *http.Request, query string, docs []string) ([]rankResult, error) {
	scores, err := s.reranker.Rerank(r.Context(), query, docs)
	if err != nil {
		return nil, err
	}
	out := make([]rankResult, len(scores))
	for i, sc := range scores {
		out[i] = rankResult{i, sc}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Score > out[b].Score })
	return out, nil
}

// teiRerank: POST /rerank {"query", "texts": [..], …} → [{"index","score"}] by score.
func (s *ModelServers) teiRerank(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Query               string   `json:"query"`
		Texts               []string `json:"texts"`
		RawScores           *bool    `json:"raw_scores"`
		ReturnText          *bool    `json:"return_text"`
		Truncate            *bool    `json:"truncate"`
		TruncationDirection string   `json:"truncation_direction"`
	}
	if !decodeStrictly(w, r, &req) {
		return
	}
	if len(req.Texts) == 0 {
		teiError(w, http.StatusUnprocessableEntity, "`texts` cannot be empty")
		return
	}
	out, err := s.rank(r, req.Query, req.Texts)
	if err != nil {
		teiError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	writeJSON(w, out)
}

// jinaRerank: POST /v1/rerank {"model","query","documents","top_n",
// "return_documents"} → {"model","usage","results":[{"index",
// "relevance_score","document"}]} by score; documents are returned as
// {"text": …} objects when asked for.
func (s *ModelServers) jinaRerank(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model           string            `json:"model"`
		Query           string            `json:"query"`
		Documents       []json.RawMessage `json:"documents"`
		TopN            *int              `json:"top_n"`
		ReturnDocuments *bool             `json:"return_documents"`
	}
	if !decodeStrictly(w, r, &req) {
		return
	}
	docs := make([]string, len(req.Documents))
	for i, d := range req.Documents {
		if err := json.Unmarshal(d, &docs[i]); err != nil {
			var obj struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(d, &obj); err != nil {
				teiError(w, http.StatusBadRequest, "documents[%d]: want a string or {\"text\": …}", i)
				return
			}
			docs[i] = obj.Text
		}
	}
	ranked, err := s.rank(r, req.Query, docs)
	if err != nil {
		teiError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	if req.TopN != nil && *req.TopN < len(ranked) {
		ranked = ranked[:*req.TopN]
	}
	type result struct {
		Index          int     `json:"index"`
		RelevanceScore float64 `json:"relevance_score"`
		Document       any     `json:"document,omitempty"`
	}
	tokens := 0
	res := make([]result, len(ranked))
	for i, rr := range ranked {
		res[i] = result{Index: rr.Index, RelevanceScore: rr.Score}
		if req.ReturnDocuments != nil && *req.ReturnDocuments {
			res[i].Document = map[string]string{"text": docs[rr.Index]}
		}
	}
	for _, d := range docs {
		tokens += len(d) / 4
	}
	writeJSON(w, map[string]any{"model": req.Model, "usage": map[string]int{"total_tokens": tokens}, "results": res})
}

// openAIError answers like OpenAI: {"error": {"message", "type", …}}.
func openAIError(w http.ResponseWriter, status int, format string, args ...any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": fmt.Sprintf(format, args...), "type": "invalid_request_error", "param": nil, "code": nil}})
}

// between returns the text between the markers begin and end of the prompt
// templates (internal/models/openai/prompts).
func between(s, begin, end string) (string, bool) {
	_, rest, ok := strings.Cut(s, begin)
	if !ok {
		return "", false
	}
	inner, _, ok := strings.Cut(rest, end)
	return inner, ok
}

// chatAnswer computes the JSON answer of one chat request by its response
// format: "claims" (the built-in sentence extractor on the page text between
// the prompt's markers), "relevance" and "citation_relevance" (the
// built-in's relevance), "split_hypothesis" (SplitAnswer) and
// "nli_judgement" (the built-in NLI).
func (s *ModelServers) chatAnswer(r *http.Request, format, user string) (any, error) {
	switch format {
	case "claims":
		text, ok := between(user, "<<<BEGIN PAGE TEXT\n", "\nEND PAGE TEXT>>>")
		if !ok {
			return nil, fmt.Errorf("no page text between the markers")
		}
		claims, err := s.llm.ExtractClaims(r.Context(), models.ClaimRequest{Text: text, MaxClaims: 1000})
		if err != nil {
			return nil, err
		}
		if s.EditClaims != nil {
			claims = s.EditClaims(text, claims)
		}
		type claim struct {
			Claim      string  `json:"claim"`
			Quote      string  `json:"quote"`
			Confidence float64 `json:"confidence"`
		}
		out := make([]claim, len(claims))
		for i, c := range claims {
			out[i] = claim{c.Claim, c.Quote, c.Confidence}
		}
		return map[string]any{"claims": out}, nil
	case "relevance":
		q, ok1 := between(user, "Query: ", "\n")
		text, ok2 := between(user, "<<<BEGIN TEXT\n", "\nEND TEXT>>>")
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("no query or text in the prompt")
		}
		score, err := s.llm.Relevance(r.Context(), q, text)
		return map[string]any{"score": score}, err
	case "citation_relevance":
		h, ok1 := between(user, "Hypothesis: ", "\n")
		src, ok2 := between(user, "<<<BEGIN SOURCE PAPER\n", "\nEND SOURCE PAPER>>>")
		cand, ok3 := between(user, "<<<BEGIN CANDIDATE PAPER\n", "\nEND CANDIDATE PAPER>>>")
		if !ok1 || !ok2 || !ok3 {
			return nil, fmt.Errorf("no hypothesis, source or candidate paper in the prompt")
		}
		score, err := s.llm.CitationRelevance(r.Context(), models.CitationQuestion{Hypothesis: h, Source: src, Candidate: cand})
		return map[string]any{"score": score}, err
	case "split_hypothesis":
		h, ok := between(user, "<<<BEGIN HYPOTHESIS\n", "\nEND HYPOTHESIS>>>")
		if !ok {
			return nil, fmt.Errorf("no hypothesis between the markers")
		}
		return map[string]any{"sub_claims": SplitAnswer(h)}, nil
	case "nli_judgement":
		p, ok1 := between(user, "<<<BEGIN PREMISE\n", "\nEND PREMISE>>>")
		h, ok2 := between(user, "<<<BEGIN HYPOTHESIS\n", "\nEND HYPOTHESIS>>>")
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("no premise or hypothesis in the prompt")
		}
		js, err := s.nli.Judge(r.Context(), []models.Pair{{Premise: p, Hypothesis: h}})
		if err != nil {
			return nil, err
		}
		return map[string]any{"label": nliLabelName[js[0].Label], "confidence": js[0].Confidence}, nil
	}
	return nil, fmt.Errorf("unknown response format %q", format)
}

// chat answers /v1/chat/completions with a chat.completion object; it wants
// temperature 0 and a json_schema response format.
func (s *ModelServers) chat(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model       string   `json:"model"`
		Temperature *float64 `json:"temperature"`
		MaxTokens   int      `json:"max_tokens"`
		Seed        *int     `json:"seed"`
		Stream      bool     `json:"stream"`
		Messages    []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		ResponseFormat struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Name   string          `json:"name"`
				Strict bool            `json:"strict"`
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		openAIError(w, http.StatusBadRequest, "invalid JSON body: %v", err)
		return
	}
	if req.Temperature == nil || *req.Temperature != 0 || req.ResponseFormat.Type != "json_schema" || len(req.Messages) == 0 {
		openAIError(w, http.StatusBadRequest, "want temperature 0, a json_schema response_format and messages")
		return
	}
	user := req.Messages[len(req.Messages)-1].Content
	answer, err := s.chatAnswer(r, req.ResponseFormat.JSONSchema.Name, user)
	if err != nil {
		openAIError(w, http.StatusBadRequest, "%v", err)
		return
	}
	content, _ := json.Marshal(answer)
	writeJSON(w, map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 1732000000, "model": req.Model,
		"system_fingerprint": "fp_test",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "logprobs": nil,
			"message": map[string]any{"role": "assistant", "content": string(content)}}},
		"usage": map[string]int{"prompt_tokens": len(user) / 4, "completion_tokens": len(content) / 4,
			"total_tokens": (len(user) + len(content)) / 4},
	})
}

// embeddings answers /v1/embeddings with the built-in embedder, as
// floats (or base64 of little-endian float32 when asked for).
func (s *ModelServers) embeddings(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model          string          `json:"model"`
		Input          json.RawMessage `json:"input"`
		EncodingFormat string          `json:"encoding_format"`
		Dimensions     int             `json:"dimensions"`
		User           string          `json:"user"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		openAIError(w, http.StatusBadRequest, "invalid JSON body: %v", err)
		return
	}
	texts, ok := stringOrList(req.Input)
	if !ok {
		openAIError(w, http.StatusBadRequest, "input: want a string or an array of strings")
		return
	}
	vecs, err := s.embedder.Embed(r.Context(), texts)
	if err != nil {
		openAIError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	data := make([]any, len(vecs))
	tokens := 0
	for i, v := range vecs {
		var emb any = v
		if req.EncodingFormat == "base64" {
			buf := make([]byte, 4*len(v))
			for j, x := range v {
				binary.LittleEndian.PutUint32(buf[4*j:], math.Float32bits(x))
			}
			emb = base64.StdEncoding.EncodeToString(buf)
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": emb}
		tokens += len(texts[i]) / 4
	}
	writeJSON(w, map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}})
}

// splitAt are where SplitAnswer cuts a hypothesis.
var splitAt = regexp.MustCompile(`\s*,\s*(?:and\s+)?|\s+because\s+|\s+and\s+`)

// SplitAnswer is the recorded answer of the split_hypothesis prompt: the
// hypothesis cut at commas (", and" included), " because " and " and ", each piece of at
// least three words a sentence of its own (capitalised, ending with a
// full stop), at most models.MaxSubClaims; none when there is one piece.
func SplitAnswer(hypothesis string) []string {
	out := []string{}
	for _, piece := range splitAt.Split(strings.TrimRight(strings.TrimSpace(hypothesis), "."), -1) {
		if len(strings.Fields(piece)) < 3 || len(out) == models.MaxSubClaims {
			continue
		}
		r, size := utf8.DecodeRuneInString(piece)
		out = append(out, string(unicode.ToUpper(r))+piece[size:]+".")
	}
	if len(out) < 2 {
		return []string{}
	}
	return out
}
