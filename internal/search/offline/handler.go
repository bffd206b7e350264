package offline

import (
	"encoding/json"
	"net/http"

	"github.com/evidencefleet/evidencefleet/internal/search"
)

// HandlerResults is the number of results of one answer of Handler, a
// SearxNG page (which takes no limit parameter).
const HandlerResults = 20

// Handler serves s as a SearxNG-compatible JSON API: GET /search?q=…&format=json
// answers {"query", "number_of_results", "results": [{"url", "title",
// "content"}], …} with up to HandlerResults results, the shape
// search.SearXNG reads. Another path is 404, another format 400, a failed
// search 503.
func Handler(s search.Searcher) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /search", func(w http.ResponseWriter, r *http.Request) {
		if f := r.URL.Query().Get("format"); f != "json" {
			http.Error(w, "format must be json", http.StatusBadRequest)
			return
		}
		q := r.URL.Query().Get("q")
		results, err := s.Search(r.Context(), q, HandlerResults)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		if results == nil {
			results = []search.Result{}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(struct {
			Query               string          `json:"query"`
			NumberOfResults     int             `json:"number_of_results"`
			Results             []search.Result `json:"results"`
			Answers             []string        `json:"answers"`
			Suggestions         []string        `json:"suggestions"`
			UnresponsiveEngines []string        `json:"unresponsive_engines"`
		}{q, len(results), results, []string{}, []string{}, []string{}})
	})
	return mux
}
