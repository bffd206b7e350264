package openaibackend

import (
	"net/http"
	"strings"
	"testing"
)

func TestOptionsValidation(t *testing.T) {
	t.Parallel()
	ok := Options{BaseURL: "http://localhost:11434/v1", Model: "m"}
	cases := []struct {
		name string
		edit func(o *Options)
		want string // "" means valid
	}{
		{"valid", func(o *Options) {}, ""},
		{"trailing slash", func(o *Options) { o.BaseURL += "/" }, ""},
		{"https", func(o *Options) { o.BaseURL = "https://api.openai.com/v1" }, ""},
		{"empty base", func(o *Options) { o.BaseURL = " " }, "BaseURL is empty"},
		{"no scheme", func(o *Options) { o.BaseURL = "localhost:11434/v1" }, "not an http(s) URL"},
		{"ftp", func(o *Options) { o.BaseURL = "ftp://host/v1" }, "not an http(s) URL"},
		{"no host", func(o *Options) { o.BaseURL = "http:///v1" }, "not an http(s) URL"},
		{"query", func(o *Options) { o.BaseURL = "http://host/v1?x=1" }, "query or fragment"},
		{"empty model", func(o *Options) { o.Model = "" }, "Model is empty"},
		{"negative batch", func(o *Options) { o.BatchSize = -1 }, "BatchSize -1"},
		{"negative dim", func(o *Options) { o.Dim = -3 }, "Dim -3"},
		{"tiny chunks", func(o *Options) { o.MaxChunkChars = 50 }, "MaxChunkChars 50 is below 100"},
		{"negative max tokens", func(o *Options) { o.MaxTokens = -1 }, "MaxTokens -1"},
		{"negative concurrency", func(o *Options) { o.Concurrency = -2 }, "Concurrency -2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.edit(&o)
			_, e1 := NewEmbedder(o)
			_, e2 := NewLLM(o)
			_, e3 := NewNLI(o)
			for _, err := range []error{e1, e2, e3} {
				switch {
				case tc.want == "" && err != nil:
					t.Errorf("unexpected error %v", err)
				case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
					t.Errorf("err %v, want one containing %q", err, tc.want)
				}
			}
		})
	}
}

func TestOptionsDefaults(t *testing.T) {
	t.Parallel()
	c, err := newClient(Options{BaseURL: "http://h/v1/", Model: " m "})
	if err != nil {
		t.Fatal(err)
	}
	if c.base != "http://h/v1" || c.model != "m" || c.batch != defaultBatchSize || c.chunkChars != defaultMaxChunkChars ||
		c.maxTokens != defaultMaxTokens || c.concurrency != defaultConcurrency || c.shortTokens() != shortAnswerTokens || c.seed != nil {
		t.Errorf("defaults %+v", c)
	}
	if hc, ok := c.http.inner.(*http.Client); !ok || hc.Timeout != defaultTimeout {
		t.Errorf("default Doer %#v, want an http.Client with a %s timeout", c.http.inner, defaultTimeout)
	}
	seed := 7
	c, err = newClient(Options{BaseURL: "http://h/v1", Model: "m", Seed: &seed, MaxTokens: 100})
	if err != nil {
		t.Fatal(err)
	}
	seed = 8
	if c.seed == nil || *c.seed != 7 || c.shortTokens() != 100 {
		t.Errorf("seed %v (want a copy holding 7), short tokens %d (want 100)", c.seed, c.shortTokens())
	}
}
