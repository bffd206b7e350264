// Package extracteval measures main-text extraction against pages with known
// main text: token-shingle precision, recall and F1 computed the way public
// article-extraction benchmarks compute them, and the development set in
// testdata/extract-dev (see its ATTRIBUTION.md) read into pages.
package extracteval
