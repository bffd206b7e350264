package models

import "math"

// PassageFormat names how a fragment is embedded: its text and its page's
// title, each embedded and combined by PassageVector. It is part of the id
// recorded with fragment embeddings (PassageModel).
const PassageFormat = "title-text-v1"

// PassageModel is the id recorded with fragment embeddings
// (fragments.embed_model): the embedder's model and PassageFormat. A
// fragment embedded by another model or in another format (text alone,
// before this format) does not carry it, so it counts as not embedded and an
// embed job embeds it again: a graph never ranks with vectors of two
// formats. Claims and queries are embedded as they are (Embedder.Model).
func PassageModel(e Embedder) string { return e.Model() + "+" + PassageFormat }

// PassageVector is a fragment's embedding from the embeddings of its text
// and of its page title: the L2-normalised sum of the two unit vectors, so
// that the cosine with a claim is the claim's similarity to the passage and
// to the page's subject in equal parts, whatever the passage's length (a
// sentence often names its subject only in its article's title; passage
// retrieval indexes each passage with its document's title, as DPR does).
// A zero title vector (no title) leaves the text's direction; vectors of
// different lengths, or a zero sum, give the text vector unchanged.
func PassageVector(text, title []float32) []float32 {
	nt, nh := norm(text), norm(title)
	if len(text) != len(title) || nh == 0 {
		return text
	}
	out := make([]float32, len(text))
	var sq float64
	for i := range out {
		x := float64(title[i]) / nh
		if nt > 0 {
			x += float64(text[i]) / nt
		}
		out[i] = float32(x)
		sq += x * x
	}
	if sq == 0 || math.IsNaN(sq) || math.IsInf(sq, 0) {
		return text
	}
	n := math.Sqrt(sq)
	for i := range out {
		out[i] = float32(float64(out[i]) / n)
	}
	return out
}

// norm is the L2 norm of v.
func norm(v []float32) float64 {
	var sq float64
	for _, x := range v {
		sq += float64(x) * float64(x)
	}
	return math.Sqrt(sq)
}
