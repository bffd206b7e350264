package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/api"
	"github.com/evidencefleet/evidencefleet/internal/apiserver"
	"github.com/evidencefleet/evidencefleet/internal/citation"
)

// TestInvalidTextRefusedNamingTheField: text that is not valid UTF-8, or a
// lone surrogate escape, anywhere in a body is 400 naming its field, where
// encoding/json alone would store U+FFFD; the same body in valid text is
// taken.
func TestInvalidTextRefusedNamingTheField(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{})
	task := "/v1/tasks/" + itoa(b.owner.task)
	cases := []struct {
		name, path, bad, good, names string
	}{
		{"hypothesis with a lone surrogate", "/v1/tasks",
			`{"hypothesis": "Sea ice \ud800 retreats."}`, `{"hypothesis": "Sea ice \ud83e\uddca retreats."}`, "hypothesis: lone surrogate"},
		{"a claim with invalid UTF-8", task + "/claims",
			"{\"claims\": [\"Glaciers melt.\", \"Seas rise.\", \"Sea ice \xff retreats.\"]}", `{"claims": ["Glaciers melt.", "Seas rise.", "Sea ice – retreats."]}`, "claims[2]: invalid UTF-8"},
		{"a claim with an encoded surrogate", task + "/claims",
			"{\"claims\": [\"Sea ice \xed\xa0\x80 retreats.\"]}", `{"claims": ["Sea ice \u00e9 retreats."]}`, "claims[0]: invalid UTF-8"},
		{"a query target with a lone low surrogate", task + "/targets",
			`{"targets": [{"kind": "query", "value": "sea ice \udc00"}]}`, `{"targets": [{"kind": "query", "value": "sea ice \ufffd"}]}`, "targets[0].value: lone surrogate"},
		{"a text whose citations are checked", task + "/citations/check",
			"{\"text\": \"Glaciers retreat [E1]. \xc3\"}", `{"text": "Glaciers retreat [E1]. \u00c3"}`, "text: invalid UTF-8"},
		{"a feedback reason", "/v1/claims/" + itoa(b.owner.claim) + "/feedback",
			`{"action": "reject", "reason": "\udbff wrong"}`, `{"action": "reject", "reason": "\udbff\udfff wrong"}`, "reason: lone surrogate"},
	}
	for _, c := range cases {
		resp, data := b.call(t, http.MethodPost, c.path, b.owner.token, []byte(c.bad))
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", c.name, resp.StatusCode, clip(data))
			continue
		}
		p := decodeProblem(t, data)
		named := false
		for _, e := range p.Errors {
			named = named || strings.Contains(e.Message, c.names)
		}
		if !named {
			t.Errorf("%s: the answer does not name %q: %s", c.name, c.names, clip(data))
		}
		b.checkResponse(t, http.MethodPost, c.path, b.owner.token, []byte(c.bad), resp, data)

		resp, data = b.call(t, http.MethodPost, c.path, b.owner.token, []byte(c.good))
		if resp.StatusCode >= 300 {
			t.Errorf("%s, in valid text: %d %s, want it taken", c.name, resp.StatusCode, clip(data))
		}
	}
	var replaced int
	if err := b.pool.QueryRow(context.Background(), `SELECT count(*) FROM claims WHERE text LIKE '%' || U&'\FFFD' || '%'`).Scan(&replaced); err != nil {
		t.Fatal(err)
	}
	if replaced != 0 {
		t.Errorf("%d claims hold U+FFFD, want none", replaced)
	}
}

// TestCiteCheckBodyBound: the citation check's body bound is the check's
// own (citation.MaxTextBytes in its JSON object): a text of that length is
// checked, a byte more is 413 in the API's error shape, not the check's
// failure as a 500.
func TestCiteCheckBodyBound(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{})
	path := "/v1/tasks/" + itoa(b.owner.task) + "/citations/check"
	cite := "Glaciers retreat [E1]. "
	text := strings.Repeat(cite, citation.MaxTextBytes/len(cite))
	text += strings.Repeat(" ", citation.MaxTextBytes-len(text))

	atBound := []byte(`{"text":"` + text + `"}`)
	if len(atBound) != api.MaxCiteCheckBytes {
		t.Fatalf("a body of %d bytes, want %d", len(atBound), api.MaxCiteCheckBytes)
	}
	resp, data := b.call(t, http.MethodPost, path, b.owner.token, atBound)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a text of %d bytes: %d %s, want 200", len(text), resp.StatusCode, clip(data))
	}
	b.checkResponse(t, http.MethodPost, path, b.owner.token, atBound, resp, data)

	past := []byte(`{"text":"` + text + `."}`)
	resp, data = b.call(t, http.MethodPost, path, b.owner.token, past)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("a text of %d bytes: %d %s, want 413", len(text)+1, resp.StatusCode, clip(data))
	}
	if p := decodeProblem(t, data); p.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("413 whose problem says %d: %s", p.Status, clip(data))
	}
	b.checkResponse(t, http.MethodPost, path, b.owner.token, past, resp, data)
}
