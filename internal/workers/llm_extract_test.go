package workers_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/models"
)

// TestLLMClaimsAreKeptOnlyWithAVerbatimQuote runs target_queue with claim
// extraction by an OpenAI-compatible server (a test server speaking the
// /v1/chat/completions wire format). For the page it answers one claim whose
// quote is on the page (with a typographic apostrophe and doubled spaces the
// page does not have) and one whose quote is not: the first is stored with
// the exact span of the page version, the second is dropped and counted.
func TestLLMClaimsAreKeptOnlyWithAVerbatimQuote(t *testing.T) {
	t.Parallel()
	const url = "https://www.example-science.org/arctic/sea-ice"
	page := testfleet.Page(url, "Arctic sea ice",
		"Arctic sea ice has declined in recent decades in area and volume due to climate change.",
		"The Arctic's summer sea ice could disappear by the 2050s, scientists estimate.")
	servers := testfleet.StartModelServers(t)
	servers.EditClaims = func(_ string, _ []models.LLMClaim) []models.LLMClaim {
		return []models.LLMClaim{
			{Claim: "Arctic summer sea ice could be gone by the 2050s.",
				Quote: "The Arctic’s summer sea ice  could disappear by the 2050s", Confidence: 0.9},
			{Claim: "Arctic sea ice is growing.", Quote: "Arctic sea ice has grown steadily since 1979.", Confidence: 0.8},
		}
	}
	f := testfleet.InTx(t, testfleet.Options{Pages: []corpus.Page{page}, Adjust: func(c *config.Config) {
		c.LLM = config.Model{Backend: "openai", URL: servers.OpenAI.URL + "/v1", ModelName: "test-llm",
			Concurrency: 2, Retries: 1, BreakerFailures: 5, BreakerCooldown: time.Second}
	}})
	task := f.CreateTask(t, "Arctic sea ice is declining.")
	f.AddTargets(t, task, url)
	f.Drain(t)

	ctx := context.Background()
	rows, err := f.Tx.Query(ctx, `SELECT c.text, c.llm_claim_confidence, c.quote_start, c.quote_end,
			substring(v.content FROM c.quote_start + 1 FOR c.quote_end - c.quote_start)
		FROM claims c JOIN page_versions v ON v.id = c.page_version_id WHERE c.kind = 'extracted'`)
	if err != nil {
		t.Fatal(err)
	}
	type stored struct {
		text, quoted string
		conf         float64
		start, end   int
	}
	var got []stored
	for rows.Next() {
		var s stored
		if err := rows.Scan(&s.text, &s.conf, &s.start, &s.end, &s.quoted); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("stored %d extracted claims %+v, want exactly the one with a verbatim quote", len(got), got)
	}
	c := got[0]
	if c.text != "Arctic summer sea ice could be gone by the 2050s." || c.conf != 0.9 {
		t.Errorf("stored claim %q confidence %v", c.text, c.conf)
	}
	if c.quoted != "The Arctic's summer sea ice could disappear by the 2050s" {
		t.Errorf("stored span [%d,%d) holds %q, want the page's own text of the quote", c.start, c.end, c.quoted)
	}

	var output []byte
	if err := f.Tx.QueryRow(ctx, `SELECT metadata->'output' FROM river_job WHERE kind = 'target_queue'`).Scan(&output); err != nil {
		t.Fatal(err)
	}
	var out struct {
		ClaimsNew      int    `json:"claims_new"`
		QuotesRejected int    `json:"quotes_rejected"`
		Extractor      string `json:"extractor"`
	}
	if err := json.Unmarshal(output, &out); err != nil {
		t.Fatalf("job output %s: %v", output, err)
	}
	if out.ClaimsNew != 1 || out.QuotesRejected != 1 || !strings.Contains(out.Extractor, "test-llm") {
		t.Errorf("job output %s: want claims_new 1, quotes_rejected 1, extractor naming the model", output)
	}
	n, err := f.Metrics.Sum("evidencefleet_claims_extracted_total", map[string]string{"result": "dropped_quote"})
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("claims_extracted_total{result=dropped_quote} = %v, want 1", n)
	}
	if servers.Calls("openai", "/v1/chat/completions") == 0 {
		t.Error("the chat server was never asked")
	}
}
