package chartcheck_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/evidencefleet/evidencefleet/internal/harness/repodata"
)

// runbooks is the document every alert's runbook_url points into.
const runbooks = "../../../docs/runbooks.md"

// anchors returns the GitHub anchors of the headings of a Markdown file
// (repodata.Anchors), and the in-document links (#anchor) it makes outside
// fenced code blocks.
func anchors(t *testing.T, path string) (set map[string]bool, links []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`\]\(#([^)\s]+)\)`)
	for _, m := range link.FindAllStringSubmatch(repodata.Prose(string(data)), -1) {
		links = append(links, m[1])
	}
	return repodata.Anchors(string(data)), links
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
		case anchor != repodata.Slug(name):
			t.Errorf("alert %s: anchor #%s, want its own section #%s", name, anchor, repodata.Slug(name))
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
		if !slices.ContainsFunc(alertNames, func(a string) bool { return repodata.Slug(a) == s }) {
			t.Errorf("%s has a section #%s of no alert", runbooks, s)
		}
	}
}
