// Package extract turns fetched pages into the canonical text of a page
// version and cuts that text into spans: fragments (at the sentence
// boundaries of internal/sentence, which also holds the built-in claim
// picker) and located quotes.
//
// Offsets. Every offset this package returns is a RUNE (Unicode code point)
// offset into the version text, half-open [start, end). That is what
// Postgres substring(content from start+1 for end-start) counts, so a span
// stored in the database reads back the same text. Go strings index bytes;
// the byte→rune conversion happens in RuneSpan (and in an internal
// forward-only cursor built on the same counting rule; internal/sentence
// keeps one alike for its own spans), nowhere else.
//
// Canonical text. FromHTML and FromPlainText produce text made of blocks
// (paragraphs, headings, list items, table rows) separated by exactly
// "\n\n"; inside a block every run of Unicode whitespace is a single space;
// the text is trimmed, valid UTF-8, NFC-normalised, and free of control
// characters (Postgres text rejects NUL), soft hyphens, zero-width spaces
// and byte-order marks. The package has no database or network access.
//
// Bounded input. FromHTMLWithLimits refuses, unparsed, a page whose tree
// the HTML5 parser would build over Limits (ErrTooManyElements, with the
// figures; see nodebudget.go), so that extracting any page stays within a
// bound of memory and time whatever its structure; the identifier scans
// return at most MaxIdentifiers and stop at a tag of more than 10,000
// attributes.
package extract
