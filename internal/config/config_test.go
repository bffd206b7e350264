package config

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestConfigurationDocIsCurrent keeps the table of docs/configuration.md
// equal to `worker config --markdown` (internal/harness/cmd/configdoc
// checks the whole document).
func TestConfigurationDocIsCurrent(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := UsageMarkdown(&want); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), want.String()) {
		t.Fatal("docs/configuration.md's configuration table differs from `go run ./cmd/worker config --markdown`: run make configdoc")
	}
}

// TestUsageMarkdownKeepsOneCellPerColumn: a "|" inside a meaning is
// escaped, so that every row of the table has the header's three cells.
func TestUsageMarkdownKeepsOneCellPerColumn(t *testing.T) {
	var b bytes.Buffer
	if err := UsageMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(rows) < 100 {
		t.Fatalf("only %d rows", len(rows))
	}
	for _, row := range rows {
		if n := strings.Count(row, "|") - strings.Count(row, `\|`); n != 4 {
			t.Errorf("row with %d unescaped |, want 4 (three cells): %s", n, row)
		}
	}
}

func TestValidateNamesTheVariable(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want string // substring of the error; "" = valid
	}{
		{"defaults", nil, ""},
		{"tei embeddings", map[string]string{"EVF_EMBED_BACKEND": "tei", "EVF_EMBED_URL": "http://tei:8080"}, ""},
		{"unknown backend", map[string]string{"EVF_NLI_BACKEND": "jina"}, `EVF_NLI_BACKEND="jina" is not a nli backend`},
		{"missing URL", map[string]string{"EVF_RERANK_BACKEND": "tei"}, "needs EVF_RERANK_URL"},
		{"bad URL", map[string]string{"EVF_LLM_BACKEND": "openai", "EVF_LLM_URL": "ftp://x", "EVF_LLM_MODEL": "m"}, `EVF_LLM_URL="ftp://x" is not an http(s) URL`},
		{"openai without model", map[string]string{"EVF_LLM_BACKEND": "openai", "EVF_LLM_URL": "http://x/v1"}, "needs EVF_LLM_MODEL"},
		{"temperature", map[string]string{"EVF_NLI_TEMPERATURE": "0"}, "EVF_NLI_TEMPERATURE"},
		{"embed dim", map[string]string{"EVF_EMBED_DIM": "3"}, "EVF_EMBED_DIM=3"},
		{"token lifetime over the maximum", map[string]string{"EVF_API_TOKEN_TTL": "9000h"}, "EVF_API_TOKEN_TTL=9000h0m0s must be positive and at most EVF_API_TOKEN_MAX_TTL"},
		{"stream recheck not under the lease", map[string]string{"EVF_API_STREAM_RECHECK": "15s"}, "EVF_API_STREAM_RECHECK=15s"},
		{"trusted proxy", map[string]string{"EVF_API_TRUSTED_PROXIES": "10.0.0.0/8,ingress"}, `EVF_API_TRUSTED_PROXIES: "ingress"`},
		{"trusted proxies", map[string]string{"EVF_API_TRUSTED_PROXIES": "10.0.0.0/8, 192.0.2.1"}, ""},
		{"transaction pooler", map[string]string{"EVF_DB_POOLER": "transaction", "EVF_DATABASE_DIRECT_URL": "postgres://db"}, ""},
		{"transaction pooler without a direct URL", map[string]string{"EVF_DB_POOLER": "transaction"}, "EVF_DB_POOLER=transaction needs EVF_DATABASE_DIRECT_URL"},
		{"unknown pooler mode", map[string]string{"EVF_DB_POOLER": "statement"}, `EVF_DB_POOLER="statement"`},
		{"page memory budget", map[string]string{"EVF_PAGE_MEMORY_BUDGET_MB": "-1"}, "EVF_PAGE_MEMORY_BUDGET_MB=-1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("DATABASE_URL", "postgres://x")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err := Load()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestLoadRequiresTheDatabase: Load refuses an environment without a
// database URL, naming it; LoadWithoutDatabase (worker config) reads it.
func TestLoadRequiresTheDatabase(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	t.Setenv("EVF_DATABASE_URL", "")
	t.Setenv("EVF_PAGE_MEMORY_BUDGET_MB", "96")
	if _, err := Load(); err == nil || !strings.Contains(err.Error(), "DATABASE_URL") {
		t.Fatalf("Load: %v, want an error naming DATABASE_URL", err)
	}
	c, err := LoadWithoutDatabase()
	if err != nil || c.PageMemoryMB != 96 {
		t.Fatalf("LoadWithoutDatabase: %+v, %v; want the settings read", c.PageMemoryMB, err)
	}
}

func TestModelsFillCapabilityDefaults(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://x")
	t.Setenv("EVF_NLI_BATCH", "8")
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	m := c.Models()
	if m["embed"].Batch != 64 || m["nli"].Batch != 8 || m["llm"].Timeout.Seconds() != 120 {
		t.Fatalf("defaults not filled: %+v", m)
	}
}

// TestDefaultsAreLoadsDefaults: Defaults states exactly what Load reads from
// an environment that sets nothing but the database.
func TestDefaultsAreLoadsDefaults(t *testing.T) {
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, Prefix+"_") {
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
	t.Setenv("DATABASE_URL", "postgres://localhost/x")
	loaded, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	loaded.DatabaseURL = ""
	if d := Defaults(); !reflect.DeepEqual(d, loaded) {
		t.Errorf("Defaults() = %+v\nLoad()     = %+v", d, loaded)
	}
	if d := Defaults(); d.TopK != 30 || d.RankTopK != 20 || d.EmbedWait != 2*time.Second || len(d.Queues) != 6 || d.NLI.Backend != "builtin" {
		t.Errorf("Defaults() = %+v: tags not applied", d)
	}
}
