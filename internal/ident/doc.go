// Package ident holds the normal forms of what the fleet keys things by:
// URLs (NormalizeURL, Domain) and academic identifiers (DOI, PMID, arXiv).
// It is pure — the standard library and golang.org/x/net/idna only — so that
// the public job contract (package jobs) can validate targets without
// pulling in the crawler or the HTML parsers.
package ident
