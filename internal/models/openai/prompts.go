package openaibackend

import (
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"

	openai "github.com/sashabaranov/go-openai"
)

// Prompt versions: each names the template file prompts/<version>.tmpl and
// appears in the Model() id of what it produces. A released template is
// never edited; a change is a new version.
const (
	// PromptExtractClaims is the claim extraction prompt.
	PromptExtractClaims = "extract_claims.v1"
	// PromptRelevance is the relevance (0–10) prompt.
	PromptRelevance = "relevance.v1"
	// PromptCitationRelevance is the citation graph's stage 2 prompt (0–10).
	PromptCitationRelevance = "citation_relevance.v1"
	// PromptNLI is the premise/hypothesis inference prompt.
	PromptNLI = "nli.v1"
	// PromptSplitHypothesis is the prompt that splits a hypothesis into
	// the sub-claims it depends on.
	PromptSplitHypothesis = "split_hypothesis.v1"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

// Parsed templates; each defines "system" and "user".
var (
	extractTmpl   = mustPrompt(PromptExtractClaims)
	relevanceTmpl = mustPrompt(PromptRelevance)
	citationTmpl  = mustPrompt(PromptCitationRelevance)
	nliTmpl       = mustPrompt(PromptNLI)
	splitTmpl     = mustPrompt(PromptSplitHypothesis)
)

// mustPrompt parses prompts/<version>.tmpl; a broken embedded file is a
// programming error caught by every test run.
func mustPrompt(version string) *template.Template {
	t := template.Must(template.New(version).Option("missingkey=error").ParseFS(promptFS, "prompts/"+version+".tmpl"))
	for _, name := range []string{"system", "user"} {
		if t.Lookup(name) == nil {
			panic(fmt.Sprintf("prompts/%s.tmpl defines no %q template", version, name))
		}
	}
	return t
}

// render executes the system and user templates of t with data.
func render(t *template.Template, data any) ([]openai.ChatCompletionMessage, error) {
	var msgs []openai.ChatCompletionMessage
	for _, part := range []struct{ name, role string }{
		{"system", openai.ChatMessageRoleSystem}, {"user", openai.ChatMessageRoleUser},
	} {
		var b strings.Builder
		if err := t.ExecuteTemplate(&b, part.name, data); err != nil {
			return nil, fmt.Errorf("openai backend: rendering prompt %s: %w", t.Name(), err)
		}
		msgs = append(msgs, openai.ChatCompletionMessage{Role: part.role, Content: strings.TrimSpace(b.String())})
	}
	return msgs, nil
}

// Data of the templates.
type (
	extractData struct {
		URL, Title, Text string
		MaxClaims        int
		Part, Parts      int // 1-based chunk number and chunk count
	}
	relevanceData struct{ Query, Text string }
	citationData  struct{ Hypothesis, Source, Candidate string }
	nliData       struct{ Premise, Hypothesis string }
	splitData     struct {
		Hypothesis   string
		MaxSubClaims int
	}
)

// Response schemas, in the subset strict mode accepts (every property
// required, additionalProperties false, no numeric bounds: ranges are
// checked in code).
var (
	claimsSchema    = schema{name: "claims", json: json.RawMessage(`{"type":"object","properties":{"claims":{"type":"array","items":{"type":"object","properties":{"claim":{"type":"string"},"quote":{"type":"string"},"confidence":{"type":"number"}},"required":["claim","quote","confidence"],"additionalProperties":false}}},"required":["claims"],"additionalProperties":false}`)}
	relevanceSchema = schema{name: "relevance", json: json.RawMessage(`{"type":"object","properties":{"score":{"type":"number"}},"required":["score"],"additionalProperties":false}`)}
	citationSchema  = schema{name: "citation_relevance", json: relevanceSchema.json}
	splitSchema     = schema{name: "split_hypothesis", json: json.RawMessage(`{"type":"object","properties":{"sub_claims":{"type":"array","items":{"type":"string"}}},"required":["sub_claims"],"additionalProperties":false}`)}
	nliSchema       = schema{name: "nli_judgement", json: json.RawMessage(`{"type":"object","properties":{"label":{"type":"string","enum":["entailment","contradiction","neutral"]},"confidence":{"type":"number"}},"required":["label","confidence"],"additionalProperties":false}`)}
)
