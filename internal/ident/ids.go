package ident

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Types of academic identifiers, as resource_index and targets name them.
const (
	DOI   = "doi"
	PMID  = "pmid"
	ArXiv = "arxiv"
)

// Academic identifiers: the normal forms under which pages are indexed and
// targets are keyed. Finding them in a page is internal/extract's business.

var (
	rxDOIValid  = regexp.MustCompile(`^10\.\d{4,9}/\S+$`)
	rxArxivNew  = regexp.MustCompile(`^\d{4}\.\d{4,5}$`)
	rxArxivOld  = regexp.MustCompile(`^[a-z][a-z\-]*(\.[A-Z]{2})?/\d{7}$`)
	rxArxivVer  = regexp.MustCompile(`v\d+$`)
	rxPMIDValid = regexp.MustCompile(`^0*[1-9]\d{0,8}$`)
)

// MaxDOIBytes bounds a DOI's normal form; registered DOIs are far shorter.
const MaxDOIBytes = 300

// MaxURLBytes bounds a URL's normal form, whether a target or a URL a
// fetch follows: what a btree index takes, far above any real URL.
const MaxURLBytes = 2048

// NormalizeDOI returns the canonical form of a DOI (lowercase, no "doi:" or
// resolver prefix, percent-decoded, trailing punctuation removed), or "" when
// s is not a DOI (ParseDOI says why).
func NormalizeDOI(s string) string {
	d, _ := ParseDOI(s)
	return d
}

// ParseDOI is NormalizeDOI with the reason a string is no DOI: not of the
// form 10.<registrant>/<suffix>; after percent-decoding, invalid UTF-8, a
// control character (NUL included: Postgres refuses it in text) or a "." or
// ".." path segment (which would reach another path of an API that takes
// the DOI in its URL); longer than MaxDOIBytes.
func ParseDOI(s string) (string, error) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "%") {
		if u, err := url.PathUnescape(s); err == nil {
			s = u
		}
	}
	if !utf8.ValidString(s) {
		return "", errors.New("not valid UTF-8")
	}
	if i := strings.IndexFunc(s, unicode.IsControl); i >= 0 {
		return "", fmt.Errorf("control character %U", []rune(s[i:])[0])
	}
	s = strings.ToLower(s)
	for prev := ""; prev != s; { // "doi:https://doi.org/10.…" too
		prev = s
		for _, p := range []string{"https://", "http://", "dx.doi.org/", "doi.org/", "info:doi/", "doi:"} {
			s = strings.TrimPrefix(s, p)
		}
	}
	s = strings.TrimSpace(s)
	s = TrimIDTail(s)
	if !rxDOIValid.MatchString(s) {
		return "", errors.New("not of the form 10.<registrant>/<suffix>")
	}
	for _, seg := range strings.Split(s, "/") {
		if seg == "." || seg == ".." {
			return "", fmt.Errorf("path segment %q", seg)
		}
	}
	if len(s) > MaxDOIBytes {
		return "", fmt.Errorf("longer than %d bytes", MaxDOIBytes)
	}
	return s, nil
}

// TrimIDTail removes trailing sentence punctuation and unbalanced closing
// brackets picked up from running text.
func TrimIDTail(s string) string {
	for s != "" {
		c := s[len(s)-1]
		switch c {
		case '.', ',', ';', ':', '!', '?':
			s = s[:len(s)-1]
			continue
		case ')', ']', '}':
			open := map[byte]byte{')': '(', ']': '[', '}': '{'}[c]
			if strings.Count(s, string(open)) < strings.Count(s, string(c)) {
				s = s[:len(s)-1]
				continue
			}
		}
		return s
	}
	return s
}

// NormalizeArXiv returns the canonical form of an arXiv identifier (no
// "arXiv:" prefix, no version suffix), or "" when s is not one.
func NormalizeArXiv(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 6 && strings.EqualFold(s[:6], "arxiv:") {
		s = strings.TrimSpace(s[6:])
	}
	s = strings.TrimSuffix(s, ".pdf")
	s = TrimIDTail(s)
	s = rxArxivVer.ReplaceAllString(s, "")
	if rxArxivNew.MatchString(s) {
		return s
	}
	if i := strings.IndexByte(s, '/'); i > 0 {
		s = strings.ToLower(s[:i]) + s[i:]
		if j := strings.IndexByte(s[:i], '.'); j > 0 {
			// subject class is upper-case: math.AG/0101001
			s = s[:j+1] + strings.ToUpper(s[j+1:i]) + s[i:]
		}
	}
	if rxArxivOld.MatchString(s) {
		return s
	}
	return ""
}

// NormalizePMID accepts "12345", "PMID: 12345" or "pmid12345" and returns the
// digits without leading zeros, or "" (a PMCID such as "PMC123" is rejected).
func NormalizePMID(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 4 && strings.EqualFold(s[:4], "pmid") {
		s = strings.TrimSpace(strings.TrimPrefix(s[4:], ":"))
	}
	if !rxPMIDValid.MatchString(s) {
		return ""
	}
	return strings.TrimLeft(s, "0")
}
