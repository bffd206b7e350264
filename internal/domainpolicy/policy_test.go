package domainpolicy

import (
	"os"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func TestDecidePrecedence(t *testing.T) {
	t.Parallel()
	p, err := Parse("test.yaml", []byte(`
base: none
default: {level: UNVERIFIED, requests_per_second: 0.2, requests_per_day: 200}
rules:
  - {suffix: .gov, level: GOVERNMENT}
  - {suffix: .nih.gov, level: TRUSTED}
  - {site: nist.gov, level: PRIMARY}
  - {host: pubmed.ncbi.nlm.nih.gov, level: ACADEMIC, requests_per_second: 0.5}
  - {site: wikipedia.org, level: LOW, requests_per_day: 500}
deny:
  - {host: bad.wikipedia.org, reason: vandalised}
  - {suffix: .evil.gov, reason: impostor}
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host, level string
		rps         float64
		perDay      int
		rule        string
	}{
		{"example.com", Unverified, 0.2, 200, "default"},
		{"www.usa.gov", Government, 0.2, 200, `suffix ".gov" (test.yaml line 5)`},
		// the longest suffix wins
		{"www.ncbi.nlm.nih.gov", Trusted, 0.2, 200, `suffix ".nih.gov" (test.yaml line 6)`},
		// a site beats a suffix
		{"csrc.nist.gov", Primary, 0.2, 200, `site "nist.gov" (test.yaml line 7)`},
		// an exact host beats a suffix, and takes its own politeness
		{"PubMed.NCBI.nlm.nih.gov.", Academic, 0.5, 200, `host "pubmed.ncbi.nlm.nih.gov" (test.yaml line 8)`},
		{"en.wikipedia.org", Low, 0.2, 500, `site "wikipedia.org" (test.yaml line 9)`},
		// a deny rule beats the site's rule and the suffix's
		{"bad.wikipedia.org", Blocked, 0.2, 200, `host "bad.wikipedia.org" (test.yaml line 11)`},
		{"www.evil.gov", Blocked, 0.2, 200, `suffix ".evil.gov" (test.yaml line 12)`},
		{"evil.gov", Blocked, 0.2, 200, `suffix ".evil.gov" (test.yaml line 12)`},
		// a suffix matches at a label boundary only
		{"notgov", Unverified, 0.2, 200, "default"},
		{"gov", Government, 0.2, 200, `suffix ".gov" (test.yaml line 5)`},
	}
	for _, tt := range tests {
		d := p.Decide(tt.host)
		if d.Level != tt.level || d.RequestsPerSecond != tt.rps || d.RequestsPerDay != tt.perDay || d.Rule != tt.rule {
			t.Errorf("Decide(%q) = %s %v/s %d/day by %s, want %s %v/s %d/day by %s",
				tt.host, d.Level, d.RequestsPerSecond, d.RequestsPerDay, d.Rule, tt.level, tt.rps, tt.perDay, tt.rule)
		}
		if d.Blocked != (tt.level == Blocked) {
			t.Errorf("Decide(%q).Blocked = %v", tt.host, d.Blocked)
		}
	}
	if d := p.Decide("bad.wikipedia.org"); d.Reason != "vandalised" {
		t.Errorf("a denied host's reason %q, want the deny rule's", d.Reason)
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ yaml, want string }{
		"unknown field":      {"rules:\n  - {site: a.com, level: LOW, qps: 1}\n", "p.yaml line 2: rules: field qps not found"},
		"unknown top field":  {"allowlist: []\n", "line 1: field allowlist not found"},
		"two kinds":          {"rules:\n  - {site: a.com, host: b.a.com, level: LOW}\n", "p.yaml line 2: rules: a rule names exactly one of host, site and suffix"},
		"no kind":            {"rules:\n  - {level: LOW}\n", "exactly one of host, site and suffix"},
		"bad level":          {"rules:\n  - {site: a.com, level: GOOD}\n", `p.yaml line 2: rules: level "GOOD"`},
		"blocked as a level": {"rules:\n  - {site: a.com, level: BLOCKED}\n", "a block is a deny rule"},
		"subdomain as site":  {"rules:\n  - {site: www.a.com, level: LOW}\n", `site "www.a.com" is not a registrable domain: use host "www.a.com", or site "a.com"`},
		"public suffix site": {"rules:\n  - {site: co.uk, level: LOW}\n", `site "co.uk" is a public suffix`},
		"suffix without dot": {"rules:\n  - {suffix: gov, level: LOW}\n", `suffix "gov": want a dot`},
		"bare dot suffix":    {"rules:\n  - {suffix: ., level: LOW}\n", `suffix`},
		"bad host":           {"rules:\n  - {host: 'a b.com', level: LOW}\n", `host "a b.com" is not a host name`},
		"negative rate":      {"rules:\n  - {site: a.com, requests_per_second: -1}\n", "requests_per_second -1"},
		"nothing set":        {"rules:\n  - {site: a.com}\n", "a rule sets a level or politeness"},
		"deny without why":   {"deny:\n  - {site: a.com}\n", "p.yaml line 2: deny: a deny rule says why"},
		"deny with a level":  {"deny:\n  - {site: a.com, reason: x, level: LOW}\n", "takes no level"},
		"duplicate":          {"rules:\n  - {site: a.com, level: LOW}\n  - {site: a.com, level: TRUSTED}\n", `p.yaml line 3: site "a.com" is already ruled on line 2`},
		"ruled and denied":   {"rules:\n  - {host: b.a.com, level: LOW}\ndeny:\n  - {host: b.a.com, reason: x}\n", `p.yaml line 4: host "b.a.com" is already ruled on line 2`},
		"bad base":           {"base: lyra\n", `base "lyra"`},
		"bad default level":  {"default: {level: BLOCKED}\n", `default level "BLOCKED"`},
	} {
		_, err := Parse("p.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", name, err, tc.want)
		}
	}
}

func TestWWWIsTheSameDomain(t *testing.T) {
	t.Parallel()
	p, err := Parse("p.yaml", []byte("base: none\nrules:\n  - {host: www.a.example.org, level: TRUSTED}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"a.example.org", "www.a.example.org", "WWW.A.Example.org."} {
		if d := p.Decide(h); d.Level != Trusted {
			t.Errorf("%s: %s, want the host rule's TRUSTED", h, d.Level)
		}
	}
}

func TestParseExtendsTheDefault(t *testing.T) {
	t.Parallel()
	p, err := Parse("ops.yaml", []byte(`
default: {requests_per_day: 50}
rules:
  - {site: wikipedia.org, level: TRUSTED}
  - {site: example.org, level: ACADEMIC}
deny:
  - {site: spam.example, reason: spam}
`))
	if err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]string{
		"en.wikipedia.org": Trusted,    // the file wins over the built-in LOW
		"example.org":      Academic,   // added
		"arxiv.org":        Academic,   // kept from the built-in policy
		"www.spam.example": Blocked,    // added deny
		"x.com":            Blocked,    // kept deny
		"example.com":      Unverified, // default level kept
	} {
		if d := p.Decide(host); d.Level != want {
			t.Errorf("%s: %s by %s, want %s", host, d.Level, d.Rule, want)
		}
	}
	if d := p.Decide("example.com"); d.RequestsPerDay != 50 || d.RequestsPerSecond != 0.2 {
		t.Errorf("default politeness %+v, want the file's 50/day and the built-in 0.2/s", d.Politeness)
	}
	only, err := Parse("ops.yaml", []byte("base: none\nrules:\n  - {site: example.org, level: ACADEMIC}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d := only.Decide("arxiv.org"); d.Level != Unverified {
		t.Errorf("base none: arxiv.org is %s by %s, want the default", d.Level, d.Rule)
	}
}

// TestDefaultFollowsTheReference checks the built-in policy against the
// reference list it was derived from: every domain the reference names
// gets its level, its skipped and denied patterns are blocked.
func TestDefaultFollowsTheReference(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../testdata/reference/lyra-domains.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Default struct {
			QPS         float64 `yaml:"qps"`
			PerDay      int     `yaml:"max_requests_per_day"`
			DomainLevel string  `yaml:"domain_category"`
		} `yaml:"default_policy"`
		Allow []struct {
			Domain   string  `yaml:"domain"`
			Category string  `yaml:"domain_category"`
			QPS      float64 `yaml:"qps"`
		} `yaml:"allowlist"`
		Gray []struct {
			Pattern  string `yaml:"domain_pattern"`
			Category string `yaml:"domain_category"`
			Skip     bool   `yaml:"skip"`
		} `yaml:"graylist"`
		Deny []struct {
			Pattern string `yaml:"domain_pattern"`
		} `yaml:"denylist"`
	}
	if err := yaml.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	p := Default()
	d := p.Decide("example.com")
	if d.Level != strings.ToUpper(ref.Default.DomainLevel) || d.RequestsPerSecond != ref.Default.QPS || d.RequestsPerDay != ref.Default.PerDay {
		t.Errorf("default %s %v/s %d/day, reference %s %v/s %d/day", d.Level, d.RequestsPerSecond, d.RequestsPerDay,
			ref.Default.DomainLevel, ref.Default.QPS, ref.Default.PerDay)
	}
	if len(ref.Allow) < 10 {
		t.Fatalf("reference allowlist has %d entries: not the file expected", len(ref.Allow))
	}
	for _, a := range ref.Allow {
		d := p.Decide(a.Domain)
		if d.Level != strings.ToUpper(a.Category) {
			t.Errorf("%s: %s by %s, reference %s", a.Domain, d.Level, d.Rule, a.Category)
		}
		if a.QPS > 0 && d.RequestsPerSecond != a.QPS {
			t.Errorf("%s: %v requests/s, reference %v", a.Domain, d.RequestsPerSecond, a.QPS)
		}
	}
	for _, g := range ref.Gray {
		host := strings.TrimPrefix(g.Pattern, "*.")
		d := p.Decide("www." + host)
		switch {
		case g.Skip && !d.Blocked:
			t.Errorf("%s: skipped by the reference, %s here", g.Pattern, d.Level)
		case g.Category != "" && d.Level != strings.ToUpper(g.Category):
			t.Errorf("%s: %s here, reference %s", g.Pattern, d.Level, g.Category)
		}
	}
	for _, dn := range ref.Deny {
		host := strings.TrimPrefix(dn.Pattern, "*.")
		if strings.HasSuffix(host, ".example") {
			continue // the reference's placeholders
		}
		if d := p.Decide("www." + host); !d.Blocked {
			t.Errorf("%s: denied by the reference, %s here", dn.Pattern, d.Level)
		}
	}
}

func TestWeights(t *testing.T) {
	t.Parallel()
	prev := 2.0
	for _, l := range Levels {
		if w := Weight(l); w >= prev {
			t.Errorf("%s weighs %v, not below the level before it (%v)", l, w, prev)
		} else {
			prev = w
		}
	}
	if Weight("") != Weight(Unverified) || Weight("SOMETHING") != Weight(Unverified) {
		t.Error("an unknown level does not weigh as UNVERIFIED")
	}
	if Weight(Blocked) != 0 {
		t.Error("BLOCKED has a weight")
	}
}

func TestNormalizeDomain(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"WWW.Example.org.": "example.org", "a.evil.com": "a.evil.com", "10.0.0.1": "10.0.0.1"} {
		if got, err := NormalizeDomain(in); err != nil || got != want {
			t.Errorf("NormalizeDomain(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{"*": "pattern", "*.com": "pattern", "com": "public suffix", "co.uk": "public suffix",
		"https://example.org/": "not a domain name", "": "not a domain name"} {
		if _, err := NormalizeDomain(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NormalizeDomain(%q): %v, want an error saying %q", in, err, want)
		}
	}
}

// TestSpacing: the spacing of a rate is its inverse; robots.txt's
// Crawl-delay wins when it is longer; no rate asks no spacing; nothing is
// spaced more than a day.
func TestSpacing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rps   float64
		crawl time.Duration
		want  time.Duration
	}{
		{rps: 0.2, want: 5 * time.Second}, // the default
		{rps: 0.5, want: 2 * time.Second},
		{rps: 5, want: 200 * time.Millisecond},
		{rps: 0.15, want: 6666666667 * time.Nanosecond},
		{rps: 0.2, crawl: 10 * time.Second, want: 10 * time.Second}, // Crawl-delay longer: it wins
		{rps: 0.2, crawl: time.Second, want: 5 * time.Second},       // shorter: the policy's
		{rps: 0, crawl: 0, want: 0},
		{rps: 0, crawl: 3 * time.Second, want: 3 * time.Second},
		{rps: 1e-12, want: MaxSpacing},                      // slower than once a day: once a day
		{rps: 0.2, crawl: 48 * time.Hour, want: MaxSpacing}, // a Crawl-delay over a day: a day
	}
	for _, tt := range tests {
		if got := (Politeness{RequestsPerSecond: tt.rps}).Spacing(tt.crawl); got != tt.want {
			t.Errorf("%v requests/s, Crawl-delay %s: spacing %s, want %s", tt.rps, tt.crawl, got, tt.want)
		}
	}
}
