// Package cost is what a job spends outside the fleet, counted while it
// runs: requests to model servers with the tokens they report, search
// backend requests, academic API requests, page fetches and their bytes
// (ARCHITECTURE.md §7, "Cost accounting"). A job carries a Meter in its
// context (WithMeter); the clients add to the context's meter (From) at the
// point where they send a request, so no worker counts by hand. It imports
// the standard library only.
//
// What counts:
//
//   - a model call is one HTTP request a model backend (openai, tei, jina)
//     hands to the transport, retries included, as model_requests_total
//     counts them; the built-in models run in process and are no calls;
//   - tokens in and out are the prompt and completion tokens the server
//     reports in its answer's usage (OpenAI-compatible chat and embeddings,
//     Jina rerank); TEI reports none, so its calls count with 0 tokens;
//   - a search is one request to the web search backend (EVF_SEARCH_URL),
//     or one search of the replay archive's offline index, which stands
//     for one (internal/search/offline);
//   - an academic call is one request to Semantic Scholar or OpenAlex (DOI
//     resolution, citation graph, scholarly search), retries included: a
//     column of its own, since these are neither web searches nor models;
//   - a fetch is one page fetch by the crawler, with the bytes of the body
//     it received; a fetch answered from a replay archive counts too, since
//     it stands for a real one. robots.txt requests are not counted.
package cost

import (
	"context"
	"sync/atomic"
)

// Counts are what one job, stage or task spent.
type Counts struct {
	ModelCalls    int64 `json:"model_calls"`
	TokensIn      int64 `json:"tokens_in"`
	TokensOut     int64 `json:"tokens_out"`
	Searches      int64 `json:"searches"`
	AcademicCalls int64 `json:"academic_calls"`
	Fetches       int64 `json:"fetches"`
	FetchBytes    int64 `json:"fetch_bytes"`
}

// Plus returns the sum of c and o.
func (c Counts) Plus(o Counts) Counts {
	return Counts{
		ModelCalls:    c.ModelCalls + o.ModelCalls,
		TokensIn:      c.TokensIn + o.TokensIn,
		TokensOut:     c.TokensOut + o.TokensOut,
		Searches:      c.Searches + o.Searches,
		AcademicCalls: c.AcademicCalls + o.AcademicCalls,
		Fetches:       c.Fetches + o.Fetches,
		FetchBytes:    c.FetchBytes + o.FetchBytes,
	}
}

// IsZero reports whether nothing was spent.
func (c Counts) IsZero() bool { return c == Counts{} }

// Items are the names of the counters, in the order of Values: the item
// label of evidencefleet_job_cost_total and the JSON names of Counts.
var Items = []string{"model_calls", "tokens_in", "tokens_out", "searches", "academic_calls", "fetches", "fetch_bytes"}

// Values returns the counters in the order of Items.
func (c Counts) Values() []int64 {
	return []int64{c.ModelCalls, c.TokensIn, c.TokensOut, c.Searches, c.AcademicCalls, c.Fetches, c.FetchBytes}
}

// Call is what one request a shared HTTP client sends counts as.
type Call int

// Calls of httpx clients.
const (
	ModelCall    Call = iota // a model server's request (the zero value)
	AcademicCall             // an academic API's request
)

// Meter counts one job's spending. It is safe for concurrent use, and every
// method does nothing on a nil *Meter, so clients need no checks.
type Meter struct {
	modelCalls, tokensIn, tokensOut, searches, academicCalls, fetches, fetchBytes atomic.Int64
}

type meterKey struct{}

// WithMeter returns ctx carrying a new Meter, and the Meter.
func WithMeter(ctx context.Context) (context.Context, *Meter) {
	m := &Meter{}
	return context.WithValue(ctx, meterKey{}, m), m
}

// From returns the Meter ctx carries, or nil (a meter that counts nothing).
func From(ctx context.Context) *Meter {
	m, _ := ctx.Value(meterKey{}).(*Meter)
	return m
}

// Request counts one request of kind c.
func (m *Meter) Request(c Call) {
	if m == nil {
		return
	}
	switch c {
	case AcademicCall:
		m.academicCalls.Add(1)
	default:
		m.modelCalls.Add(1)
	}
}

// Tokens adds the tokens a model server reported; negative numbers count
// as 0.
func (m *Meter) Tokens(in, out int) {
	if m == nil {
		return
	}
	m.tokensIn.Add(int64(max(in, 0)))
	m.tokensOut.Add(int64(max(out, 0)))
}

// Search counts one request to the search backend.
func (m *Meter) Search() {
	if m != nil {
		m.searches.Add(1)
	}
}

// Fetch counts one page fetch that received bytes of body.
func (m *Meter) Fetch(bytes int) {
	if m == nil {
		return
	}
	m.fetches.Add(1)
	m.fetchBytes.Add(int64(max(bytes, 0)))
}

// Counts returns what the meter has counted so far (zero for nil).
func (m *Meter) Counts() Counts {
	if m == nil {
		return Counts{}
	}
	return Counts{
		ModelCalls:    m.modelCalls.Load(),
		TokensIn:      m.tokensIn.Load(),
		TokensOut:     m.tokensOut.Load(),
		Searches:      m.searches.Load(),
		AcademicCalls: m.academicCalls.Load(),
		Fetches:       m.fetches.Load(),
		FetchBytes:    m.fetchBytes.Load(),
	}
}
