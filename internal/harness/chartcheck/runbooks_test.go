package chartcheck_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"sigs.k8s.io/yaml"
)

// runbooks is the document every alert's runbook_url points into.
const runbooks = "../../../docs/runbooks.md"

// githubSlug is the anchor GitHub gives a Markdown heading: the text
// lower-cased, punctuation (anything but letters, digits, spaces, hyphens
// and underscores) removed, each space a hyphen.
func githubSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var atxHeading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)

// anchors returns the GitHub anchors of the headings of a Markdown file
// (ATX headings outside fenced code blocks; a repeated slug gets -1, -2…),
// and the in-document links (#anchor) it makes.
func anchors(t *testing.T, path string) (set map[string]bool, links []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	set = map[string]bool{}
	seen := map[string]int{}
	fenced := false
	link := regexp.MustCompile(`\]\(#([^)\s]+)\)`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if trimmed := strings.TrimSpace(line); strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range link.FindAllStringSubmatch(line, -1) {
			links = append(links, m[1])
		}
		m := atxHeading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := githubSlug(m[1])
		if n := seen[slug]; n > 0 {
			seen[slug]++
			slug = fmt.Sprintf("%s-%d", slug, n)
		} else {
			seen[slug] = 1
		}
		set[slug] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return set, links
}

func TestGitHubSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"EvidenceFleetBacklogGrowing":        "evidencefleetbackloggrowing",
		"Before you start":                   "before-you-start",
		"What `enqueue status` shows, now!":  "what-enqueue-status-shows-now",
		"Many pods, one Postgres: PgBouncer": "many-pods-one-postgres-pgbouncer",
		"snake_case and -hyphens-":           "snake_case-and--hyphens-",
	} {
		if got := githubSlug(in); got != want {
			t.Errorf("githubSlug(%q) = %q, want %q", in, got, want)
		}
	}
}

// defaultRunbookBase is prometheusRule.runbookBaseURL of the chart's values.yaml.
func defaultRunbookBase(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		PrometheusRule struct {
			RunbookBaseURL string `json:"runbookBaseURL"`
		} `json:"prometheusRule"`
	}
	if err := yaml.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if v.PrometheusRule.RunbookBaseURL == "" {
		t.Fatal("values.yaml: prometheusRule.runbookBaseURL is empty: the alerts would have no runbook_url")
	}
	return v.PrometheusRule.RunbookBaseURL
}

// runbookURLs maps the rendered alerts to their runbook_url annotations.
func runbookURLs(r rendered) map[string]string {
	out := map[string]string{}
	for _, pr := range r.rules {
		for _, g := range pr.Spec.Groups {
			for _, rule := range g.Rules {
				out[rule.Alert] = rule.Annotations["runbook_url"]
			}
		}
	}
	return out
}

// TestAlertRunbooks: every alert the chart renders carries a runbook_url,
// prometheusRule.runbookBaseURL and "#" and an anchor that is a heading of
// docs/runbooks.md (GitHub's slug of it), and the document's own links to
// other sections resolve; the base URL follows the values, "" leaves the
// annotation out, and the schema refuses a base URL with a fragment.
func TestAlertRunbooks(t *testing.T) {
	t.Parallel()
	headings, links := anchors(t, runbooks)
	base := defaultRunbookBase(t)
	if !strings.HasSuffix(base, "/docs/runbooks.md") {
		t.Errorf("runbookBaseURL %q does not point at docs/runbooks.md", base)
	}
	for _, l := range links {
		if !headings[l] {
			t.Errorf("%s links to #%s, which is no heading of it", runbooks, l)
		}
	}

	urls := runbookURLs(render(t, chartDir, nil, "--api-versions", ruleAPI))
	if len(urls) != len(alertNames) {
		t.Errorf("alerts %v, want %v", keys(urls), alertNames)
	}
	for _, name := range alertNames {
		u, ok := urls[name]
		if !ok {
			t.Errorf("alert %s not rendered", name)
			continue
		}
		anchor, found := strings.CutPrefix(u, base+"#")
		switch {
		case u == "":
			t.Errorf("alert %s has no runbook_url", name)
		case !found:
			t.Errorf("alert %s: runbook_url %q is not %s#<anchor>", name, u, base)
		case !headings[anchor]:
			t.Errorf("alert %s: runbook_url %q: no heading of %s has the anchor #%s", name, u, runbooks, anchor)
		case anchor != githubSlug(name):
			t.Errorf("alert %s: anchor #%s, want its own section #%s", name, anchor, githubSlug(name))
		}
	}

	custom := writeValues(t, "prometheusRule: {runbookBaseURL: 'https://wiki.example.org/ops/evidencefleet'}\n")
	for name, u := range runbookURLs(render(t, chartDir, []string{custom}, "--api-versions", ruleAPI)) {
		if want := "https://wiki.example.org/ops/evidencefleet#" + strings.ToLower(name); u != want {
			t.Errorf("alert %s with a custom base URL: runbook_url %q, want %q", name, u, want)
		}
	}
	none := writeValues(t, "prometheusRule: {runbookBaseURL: ''}\n")
	for name, u := range runbookURLs(render(t, chartDir, []string{none}, "--api-versions", ruleAPI)) {
		if u != "" {
			t.Errorf("alert %s has runbook_url %q although runbookBaseURL is empty", name, u)
		}
	}
	bad := writeValues(t, "prometheusRule: {runbookBaseURL: 'https://example.org/runbooks.md#top'}\n")
	if out, err := run(t, "lint", "--strict", chartDir, "-f", bad); err == nil {
		t.Errorf("the schema accepts a runbookBaseURL with a fragment:\n%s", out)
	}

	// Every section of the document is an alert's (or the introduction's):
	// a section left behind by a renamed alert is found here.
	var sections []string
	for h := range headings {
		if strings.HasPrefix(h, "evidencefleet") && !strings.HasPrefix(h, "evidencefleet-") {
			sections = append(sections, h)
		}
	}
	for _, s := range sections {
		if !slices.ContainsFunc(alertNames, func(a string) bool { return githubSlug(a) == s }) {
			t.Errorf("%s has a section #%s of no alert", runbooks, s)
		}
	}
}
