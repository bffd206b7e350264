package openaibackend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// chatRequest is the body of POST /chat/completions. It is the package's own
// struct rather than go-openai's ChatCompletionRequest because that one drops
// temperature 0 (float32 with omitempty); see the package doc.
type chatRequest struct {
	Model          string                               `json:"model"`
	Messages       []openai.ChatCompletionMessage       `json:"messages"`
	Temperature    float64                              `json:"temperature"` // always sent, always 0
	MaxTokens      int                                  `json:"max_tokens"`
	Seed           *int                                 `json:"seed,omitempty"`
	ResponseFormat *openai.ChatCompletionResponseFormat `json:"response_format"`
	Stream         bool                                 `json:"stream"`
}

// schema is one JSON-schema response format.
type schema struct {
	name string
	json json.RawMessage
}

// contentError is a chat answer that arrived intact (2xx, a well-formed
// chat.completion object) but whose message content is unusable: not JSON,
// not of the schema's shape, out of range, truncated, refused. It wraps
// remoteerr.ErrBadResponse.
type contentError struct{ msg string }

func (e *contentError) Error() string {
	return "openai backend: POST /chat/completions: " + remoteerr.ErrBadResponse.Error() + ": " + e.msg
}

// Unwrap returns remoteerr.ErrBadResponse.
func (e *contentError) Unwrap() error { return remoteerr.ErrBadResponse }

// contentErrorf builds a *contentError.
func contentErrorf(format string, args ...any) error {
	return &contentError{msg: fmt.Sprintf(format, args...)}
}

// isContentError reports whether err is a well-formed answer with unusable content.
func isContentError(err error) bool {
	var ce *contentError
	return errors.As(err, &ce)
}

// chat sends one chat request answering in format and returns the message
// content, after checking the answer's envelope and finish reason.
// capability labels the metrics ("llm" or "nli").
func (c *client) chat(ctx context.Context, capability string, msgs []openai.ChatCompletionMessage, format schema, maxTokens int) (string, error) {
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false) // keep prompts readable on the wire ("<<<", "&")
	err := enc.Encode(chatRequest{
		Model:       c.model,
		Messages:    msgs,
		Temperature: 0,
		MaxTokens:   maxTokens,
		Seed:        c.seed,
		ResponseFormat: &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name: format.name, Strict: true, Schema: format.json,
			},
		},
	})
	if err != nil {
		return "", fmt.Errorf("openai backend: encoding the chat request: %w", err)
	}
	// bytes.NewReader lets http.NewRequest set GetBody, so a retrying Doer
	// can replay the body. The answer can need no more than maxTokens tokens.
	bound := httpx.ChatBound(maxTokens)
	ctx = httpx.WithBound(ctx, bound)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/chat/completions", bytes.NewReader(body.Bytes()))
	if err != nil {
		return "", fmt.Errorf("openai backend: building the chat request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	c.obs.ModelBatch(backendName, capability, 1)
	resp, err := c.http.Do(req)
	if err != nil {
		return "", c.bad(capability, err)
	}
	defer func() { _ = resp.Body.Close() }()
	var res openai.ChatCompletionResponse
	err = httpx.DecodeJSON(resp.Body, bound, &res)
	head := bodyHead(resp.Body)
	switch {
	case err != nil && isClassified(err): // past the bound, or the connection broke
		return "", c.bad(capability, err)
	case err != nil:
		return "", c.bad(capability, fmt.Errorf("openai backend: POST /chat/completions: %w: the answer is not a chat.completion object: %v (body starts %q)",
			remoteerr.ErrBadResponse, err, snippet(head, 120)))
	}
	c.obs.ModelTokens(backendName, capability, "prompt", res.Usage.PromptTokens)
	c.obs.ModelTokens(backendName, capability, "completion", res.Usage.CompletionTokens)
	cost.From(ctx).Tokens(res.Usage.PromptTokens, res.Usage.CompletionTokens)
	content, err := firstContent(res, head)
	if err != nil {
		return "", c.bad(capability, err)
	}
	return content, nil
}

// bodyHead returns the first bytes of an answer body for error messages
// (empty unless the body came through the wireDoer).
func bodyHead(body io.Reader) string {
	if wb, ok := body.(*wireBody); ok {
		return wb.head()
	}
	return ""
}

// firstContent returns the content of the first choice of a decoded
// chat.completion (head is the start of its body, for error messages). No
// choices is a plain remoteerr.ErrBadResponse; a choice that is unusable
// (truncated, refused, filtered, a tool call, empty) is a *contentError.
func firstContent(res openai.ChatCompletionResponse, head string) (string, error) {
	if len(res.Choices) == 0 {
		return "", fmt.Errorf("openai backend: POST /chat/completions: %w: the answer has no choices (body starts %q)",
			remoteerr.ErrBadResponse, snippet(head, 120))
	}
	ch := res.Choices[0]
	msg := ch.Message
	switch {
	case ch.FinishReason == openai.FinishReasonLength:
		return "", contentErrorf("the answer was cut off by max_tokens (finish_reason \"length\"), its JSON is truncated: %q", snippet(msg.Content, 120))
	case ch.FinishReason == openai.FinishReasonContentFilter:
		return "", contentErrorf("the answer was stopped by the server's content filter (finish_reason \"content_filter\")")
	case msg.Refusal != "":
		return "", contentErrorf("the model refused: %q", snippet(msg.Refusal, 200))
	case len(msg.ToolCalls) > 0 || msg.FunctionCall != nil:
		return "", contentErrorf("the model answered with a tool call instead of content")
	case strings.TrimSpace(msg.Content) == "":
		return "", contentErrorf("the message content is empty (finish_reason %q)", string(ch.FinishReason))
	}
	return msg.Content, nil
}

// decodeContent decodes a message content into v, which must be a pointer to
// a struct whose fields are pointers (so that missing fields stay nil).
// Unknown fields, wrong types and anything after the object are errors.
// A code fence around the object and a leading <think>…</think> block are
// removed first.
func decodeContent(content string, v any) error {
	s := unwrapContent(content)
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return contentErrorf("the content is not JSON of the schema's shape: %v (content starts %q)", err, snippet(content, 120))
	}
	if _, err := dec.Token(); err != io.EOF {
		return contentErrorf("the content has data after the JSON object (content starts %q)", snippet(content, 120))
	}
	return nil
}

// unwrapContent strips a leading <think>…</think> block and a ```/```json
// code fence around the content.
func unwrapContent(s string) string {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "<think>"); ok {
		if _, after, found := strings.Cut(rest, "</think>"); found {
			s = strings.TrimSpace(after)
		}
	}
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		if body, ok := strings.CutSuffix(strings.TrimSpace(rest), "```"); ok {
			// Drop the info string ("json") on the fence's first line.
			if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], "{[") {
				body = body[nl+1:]
			} else if nl < 0 {
				body = strings.TrimPrefix(body, "json")
			}
			s = strings.TrimSpace(body)
		}
	}
	return s
}
