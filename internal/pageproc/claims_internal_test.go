package pageproc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/extract"
	"github.com/evidencefleet/evidencefleet/internal/models"
)

func TestAcceptClaimsValidatesQuotesAgainstThePage(t *testing.T) {
	text := "Arctic sea ice has declined in recent decades.\n\nPolar bears  hunt seals from the ice. They are “vulnerable” today."
	frags := extract.Fragments(text, extract.FragmentOptions{MaxRunes: 80})
	span := func(s string) [2]int {
		st, en, ok := extract.LocateQuote(text, s)
		if !ok {
			t.Fatalf("test setup: %q not in text", s)
		}
		return [2]int{st, en}
	}
	cases := []struct {
		name               string
		proposed           []models.LLMClaim
		max                int
		wantSpans          [][2]int
		wantRejected       int
		wantDroppedSpan    int
		wantFirstConfident float64
	}{
		{
			name:               "verbatim quote kept with exact offsets",
			proposed:           []models.LLMClaim{{Claim: "Arctic sea ice is declining.", Quote: "Arctic sea ice has declined in recent decades.", Confidence: 0.8}},
			max:                5,
			wantSpans:          [][2]int{span("Arctic sea ice has declined in recent decades.")},
			wantFirstConfident: 0.8,
		},
		{
			name:         "quote not in the page is rejected",
			proposed:     []models.LLMClaim{{Claim: "Sea ice grows.", Quote: "Arctic sea ice has grown in recent decades.", Confidence: 0.9}},
			max:          5,
			wantRejected: 1,
		},
		{
			name:      "whitespace runs and typographic quotes are normalised",
			proposed:  []models.LLMClaim{{Claim: "Polar bears hunt seals.", Quote: "Polar bears hunt seals from the ice. They are \"vulnerable\" today.", Confidence: 2}},
			max:       5,
			wantSpans: [][2]int{span("Polar bears  hunt seals from the ice. They are “vulnerable” today.")},
			// confidence is clamped to [0,1]
			wantFirstConfident: 1,
		},
		{
			name:         "case differs: rejected (matching is case-sensitive)",
			proposed:     []models.LLMClaim{{Claim: "x", Quote: "arctic sea ice has declined"}},
			max:          5,
			wantRejected: 1,
		},
		{
			name: "empty claim, empty quote and duplicate span are rejected",
			proposed: []models.LLMClaim{
				{Claim: "", Quote: "Arctic sea ice"},
				{Claim: "Ice", Quote: "  "},
				{Claim: "Ice declined", Quote: "Arctic sea ice has declined"},
				{Claim: "Ice declined again", Quote: "Arctic sea ice has declined"},
			},
			max:          5,
			wantSpans:    [][2]int{span("Arctic sea ice has declined")},
			wantRejected: 3,
		},
		{
			name: "a claim text over the bound or with a NUL is rejected (a model's answer is outside input)",
			proposed: []models.LLMClaim{
				{Claim: strings.Repeat("ice ", 600), Quote: "Arctic sea ice"},
				{Claim: "Ice\x00declined", Quote: "Arctic sea ice"},
				{Claim: "Ice declined", Quote: "Arctic sea ice"},
			},
			max:          5,
			wantSpans:    [][2]int{span("Arctic sea ice")},
			wantRejected: 2,
		},
		{
			name:            "quote across two fragments is dropped as span",
			proposed:        []models.LLMClaim{{Claim: "Both.", Quote: "in recent decades.\n\nPolar bears"}},
			max:             5,
			wantDroppedSpan: 1,
		},
		{
			name: "at most max claims",
			proposed: []models.LLMClaim{
				{Claim: "a", Quote: "Arctic sea ice"},
				{Claim: "b", Quote: "Polar bears"},
			},
			max:       1,
			wantSpans: [][2]int{span("Arctic sea ice")},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			claims, rejected, dropped := acceptClaims(text, frags, tc.max, tc.proposed)
			if len(claims) != len(tc.wantSpans) {
				t.Fatalf("kept %d claims %+v, want %d", len(claims), claims, len(tc.wantSpans))
			}
			runes := []rune(text)
			for i, c := range claims {
				if got := [2]int{c.QuoteStart, c.QuoteEnd}; got != tc.wantSpans[i] {
					t.Errorf("claim %d span %v, want %v", i, got, tc.wantSpans[i])
				}
				f := frags[c.Fragment]
				if c.QuoteStart < f.Start || c.QuoteEnd > f.End {
					t.Errorf("claim %d span outside its fragment [%d,%d)", i, f.Start, f.End)
				}
				if quoted := string(runes[c.QuoteStart:c.QuoteEnd]); quoted == "" {
					t.Errorf("claim %d has an empty quote", i)
				}
			}
			if tc.wantFirstConfident != 0 && claims[0].Confidence != tc.wantFirstConfident {
				t.Errorf("confidence %v, want %v", claims[0].Confidence, tc.wantFirstConfident)
			}
			if rejected != tc.wantRejected || dropped != tc.wantDroppedSpan {
				t.Errorf("rejected %d dropped_span %d, want %d %d", rejected, dropped, tc.wantRejected, tc.wantDroppedSpan)
			}
		})
	}
}

// TestReadBounds: a page over the element cap fails unread, naming the cap;
// a page with more fragments than the cap keeps its first ones and its whole
// text.
func TestReadBounds(t *testing.T) {
	t.Parallel()
	flood := crawl.Result{URL: "https://flood.example.org/", FinalURL: "https://flood.example.org/", ContentType: "text/html",
		Body: []byte("<html><body>" + strings.Repeat("<p>a.</p>", 1000) + "</body></html>")}
	r := Read(context.Background(), URL(inHand{&flood}, flood.URL), Config{MaxElements: 500})
	if err := r.Err; r.Status != StatusUnreadable || !errors.Is(err, extract.ErrTooManyElements) || !strings.Contains(err.Error(), "500") {
		t.Errorf("flood page: %v %v, want too many elements naming the cap", r.Status, err)
	}
	var paragraphs []string
	for i := range 40 {
		paragraphs = append(paragraphs, fmt.Sprintf("<p>Paragraph number %d says something about the sea ice of the Arctic.</p>", i))
	}
	long := crawl.Result{URL: "https://long.example.org/", FinalURL: "https://long.example.org/", ContentType: "text/html",
		Body: []byte("<html><body><article>" + strings.Join(paragraphs, "") + "</article></body></html>")}
	all := Read(context.Background(), URL(inHand{&long}, long.URL), Config{MaxElements: 500, Fragments: extract.FragmentOptions{MaxRunes: 80}})
	if all.Err != nil {
		t.Fatal(all.Err)
	}
	capped := Read(context.Background(), URL(inHand{&long}, long.URL), Config{MaxElements: 500, MaxFragments: 5, Fragments: extract.FragmentOptions{MaxRunes: 80}})
	if capped.Err != nil {
		t.Fatal(capped.Err)
	}
	if len(all.Page.Fragments) <= 5 || len(capped.Page.Fragments) != 5 || capped.Page.Fragments[4] != all.Page.Fragments[4] || capped.Page.Content != all.Page.Content {
		t.Errorf("%d fragments uncapped, %d capped (want the first 5 of them, with the whole text)", len(all.Page.Fragments), len(capped.Page.Fragments))
	}
}
