package pageproc_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/academic"
	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/extract"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/pageproc"
)

// fetcher serves one page, or fails with err.
type fetcher struct {
	res *crawl.Result
	err error
}

func (f fetcher) Fetch(context.Context, string) (*crawl.Result, error) { return f.res, f.err }

// extractor proposes claims, or fails with err, and records what it was asked.
type extractor struct {
	claims []models.LLMClaim
	err    error
	asked  *models.ClaimRequest
}

func (e extractor) ExtractClaims(_ context.Context, req models.ClaimRequest) ([]models.LLMClaim, error) {
	if e.asked != nil {
		*e.asked = req
	}
	return e.claims, e.err
}

func (extractor) Model() string { return "test-extractor" }

const page = `<html><head><title>Sea ice</title><meta name="citation_doi" content="10.1234/own"></head><body><article>
<p>Arctic sea ice has declined in recent decades, as shown in doi:10.5555/other and many other studies of the polar regions.</p>
<p>Polar bears hunt seals from the ice, and they depend on it for most of the year in the far north.</p>
</article></body></html>`

func htmlPage() *crawl.Result {
	return &crawl.Result{URL: "https://ice.example.org/", FinalURL: "https://ice.example.org/a", Status: 200,
		ContentType: "text/html", Body: []byte(page), FetchedAt: time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)}
}

// TestProcess: what the stage returns at each step a page can stop at, and
// in full.
func TestProcess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := pageproc.Config{Fragments: extract.FragmentOptions{MaxRunes: 600}}

	t.Run("fetch failed", func(t *testing.T) {
		t.Parallel()
		refused := &crawl.PermanentError{Reason: "robots_disallowed"}
		r := pageproc.Process(ctx, pageproc.URL(fetcher{err: refused}, "https://ice.example.org/"), cfg, extractor{})
		if r.Status != pageproc.StatusFetchFailed || !errors.Is(r.Err, refused) || r.Fetch != nil {
			t.Errorf("%v %v %v, want fetch_failed with the fetcher's error", r.Status, r.Err, r.Fetch)
		}
	})
	t.Run("unreadable keeps the page", func(t *testing.T) {
		t.Parallel()
		empty := &crawl.Result{URL: "https://empty.example.org/", FinalURL: "https://empty.example.org/", ContentType: "text/plain", Body: []byte(" \n ")}
		r := pageproc.Process(ctx, pageproc.URL(fetcher{res: empty}, empty.URL), cfg, extractor{})
		if r.Status != pageproc.StatusUnreadable || !errors.Is(r.Err, extract.ErrNoText) || r.Fetch != empty {
			t.Errorf("%v %v %v, want unreadable, no text, with the page", r.Status, r.Err, r.Fetch)
		}
	})
	t.Run("claims failed", func(t *testing.T) {
		t.Parallel()
		down := errors.New("model down")
		r := pageproc.Process(ctx, pageproc.URL(fetcher{res: htmlPage()}, "https://ice.example.org/"), cfg, extractor{err: down})
		if r.Status != pageproc.StatusClaimsFailed || !errors.Is(r.Err, down) || r.Page.Content == "" {
			t.Errorf("%v %v, want claims_failed with the extractor's error and the page read", r.Status, r.Err)
		}
	})
	t.Run("ok", func(t *testing.T) {
		t.Parallel()
		var asked models.ClaimRequest
		ex := extractor{asked: &asked, claims: []models.LLMClaim{
			{Claim: "Sea ice declines.", Quote: "Arctic sea ice has declined in recent decades", Confidence: 0.7},
			{Claim: "Invented.", Quote: "Sea ice grows every year"},
		}}
		r := pageproc.Process(ctx, pageproc.URL(fetcher{res: htmlPage()}, "https://ice.example.org/"), cfg, ex)
		if r.Status != pageproc.StatusOK || r.Err != nil {
			t.Fatalf("%v %v", r.Status, r.Err)
		}
		if asked.URL != "https://ice.example.org/a" || asked.Title != "Sea ice" || asked.MaxClaims != 20 || asked.Text != r.Page.Content {
			t.Errorf("extractor asked %+v", asked)
		}
		if len(r.Claims) != 1 || r.QuotesRejected != 1 || r.Extractor != "test-extractor" {
			t.Fatalf("claims %+v, %d rejected, extractor %q", r.Claims, r.QuotesRejected, r.Extractor)
		}
		c := r.Claims[0]
		if f := r.Page.Fragments[c.Fragment]; c.QuoteStart < f.Start || c.QuoteEnd > f.End {
			t.Errorf("claim %+v outside its fragment %+v", c, f)
		}
		if !r.Page.Fetched || r.Page.Title != "Sea ice" || r.Page.SHA256 == "" || len(r.Page.Identifiers) != 0 {
			t.Errorf("page %+v", r.Page)
		}
		own := extract.Identifier{Type: extract.IDDOI, Value: "10.1234/own"}
		other := extract.Identifier{Type: extract.IDDOI, Value: "10.5555/other"}
		if !slices.Equal(r.Page.Declared, []extract.Identifier{own}) || !slices.Contains(r.FollowUps.Cites, other) ||
			slices.Contains(r.FollowUps.Cites, own) || !r.FollowUps.CitationGraph {
			t.Errorf("declared %v, follow-ups %+v: want the meta DOI declared, the mentioned one cited, the citation graph queued",
				r.Page.Declared, r.FollowUps)
		}
	})
	t.Run("stored version of a known DOI", func(t *testing.T) {
		t.Parallel()
		in := pageproc.StoredDOI("10.1/known", "https://doi.org/10.1/known", "A stored abstract about sea ice.", time.Now())
		r := pageproc.Process(ctx, in, cfg, extractor{})
		if r.Status != pageproc.StatusOK || r.Page.Fetched || !r.FollowUps.CitationGraph ||
			!slices.Equal(r.Page.Identifiers, []extract.Identifier{{Type: extract.IDDOI, Value: "10.1/known"}}) {
			t.Errorf("%v %v: page %+v, follow-ups %+v", r.Status, r.Err, r.Page, r.FollowUps)
		}
	})
	t.Run("resolved paper", func(t *testing.T) {
		t.Parallel()
		p := &academic.Paper{DOI: "10.1/paper", PMID: "123", Title: "Sea ice", Abstract: "It declines.", Year: 2020, Authors: []string{"A. Author"}}
		r := pageproc.Read(ctx, pageproc.FromPaper(p), cfg)
		if r.Status != pageproc.StatusOK || r.Fetch.URL != "https://doi.org/10.1/paper" || r.Page.Content != "Sea ice\n\nIt declines." {
			t.Fatalf("%v %v: %+v", r.Status, r.Err, r.Fetch)
		}
		want := []extract.Identifier{{Type: extract.IDDOI, Value: "10.1/paper"}, {Type: extract.IDPMID, Value: "123"}}
		if !slices.Equal(r.Page.Identifiers, want) || r.Page.Paper == nil || r.Page.Paper.Year != 2020 || !r.FollowUps.CitationGraph {
			t.Errorf("ids %v, paper %+v, follow-ups %+v", r.Page.Identifiers, r.Page.Paper, r.FollowUps)
		}
	})
}

// TestClaimRequestTitleIsBounded: the title is outside text, sent with every
// piece of the page the extractor asks a model about; the extractor is
// given it bounded, as the store keeps it (a 1 MiB <title> went whole into
// every prompt, past any model's context).
func TestClaimRequestTitleIsBounded(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("Sea ice ", 1<<17)
	res := &crawl.Result{URL: "https://title.example.org/", FinalURL: "https://title.example.org/", Status: 200, ContentType: "text/html",
		Body: []byte("<html><head><title>" + huge + "</title></head><body><article><p>Arctic sea ice has declined in recent decades, as the measurements of many years show.</p></article></body></html>")}
	var asked models.ClaimRequest
	r := pageproc.Process(context.Background(), pageproc.URL(fetcher{res: res}, res.URL), pageproc.Config{}, extractor{asked: &asked})
	if r.Status != pageproc.StatusOK {
		t.Fatalf("%v %v", r.Status, r.Err)
	}
	if len(asked.Title) > 4000 || asked.Title != r.Page.Title || !strings.HasPrefix(asked.Title, "Sea ice") {
		t.Errorf("extractor asked with a title of %d bytes (the page keeps %d)", len(asked.Title), len(r.Page.Title))
	}
}
