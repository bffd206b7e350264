package testfleet

import "github.com/evidencefleet/evidencefleet/internal/harness/corpus"

// The glacier archive of the CLI, MCP and API tests: three pages on three
// domains about one topic. Sentences adapted from Wikipedia (CC BY-SA)
// articles on glaciers and sea level; non-ASCII characters on purpose, so
// that character offsets differ from byte offsets.
const (
	GlacierWiki       = "https://en.wikipedia.org/wiki/Retreat_of_glaciers"
	GlacierScience    = "https://www.glacier-science.example.org/studies/melt"
	GlacierBlog       = "https://blog.example-opinion.com/glaciers-are-fine"
	GlacierHypothesis = "Glaciers are retreating worldwide because of rising temperatures."
)

// GlacierPages are the glacier archive's pages.
func GlacierPages() []corpus.Page {
	return []corpus.Page{
		Page(GlacierWiki, "Retreat of glaciers since 1850",
			"The retreat of glaciers since 1850 affects the availability of fresh water for irrigation and domestic use — mountain recreation included.",
			"Glaciers are retreating worldwide because global temperatures have risen by about 1.1 °C since the pre-industrial era.",
			"Glacier retreat in the Alps has accelerated since 1980, and the Rhône Glacier lost a large part of its volume."),
		Page(GlacierScience, "Glacier melt study",
			"Scientists report that rising temperatures are causing glaciers to retreat worldwide at an accelerating rate.",
			"The melting of mountain glaciers contributed about 21 % of the observed sea level rise between 2000 and 2019."),
		Page(GlacierBlog, "Glaciers are fine",
			"Some commentators claim that glaciers are not retreating and that temperatures are not rising in the mountains.",
			"Several glaciers in Norway advanced during the 1990s because of increased winter snowfall."),
	}
}
