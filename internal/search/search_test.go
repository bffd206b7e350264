package search

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/cost"
)

// answer is shaped like a SearxNG /search?format=json response.
const answer = `{"query": "sea level rise", "number_of_results": 0,
 "results": [
  {"url": "https://en.wikipedia.org/wiki/Sea_level_rise", "title": "Sea level rise", "content": "…", "engine": "wikipedia", "engines": ["wikipedia"], "score": 3.0, "category": "general"},
  {"url": "https://www.nasa.gov/sea-level", "title": "NASA", "content": "…", "engine": "duckduckgo", "score": 2.0},
  {"url": "https://en.wikipedia.org/wiki/Sea_level_rise", "title": "dup", "content": "", "engine": "bing"},
  {"url": "ftp://files.example.org/x", "title": "ftp", "content": ""},
  {"url": "javascript:alert(1)", "title": "bad", "content": ""},
  {"url": "https://climate.example.org/ice", "title": "Ice", "content": ""}
 ],
 "answers": [], "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []}`

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		limit int
		want  []string
	}{
		{0, []string{"https://en.wikipedia.org/wiki/Sea_level_rise", "https://www.nasa.gov/sea-level", "https://climate.example.org/ice"}},
		{2, []string{"https://en.wikipedia.org/wiki/Sea_level_rise", "https://www.nasa.gov/sea-level"}},
	}
	for _, tt := range tests {
		got, err := Parse([]byte(answer), tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		var urls []string
		for _, r := range got {
			urls = append(urls, r.URL)
		}
		if fmt.Sprint(urls) != fmt.Sprint(tt.want) {
			t.Errorf("limit %d: %v, want %v", tt.limit, urls, tt.want)
		}
	}
	for _, bad := range []string{`<html>`, `{"query": "x"}`, `{"results": {"url": "x"}}`} {
		if _, err := Parse([]byte(bad), 0); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

func TestSearXNG(t *testing.T) {
	t.Parallel()
	var gotQuery, gotFormat string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/search":
			gotQuery, gotFormat = r.URL.Query().Get("q"), r.URL.Query().Get("format")
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, answer)
		case "/busy/search":
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	s, err := NewSearXNG(srv.URL+"/", 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, meter := cost.WithMeter(context.Background())
	res, err := s.Search(ctx, "sea level rise & ice", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || gotQuery != "sea level rise & ice" || gotFormat != "json" {
		t.Errorf("%d results, query %q, format %q", len(res), gotQuery, gotFormat)
	}
	busy, _ := NewSearXNG(srv.URL+"/busy", 0)
	_, err = busy.Search(ctx, "x", 5)
	var se *StatusError
	if !errors.As(err, &se) || !se.Temporary() || se.Wait != 30*time.Second {
		t.Errorf("429: %v", err)
	}
	if got := meter.Counts(); got != (cost.Counts{Searches: 2}) {
		t.Errorf("meter %+v: want both requests, the refused one too, as searches", got)
	}
	var none *SearXNG
	if _, err := none.Search(context.Background(), "x", 5); !errors.Is(err, ErrNotConfigured) {
		t.Errorf("unconfigured: %v", err)
	}
	for _, bad := range []string{"", "searxng:8080", "file:///etc"} {
		if _, err := NewSearXNG(bad, 0); err == nil {
			t.Errorf("base %q accepted", bad)
		}
	}
}
