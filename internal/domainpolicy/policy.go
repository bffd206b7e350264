// Package domainpolicy is the fleet's domain policy (ARCHITECTURE.md §5.5):
// the trust levels and their ranking weights, and the rules that give a
// host its level, its politeness (request spacing and a daily budget) or a
// block. It is pure: it parses a policy and answers for a host; who applies
// the answer, and where levels of record live, is for its callers.
//
// A rule matches a host in one of three ways, and a host gets the first
// answer in this order:
//
//  1. deny: a deny rule that matches, of any kind, blocks the host;
//  2. host: the rule names exactly this host;
//  3. site: the rule names the host's registrable domain (ident.Site), so
//     it covers the site and every subdomain;
//  4. suffix: the host ends in the rule's suffix at a label boundary
//     (".gov", ".go.jp"), or is the suffix's own domain ("go.jp"); the
//     longest matching suffix wins;
//  5. the policy's default.
//
// A deny rule comes first because a site an operator refuses must never be
// fetched whatever else vouches for it; the narrower a rule, the more it
// knows about the host, so an exact host beats its site and a site beats a
// suffix shared by thousands of sites.
package domainpolicy

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/ident"
)

// Trust levels, best first, as stored in domains.trust_level.
const (
	Primary    = "PRIMARY"
	Government = "GOVERNMENT"
	Academic   = "ACADEMIC"
	Trusted    = "TRUSTED"
	Low        = "LOW"
	Unverified = "UNVERIFIED"
	Blocked    = "BLOCKED"
)

// Levels are the trust levels, best first.
var Levels = []string{Primary, Government, Academic, Trusted, Low, Unverified, Blocked}

// weights are the ranking weights per level (ARCHITECTURE.md §5.3).
var weights = map[string]float64{
	Primary:    1.0,
	Government: 0.95,
	Academic:   0.90,
	Trusted:    0.75,
	Low:        0.40,
	Unverified: 0.30,
	Blocked:    0,
}

// Weight returns the ranking weight of a trust level. An empty or unknown
// level weighs as UNVERIFIED: a level nobody vouched for earns no more than
// an unverified domain.
func Weight(level string) float64 {
	if w, ok := weights[level]; ok {
		return w
	}
	return weights[Unverified]
}

// IsLevel reports whether s is one of Levels.
func IsLevel(s string) bool {
	_, ok := weights[s]
	return ok
}

// Politeness is how often one domain may be fetched, fleet-wide.
type Politeness struct {
	RequestsPerSecond float64 // spacing between requests: 1/RequestsPerSecond seconds
	RequestsPerDay    int     // daily budget; 0 means none
}

// MaxSpacing is the longest Spacing: a rate below one fetch a day, or a
// longer Crawl-delay, is read as one a day.
const MaxSpacing = 24 * time.Hour

// Spacing is the least time between two fetches of the domain, fleet-wide:
// 1/RequestsPerSecond, or robots.txt's Crawl-delay when that is longer, at
// most MaxSpacing. A zero RequestsPerSecond asks no spacing of its own.
func (p Politeness) Spacing(crawlDelay time.Duration) time.Duration {
	s := min(max(crawlDelay, 0), MaxSpacing)
	if p.RequestsPerSecond > 0 {
		s = max(s, time.Duration(math.Round(float64(time.Second)*min(1/p.RequestsPerSecond, MaxSpacing.Seconds()))))
	}
	return s
}

// Rule kinds.
const (
	KindHost   = "host"
	KindSite   = "site"
	KindSuffix = "suffix"
)

// Rule gives the hosts it matches a level and politeness, or blocks them.
type Rule struct {
	Kind    string // KindHost, KindSite or KindSuffix
	Pattern string // a host, a registrable domain, or a suffix starting with "."
	Level   string // "" leaves the default's level
	// Politeness fields left zero take the default's.
	Politeness
	Reason string // why (a deny rule must say)
	// Source names where the rule was written: "default policy line 12",
	// "/etc/evf/policy.yaml line 3".
	Source string
}

// matches reports whether the rule covers host (lower-case, no trailing dot).
func (r Rule) matches(host string) bool {
	switch r.Kind {
	case KindHost:
		return host == r.Pattern
	case KindSite:
		return ident.Site(host) == r.Pattern
	case KindSuffix:
		return strings.HasSuffix(host, r.Pattern) || host == r.Pattern[1:]
	}
	return false
}

// Policy is a parsed domain policy.
type Policy struct {
	Default Rule // the level and politeness of a host no rule matches
	Deny    []Rule
	Rules   []Rule
}

// Decision is the policy's answer for one host.
type Decision struct {
	Host    string
	Level   string // Blocked when a deny rule matched
	Blocked bool
	Politeness
	Reason string // the deny rule's reason, or the rule's own
	Rule   string // which rule decided, e.g. `site "wikipedia.org" (default policy line 40)`; "default" for none
}

// Decide answers for host (any case, a trailing dot and a leading "www."
// ignored: www.example.org is example.org's domain, as in the domains table,
// ident.Domain). A nil policy is the built-in one.
func (p *Policy) Decide(host string) Decision {
	if p == nil {
		p = Default()
	}
	h := ident.HostDomain(strings.TrimSpace(host))
	d := Decision{Host: h, Level: p.Default.Level, Politeness: p.Default.Politeness, Rule: "default"}
	for _, r := range p.Deny {
		if r.matches(h) {
			d.Level, d.Blocked, d.Reason, d.Rule = Blocked, true, r.Reason, describe(r)
			return d
		}
	}
	r, ok := p.match(h)
	if !ok {
		return d
	}
	if r.Level != "" {
		d.Level = r.Level
	}
	if r.RequestsPerSecond > 0 {
		d.RequestsPerSecond = r.RequestsPerSecond
	}
	if r.RequestsPerDay > 0 {
		d.RequestsPerDay = r.RequestsPerDay
	}
	d.Reason, d.Rule = r.Reason, describe(r)
	return d
}

// match finds the rule that decides h: an exact host, else its site, else
// the longest suffix.
func (p *Policy) match(h string) (Rule, bool) {
	var site, suffix *Rule
	for i := range p.Rules {
		r := &p.Rules[i]
		if !r.matches(h) {
			continue
		}
		switch r.Kind {
		case KindHost:
			return *r, true
		case KindSite:
			if site == nil {
				site = r
			}
		case KindSuffix:
			if suffix == nil || len(r.Pattern) > len(suffix.Pattern) {
				suffix = r
			}
		}
	}
	switch {
	case site != nil:
		return *site, true
	case suffix != nil:
		return *suffix, true
	}
	return Rule{}, false
}

func describe(r Rule) string {
	return fmt.Sprintf("%s %q (%s)", r.Kind, r.Pattern, r.Source)
}
