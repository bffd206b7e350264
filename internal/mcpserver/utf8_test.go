package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/mcpserver"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestArgumentsNotUTF8AreRefused: a tool's arguments holding text that is
// not valid UTF-8, or a lone surrogate escape, are a tool error naming the
// argument, where the SDK's decoder would hand the tool U+FFFD; the same
// arguments in valid text are taken. The arguments go over the wire as
// written (json.RawMessage), as a client in another language sends them.
func TestArgumentsNotUTF8AreRefused(t *testing.T) {
	t.Parallel()
	b := setup(t, false)
	cs := b.connect(t, mcpserver.Options{Org: "org-a"})
	task := call[store.Task](t, cs, "create_task", map[string]any{"hypothesis": hypothesis})
	for _, tc := range []struct {
		tool, bad, good, want string
	}{
		{"create_task", `{"hypothesis": "Sea ice \ud800 retreats."}`, `{"hypothesis": "Sea ice \ud83e\uddca retreats."}`, "hypothesis: lone surrogate"},
		{"create_task", "{\"hypothesis\": \"Sea ice \xff retreats.\"}", "{\"hypothesis\": \"Sea ice \u00ff retreats.\"}", "hypothesis: invalid UTF-8"},
		{"queue_targets", fmt.Sprintf(`{"task_id": %d, "targets": [{"kind": "url", "value": %q}, {"kind": "query", "value": "sea ice \udc00"}]}`, task.ID, urlWiki),
			fmt.Sprintf(`{"task_id": %d, "targets": [{"kind": "url", "value": %q}, {"kind": "query", "value": "sea ice \ufffd"}]}`, task.ID, urlWiki), "targets[1].value: lone surrogate"},
		{"check_citations", fmt.Sprintf("{\"task_id\": %d, \"text\": \"Glaciers retreat [E1]. \xed\xa0\x80\"}", task.ID),
			fmt.Sprintf("{\"task_id\": %d, \"text\": \"Glaciers retreat [E1]. \u00ed\"}", task.ID), "text: invalid UTF-8"},
	} {
		if got := callErr(t, cs, tc.tool, json.RawMessage(tc.bad)); !strings.Contains(got, tc.want) {
			t.Errorf("%s %q: error %q, want it to say %q", tc.tool, tc.bad, got, tc.want)
		}
		if res := callRaw(t, cs, tc.tool, json.RawMessage(tc.good)); res.IsError {
			t.Errorf("%s %s, in valid text: tool error %s", tc.tool, tc.good, text(res))
		}
	}
	var replaced int
	if err := b.f.Pool.QueryRow(b.ctx, `SELECT count(*) FROM claims WHERE text LIKE '%' || U&'\FFFD' || '%'`).Scan(&replaced); err != nil {
		t.Fatal(err)
	}
	if replaced != 0 {
		t.Errorf("%d claims hold U+FFFD, want none", replaced)
	}
}
