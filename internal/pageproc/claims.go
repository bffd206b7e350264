package pageproc

import (
	"math"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/extract"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// acceptClaims validates proposed claims against the page version's text:
// citations are validated, never generated. A claim is kept only when its
// quote occurs verbatim in the text (extract.LocateQuote: exact and
// case-sensitive after collapsing whitespace runs and folding typographic
// quotes) and the quote lies inside one fragment; it keeps the exact rune
// span of that occurrence. Claims with an empty text or quote, a text that
// is no claim (over jobs.MaxTextRunes, a control character), or a span
// already taken, count as rejected; those whose quote is in no one
// fragment as dropped; at most maxClaims are kept. No I/O.
func acceptClaims(text string, frags []extract.Fragment, maxClaims int, proposed []models.LLMClaim) (claims []Claim, rejected, dropped int) {
	taken := map[[2]int]bool{}
	for _, c := range proposed {
		if len(claims) >= maxClaims {
			break
		}
		claim := strings.Join(strings.Fields(c.Claim), " ")
		if claim == "" || jobs.CheckText(claim, jobs.MaxTextRunes) != nil {
			rejected++ // a model's answer is held to the claim bounds like a user's
			continue
		}
		start, end, ok := extract.LocateQuote(text, c.Quote)
		if !ok || taken[[2]int{start, end}] {
			rejected++
			continue
		}
		fi := containingFragment(frags, start, end)
		if fi < 0 {
			dropped++
			continue
		}
		taken[[2]int{start, end}] = true
		conf := c.Confidence
		if math.IsNaN(conf) {
			conf = 0
		}
		claims = append(claims, Claim{ExtractedClaim: extract.ExtractedClaim{Text: claim, QuoteStart: start, QuoteEnd: end,
			Confidence: min(max(conf, 0), 1)}, Fragment: fi})
	}
	return claims, rejected, dropped
}

// containingFragment returns the index of the fragment that contains the
// whole span, or -1. Fragments are sorted and disjoint.
func containingFragment(frags []extract.Fragment, start, end int) int {
	lo, hi := 0, len(frags)
	for lo < hi {
		mid := (lo + hi) / 2
		if frags[mid].End <= start {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(frags) && frags[lo].Start <= start && end <= frags[lo].End {
		return lo
	}
	return -1
}
