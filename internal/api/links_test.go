package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/apiserver"
)

// TestClaimLinks: E2 depends on E1 through the API; E1 depending on E2
// would close a cycle and is 400 naming it; the list holds the one link.
func TestClaimLinks(t *testing.T) {
	t.Parallel()
	b := setup(t, apiserver.Options{})
	tasks := "/v1/tasks/" + itoa(b.owner.task)
	if resp, data := b.call(t, http.MethodPost, tasks+"/claims", b.owner.token, []byte(`{"claims": ["Ice sheets are thinning."]}`)); resp.StatusCode != http.StatusOK {
		t.Fatalf("add a claim: %d %s", resp.StatusCode, clip(data))
	}
	link := []byte(`{"from": "E2", "to": "E1", "relation": "depends_on", "weight": 0.25}`)
	resp, data := b.call(t, http.MethodPost, tasks+"/links", b.owner.token, link)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("link: %d %s", resp.StatusCode, clip(data))
	}
	b.checkResponse(t, http.MethodPost, tasks+"/links", b.owner.token, link, resp, data)
	cycle := []byte(`{"from": "E1", "to": "E2", "relation": "contradicts"}`)
	resp, data = b.call(t, http.MethodPost, tasks+"/links", b.owner.token, cycle)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(decodeProblem(t, data).Detail, "cycle E1 → E2 → E1") {
		t.Errorf("a cycle: %d %s, want 400 naming it", resp.StatusCode, clip(data))
	}
	resp, data = b.call(t, http.MethodGet, tasks+"/links", b.owner.token, nil)
	var out struct {
		Links []struct {
			From, To, Relation string
			Weight             float64
		} `json:"items"`
	}
	if err := json.Unmarshal(data, &out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("list: %d %s (%v)", resp.StatusCode, clip(data), err)
	}
	if len(out.Links) != 1 || out.Links[0].From != "E2" || out.Links[0].To != "E1" || out.Links[0].Weight != 0.25 {
		t.Errorf("links %+v, want E2 depends on E1 at 0.25", out.Links)
	}
}
