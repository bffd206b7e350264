package domainpolicy

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
	"golang.org/x/net/publicsuffix"

	"github.com/evidencefleet/evidencefleet/internal/ident"
)

// defaultYAML is the policy the binary ships (default.yaml): derived from
// the reference list of the Python system the design follows
// (testdata/reference/lyra-domains.yaml), see TestDefaultFollowsTheReference.
//
//go:embed default.yaml
var defaultYAML []byte

// Default returns the built-in policy, parsed once; callers must not change
// it.
var Default = sync.OnceValue(func() *Policy {
	p, err := parse("default policy", defaultYAML, nil)
	if err != nil {
		panic(fmt.Sprintf("domainpolicy: the built-in policy does not parse: %v", err))
	}
	return p
})

// The file format (see default.yaml for a whole one).
type fileRule struct {
	Host              string  `yaml:"host"`
	Site              string  `yaml:"site"`
	Suffix            string  `yaml:"suffix"`
	Level             string  `yaml:"level"`
	RequestsPerSecond float64 `yaml:"requests_per_second"`
	RequestsPerDay    int     `yaml:"requests_per_day"`
	Reason            string  `yaml:"reason"`
}

type fileDefault struct {
	Level             string  `yaml:"level"`
	RequestsPerSecond float64 `yaml:"requests_per_second"`
	RequestsPerDay    int     `yaml:"requests_per_day"`
}

type file struct {
	// Base is "default" (the file extends the built-in policy; its rules
	// win over the built-in ones for the same host, site or suffix) or
	// "none" (the file is the whole policy). Empty means "default".
	Base    string      `yaml:"base"`
	Default fileDefault `yaml:"default"`
	Rules   []yaml.Node `yaml:"rules"`
	Deny    []yaml.Node `yaml:"deny"`
}

// Parse reads an operator's policy file; name (its path) is quoted in
// errors, which name the line.
func Parse(name string, data []byte) (*Policy, error) {
	return parse(name, data, Default())
}

func parse(name string, data []byte, base *Policy) (*Policy, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f file
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("domain policy %s: %w", name, err)
	}
	switch f.Base {
	case "", "default":
	case "none":
		base = nil
	default:
		return nil, fmt.Errorf("domain policy %s: base %q: want default or none", name, f.Base)
	}
	p := &Policy{Default: Rule{Level: Unverified, Politeness: Politeness{RequestsPerSecond: 0.2, RequestsPerDay: 200}, Source: name}}
	if base != nil {
		p.Default = base.Default
	}
	if err := applyDefault(&p.Default, f.Default, name); err != nil {
		return nil, err
	}
	seen := map[string]int{} // kind pattern → line
	var err error
	if p.Rules, err = readRules(name, f.Rules, false, seen); err != nil {
		return nil, err
	}
	if p.Deny, err = readRules(name, f.Deny, true, seen); err != nil {
		return nil, err
	}
	if base != nil {
		p.Rules = appendUnseen(p.Rules, base.Rules, seen)
		p.Deny = appendUnseen(p.Deny, base.Deny, seen)
	}
	return p, nil
}

func applyDefault(d *Rule, f fileDefault, name string) error {
	if f.Level != "" {
		if !IsLevel(f.Level) || f.Level == Blocked {
			return fmt.Errorf("domain policy %s: default level %q: want one of %s", name, f.Level, strings.Join(Levels[:len(Levels)-1], ", "))
		}
		d.Level = f.Level
	}
	if err := checkPoliteness(f.RequestsPerSecond, f.RequestsPerDay); err != nil {
		return fmt.Errorf("domain policy %s: default: %w", name, err)
	}
	if f.RequestsPerSecond > 0 {
		d.RequestsPerSecond = f.RequestsPerSecond
	}
	if f.RequestsPerDay > 0 {
		d.RequestsPerDay = f.RequestsPerDay
	}
	return nil
}

// appendUnseen appends the base rules whose kind and pattern the file did
// not define.
func appendUnseen(rules, base []Rule, seen map[string]int) []Rule {
	for _, r := range base {
		if _, ok := seen[r.Kind+" "+r.Pattern]; !ok {
			rules = append(rules, r)
		}
	}
	return rules
}

func readRules(name string, nodes []yaml.Node, deny bool, seen map[string]int) ([]Rule, error) {
	list := "rules"
	if deny {
		list = "deny"
	}
	var out []Rule
	for i := range nodes {
		n := &nodes[i]
		at := fmt.Sprintf("%s line %d", name, n.Line)
		var fr fileRule
		if err := decodeStrict(n, &fr); err != nil {
			return nil, fmt.Errorf("domain policy %s: %s: %w", at, list, err)
		}
		r, err := toRule(fr, deny)
		if err != nil {
			return nil, fmt.Errorf("domain policy %s: %s: %w", at, list, err)
		}
		r.Source = at
		key := r.Kind + " " + r.Pattern
		if line, dup := seen[key]; dup {
			return nil, fmt.Errorf("domain policy %s: %s %q is already ruled on line %d", at, r.Kind, r.Pattern, line)
		}
		seen[key] = n.Line
		out = append(out, r)
	}
	return out, nil
}

// decodeStrict decodes one mapping node, refusing fields the format lacks.
func decodeStrict(n *yaml.Node, v any) error {
	b, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		// the re-encoded node starts at line 1: drop yaml's own line number
		return errors.New(strings.TrimPrefix(strings.ReplaceAll(err.Error(), "yaml: unmarshal errors:\n  ", ""), "line 1: "))
	}
	return nil
}

func toRule(f fileRule, deny bool) (Rule, error) {
	r := Rule{Level: f.Level, Politeness: Politeness{RequestsPerSecond: f.RequestsPerSecond, RequestsPerDay: f.RequestsPerDay}, Reason: f.Reason}
	set := 0
	for kind, v := range map[string]string{KindHost: f.Host, KindSite: f.Site, KindSuffix: f.Suffix} {
		if v != "" {
			set++
			r.Kind, r.Pattern = kind, strings.TrimSuffix(strings.ToLower(strings.TrimSpace(v)), ".")
		}
	}
	if set != 1 {
		return r, errors.New("a rule names exactly one of host, site and suffix")
	}
	var err error
	if r.Pattern, err = canonicalPattern(r.Kind, r.Pattern); err != nil {
		return r, err
	}
	if err := checkPoliteness(r.RequestsPerSecond, r.RequestsPerDay); err != nil {
		return r, err
	}
	switch {
	case deny && r.Reason == "":
		return r, errors.New("a deny rule says why (reason)")
	case deny && (r.Level != "" || r.RequestsPerSecond != 0 || r.RequestsPerDay != 0):
		return r, errors.New("a deny rule blocks: it takes no level or politeness")
	case !deny && r.Level != "" && (!IsLevel(r.Level) || r.Level == Blocked):
		return r, fmt.Errorf("level %q: want one of %s (a block is a deny rule)", r.Level, strings.Join(Levels[:len(Levels)-1], ", "))
	case !deny && r.Level == "" && r.RequestsPerSecond == 0 && r.RequestsPerDay == 0:
		return r, errors.New("a rule sets a level or politeness")
	}
	return r, nil
}

// canonicalPattern checks a rule's pattern and returns it as the fleet
// keys hosts (ident.NormalizeHost; a host rule also without "www.").
func canonicalPattern(kind, p string) (string, error) {
	switch kind {
	case KindHost:
		h, err := ident.NormalizeHost(p)
		if err != nil {
			return "", fmt.Errorf("host %q is not a host name: %w", p, err)
		}
		return ident.HostDomain(h), nil // www.x.org is x.org's domain
	case KindSite:
		h, err := ident.NormalizeHost(p)
		if err != nil {
			return "", fmt.Errorf("site %q is not a domain name: %w", p, err)
		}
		if ps, _ := publicsuffix.PublicSuffix(h); ps == h {
			return "", fmt.Errorf("site %q is a public suffix: a suffix rule covers every site under it", p)
		}
		if s := ident.Site(h); s != h {
			return "", fmt.Errorf("site %q is not a registrable domain: use host %q, or site %q for the whole site", p, p, s)
		}
		return h, nil
	default: // KindSuffix
		h, err := ident.NormalizeHost(strings.TrimPrefix(p, "."))
		if !strings.HasPrefix(p, ".") || err != nil {
			return "", fmt.Errorf("suffix %q: want a dot and domain labels, as \".gov\" or \".ac.uk\"", p)
		}
		return "." + h, nil
	}
}

func checkPoliteness(rps float64, perDay int) error {
	switch {
	case rps < 0 || math.IsNaN(rps) || math.IsInf(rps, 0):
		return fmt.Errorf("requests_per_second %v: want a positive number", rps)
	case rps > 100:
		return fmt.Errorf("requests_per_second %v: more than 100 a second to one domain is not polite", rps)
	case perDay < 0:
		return fmt.Errorf("requests_per_day %d: want 0 (no budget) or more", perDay)
	}
	return nil
}

// NormalizeDomain returns s as the domains table keys a domain (lower case,
// no leading "www.", no trailing dot), refusing what names more than one
// domain or none: a pattern ("*.com"), a bare public suffix ("com",
// "co.uk"), a URL or anything that is not a host name.
func NormalizeDomain(s string) (string, error) {
	if strings.Contains(s, "*") {
		return "", fmt.Errorf("%q is a pattern: name one domain", s)
	}
	n, err := ident.NormalizeHost(strings.TrimSpace(s))
	if err != nil {
		return "", fmt.Errorf("%q is not a domain name: %w", s, err)
	}
	h := ident.HostDomain(n)
	if ps, _ := publicsuffix.PublicSuffix(h); ps == h && net.ParseIP(h) == nil {
		return "", fmt.Errorf("%q is a public suffix: it names every site under it", s)
	}
	return h, nil
}
