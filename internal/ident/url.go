package ident

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// NormalizeURL returns the canonical form of an http(s) URL, used as the
// natural key of pages and as the replay-archive lookup key:
//
//   - scheme and host lowercased (non-ASCII hosts converted to punycode),
//     default port (:80 for http, :443 for https) removed;
//   - fragment removed; an empty path becomes "/";
//   - percent-encoding canonicalised: escapes of unreserved characters decoded,
//     other escapes upper-cased, bytes not allowed in a path/query escaped;
//   - query parameters sorted by name (values of one name keep their order),
//     utm_*, fbclid and gclid removed; an empty query is dropped.
//
// Only http and https are accepted; URLs with userinfo (credentials) are
// rejected. The error names the problem.
func NormalizeURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", errors.New("normalize URL: empty URL")
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("normalize URL %q: %w", raw, err)
	}
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "http", "https":
	case "":
		return "", fmt.Errorf("normalize URL %q: missing scheme (want http or https)", raw)
	default:
		return "", fmt.Errorf("normalize URL %q: unsupported scheme %q (want http or https)", raw, u.Scheme)
	}
	if u.Opaque != "" {
		return "", fmt.Errorf("normalize URL %q: not a hierarchical URL (missing //)", raw)
	}
	if u.User != nil {
		return "", fmt.Errorf("normalize URL %q: userinfo (credentials) in URL not allowed", raw)
	}
	host, err := normalizeHost(u.Hostname())
	if err != nil {
		return "", fmt.Errorf("normalize URL %q: %w", raw, err)
	}
	port := u.Port() // "" also for "host:"
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}

	path := canonicalEscapes(u.EscapedPath(), false)
	if path == "" {
		path = "/"
	}
	var b strings.Builder
	b.WriteString(scheme)
	b.WriteString("://")
	b.WriteString(host)
	b.WriteString(path)
	if q := normalizeQuery(u.RawQuery); q != "" {
		b.WriteByte('?')
		b.WriteString(q)
	}
	return b.String(), nil
}

// NormalizeHost is a URL host as the fleet keys it: lower case, no trailing
// dot, IDNA hosts in their ASCII form, IP addresses (and hosts ending in a
// number read as IPv4) in their canonical form; an error for a host no URL
// of the fleet can have.
func NormalizeHost(h string) (string, error) { return normalizeHost(h) }

func normalizeHost(h string) (string, error) {
	if h == "" {
		return "", errors.New("missing host")
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" {
		return "", errors.New("missing host")
	}
	if ip := net.ParseIP(h); ip != nil {
		if ip4 := ip.To4(); ip4 != nil && !strings.Contains(h, ":") {
			return ip4.String(), nil
		}
		return ip.String(), nil
	}
	ascii := true
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if !ascii {
		p, err := idna.Lookup.ToASCII(h)
		if err != nil {
			return "", fmt.Errorf("invalid international host %q: %w", h, err)
		}
		h = p
	}
	h = strings.ToLower(h)
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return "", fmt.Errorf("invalid character %q in host %q", c, h)
		}
	}
	if endsInNumber(h) {
		ip, err := parseIPv4Number(h)
		if err != nil {
			return "", fmt.Errorf("host %q ends in a number but is no IPv4 address: %w", h, err)
		}
		return ip.String(), nil
	}
	return h, nil
}

// Domain returns the host used for domain policy, politeness limits and
// origin-domain exclusion: the lowercased host of a (normalised) URL without
// port and without a leading "www.". It returns "" when the URL has no host.
func Domain(normalizedURL string) string {
	u, err := url.Parse(strings.TrimSpace(normalizedURL))
	if err != nil {
		return ""
	}
	return HostDomain(u.Hostname())
}

func HostDomain(host string) string {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	return strings.TrimPrefix(h, "www.")
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// allowedLiteral reports whether c may appear unescaped in a path (pchar or
// '/') or, when query is true, in a query component (pchar, '/', '?').
func allowedLiteral(c byte, query bool) bool {
	if isUnreserved(c) {
		return true
	}
	switch c {
	case '!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=', ':', '@', '/':
		return true
	case '?':
		return query
	}
	return false
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

const upperHex = "0123456789ABCDEF"

// canonicalEscapes rewrites percent-encoding canonically (RFC 3986 §6.2.2):
// %XX of an unreserved character is decoded, other %XX are upper-cased,
// and bytes that may not appear literally are escaped. A '%' that does not
// start a valid escape is itself escaped as %25.
func canonicalEscapes(s string, query bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) {
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if ok1 && ok2 {
				v := hi<<4 | lo
				if isUnreserved(v) {
					b.WriteByte(v)
				} else {
					b.WriteByte('%')
					b.WriteByte(upperHex[hi])
					b.WriteByte(upperHex[lo])
				}
				i += 2
				continue
			}
		}
		if c != '%' && allowedLiteral(c, query) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&15])
	}
	return b.String()
}

// trackingParam reports whether a query parameter name is a click/campaign
// tracker that never changes the page: utm_*, fbclid, gclid.
func trackingParam(name string) bool {
	n := strings.ToLower(name)
	return strings.HasPrefix(n, "utm_") || n == "fbclid" || n == "gclid"
}

// normalizeQuery sorts the parameters by (decoded) name, keeping the order of
// values of one name, and drops tracking parameters. Each parameter keeps
// its raw spelling apart from canonical percent-encoding, so "a" and "a="
// stay distinct and '+' is not reinterpreted.
func normalizeQuery(raw string) string {
	if raw == "" {
		return ""
	}
	type param struct{ key, text string }
	var ps []param
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		rawKey, _, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(rawKey)
		if err != nil {
			key = rawKey
		}
		if trackingParam(key) {
			continue
		}
		ps = append(ps, param{key: key, text: canonicalEscapes(part, true)})
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].key < ps[j].key })
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.text
	}
	return strings.Join(parts, "&")
}

// Site returns the registrable domain (eTLD+1, by the Public Suffix List) of
// a host or domain, lowercased: a.evil.com and b.evil.com are one site,
// evil.co.uk and good.co.uk two. Sources are independent only across
// sites. An IP address, a public suffix itself or a host the list cannot
// place is its own site.
func Site(host string) string {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "" || net.ParseIP(h) != nil {
		return h
	}
	site, err := publicsuffix.EffectiveTLDPlusOne(h)
	if err != nil {
		return h
	}
	return site
}
