package extract

// ExtractedClaim is a claim candidate with its verbatim quote span
// [QuoteStart, QuoteEnd) (rune offsets) in the version text.
type ExtractedClaim struct {
	Text                 string
	QuoteStart, QuoteEnd int
	Confidence           float64
}
