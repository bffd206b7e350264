package chartcheck_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const (
	ruleAPI = "monitoring.coreos.com/v1/PrometheusRule"
	// ruleTests are promtool unit tests of the alerts; their rule_files name
	// renderedRules, which the test writes next to a copy of them.
	ruleTests     = chartDir + "/promtool-tests"
	renderedRules = "rendered-alerts.yaml"
)

// The alerts of ARCHITECTURE.md §7 the chart renders with its default values.
var alertNames = []string{
	"EvidenceFleetBacklogGrowing", "EvidenceFleetOldestAvailableJob", "EvidenceFleetQueueWithoutWorkers",
	"EvidenceFleetJobsFailing", "EvidenceFleetModelBackendFailing", "EvidenceFleetWorkersAbsent",
	"EvidenceFleetAutomaticBlocks", "EvidenceFleetAPIErrors",
}

// promtool finds promtool. Without it the test is skipped, unless
// EVF_REQUIRE_PROMETHEUS is set (CI), which fails — as internal/harness/dashboardcheck.
func promtool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("EVF_REQUIRE_PROMETHEUS") != "" {
			t.Fatalf("promtool is required (apt-get install prometheus): %v", err)
		}
		t.Skip("promtool not installed: the alert rules check needs it (apt-get install prometheus)")
	}
	return p
}

func runPromtool(t *testing.T, bin string, args ...string) {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("promtool %s:\n%s", strings.Join(args, " "), out)
}

// writeRuleFile writes the rule groups of the one rendered PrometheusRule,
// exactly as rendered, as a Prometheus rule file dir/renderedRules.
func writeRuleFile(t *testing.T, r rendered, dir string) string {
	t.Helper()
	if len(r.ruleDocs) != 1 {
		t.Fatalf("%d PrometheusRules rendered, want 1", len(r.ruleDocs))
	}
	var obj struct {
		Spec struct {
			Groups []any `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal([]byte(r.ruleDocs[0]), &obj); err != nil {
		t.Fatal(err)
	}
	b, err := yaml.Marshal(map[string]any{"groups": obj.Spec.Groups})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, renderedRules)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// alerts maps the alert names of the rendered rules to their expressions.
func alerts(r rendered) map[string]string {
	out := map[string]string{}
	for _, pr := range r.rules {
		for _, g := range pr.Spec.Groups {
			for _, rule := range g.Rules {
				out[rule.Alert] = rule.Expr
			}
		}
	}
	return out
}

// ruleTestFile is what this test reads of a promtool unit-test file.
type ruleTestFile struct {
	RuleFiles []string `json:"rule_files"`
	Tests     []struct {
		Name          string `json:"name"`
		AlertRuleTest []struct {
			AlertName string `json:"alertname"`
			ExpAlerts []any  `json:"exp_alerts"`
		} `json:"alert_rule_test"`
	} `json:"tests"`
}

// TestAlertRules renders the PrometheusRule (its CRD present), checks its
// rule groups with `promtool check rules`, and runs the repository's promtool
// unit tests on them, which must fire every alert on a bad series and keep it
// silent on a healthy one.
func TestAlertRules(t *testing.T) {
	t.Parallel()
	bin := promtool(t)
	r := render(t, chartDir, nil, "--api-versions", ruleAPI, "--api-versions", "monitoring.coreos.com/v1/ServiceMonitor")
	if len(r.rules) != 1 || len(r.monitors) != 1 {
		t.Fatalf("%d PrometheusRules and %d ServiceMonitors, want 1 each", len(r.rules), len(r.monitors))
	}
	got := alerts(r)
	for _, name := range alertNames {
		if _, ok := got[name]; !ok {
			t.Errorf("alert %s not rendered", name)
		}
	}
	if len(got) != len(alertNames) {
		t.Errorf("alerts %v, want %v", keys(got), alertNames)
	}
	for _, g := range r.rules[0].Spec.Groups {
		for _, rule := range g.Rules {
			if rule.For == "" || rule.Labels["severity"] == "" || rule.Annotations["summary"] == "" || rule.Annotations["description"] == "" {
				t.Errorf("alert %s: want a for duration, a severity label and summary and description annotations", rule.Alert)
			}
			// The rules read this release's series, as its ServiceMonitor labels them.
			if !strings.Contains(rule.Expr, `job="evf-evidencefleet-metrics", namespace="research"`) {
				t.Errorf("alert %s does not select this release's series: %s", rule.Alert, rule.Expr)
			}
		}
	}

	dir := t.TempDir()
	rules := writeRuleFile(t, r, dir)
	runPromtool(t, bin, "check", "rules", rules)

	files, err := filepath.Glob(filepath.Join(ruleTests, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no promtool unit tests in %s: %v", ruleTests, err)
	}
	fires, silent := map[string]bool{}, map[string]bool{}
	var copies []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tf ruleTestFile
		if err := yaml.Unmarshal(b, &tf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !slices.Equal(tf.RuleFiles, []string{renderedRules}) {
			t.Fatalf("%s: rule_files %v, want [%s] (the rules the chart renders)", f, tf.RuleFiles, renderedRules)
		}
		for _, tc := range tf.Tests {
			for _, a := range tc.AlertRuleTest {
				if len(a.ExpAlerts) > 0 {
					fires[a.AlertName] = true
				} else {
					silent[a.AlertName] = true
				}
			}
		}
		c := filepath.Join(dir, filepath.Base(f))
		if err := os.WriteFile(c, b, 0o644); err != nil {
			t.Fatal(err)
		}
		copies = append(copies, c)
	}
	for _, name := range alertNames {
		if !fires[name] || !silent[name] {
			t.Errorf("alert %s: the unit tests must fire it (%v) and keep it silent (%v)", name, fires[name], silent[name])
		}
	}
	runPromtool(t, bin, append([]string{"test", "rules"}, copies...)...)
}

// TestAlertRulesFollowValues: the toggles, thresholds, durations, labels
// and selector in values reach the rules, which stay valid; the
// workers-absent alert is left out when every group may scale to zero; the
// queues unserved on purpose are left out of the no-worker alert.
func TestAlertRulesFollowValues(t *testing.T) {
	t.Parallel()
	if r := render(t, chartDir, []string{writeValues(t, "prometheusRule: {enabled: false}\n")}, "--api-versions", ruleAPI); len(r.rules) != 0 {
		t.Error("a PrometheusRule was rendered with prometheusRule.enabled false")
	}

	custom := writeValues(t, `
groups:
  - {name: main, queues: [target, embed, nli, rerank, maintenance]}
allowUnservedQueues: [citation]
prometheusRule:
  labels: {release: kube-prometheus-stack}
  seriesSelector: 'service="evf-metrics"'
  alerts:
    backlogGrowing: {minAvailable: 5000, window: 30m, for: 1h, severity: page}
    oldestAvailable: {seconds: 120, for: 2m}
    jobFailures: {outcomes: [discarded], ratio: 0.5}
    modelErrors: {enabled: false}
`)
	r := render(t, chartDir, []string{custom}, "--api-versions", ruleAPI)
	if len(r.rules) != 1 || r.rules[0].Labels["release"] != "kube-prometheus-stack" {
		t.Fatal("want one PrometheusRule with the labels of prometheusRule.labels")
	}
	got := alerts(r)
	for name, parts := range map[string][]string{
		"EvidenceFleetBacklogGrowing":      {`evidencefleet_river_jobs{service="evf-metrics", state="available"}) > 5000`, `[30m]`},
		"EvidenceFleetOldestAvailableJob":  {`evidencefleet_river_oldest_available_seconds{service="evf-metrics"}) > 120`},
		"EvidenceFleetJobsFailing":         {`outcome=~"discarded"`, `> 0.5`},
		"EvidenceFleetQueueWithoutWorkers": {`queue!~"citation"`},
		"EvidenceFleetWorkersAbsent":       {`absent(evidencefleet_worker_info{service="evf-metrics"})`},
	} {
		for _, p := range parts {
			if !strings.Contains(got[name], p) {
				t.Errorf("alert %s: %q not in %q", name, p, got[name])
			}
		}
	}
	if _, ok := got["EvidenceFleetModelBackendFailing"]; ok {
		t.Error("a disabled alert was rendered")
	}
	for _, g := range r.rules[0].Spec.Groups {
		for _, rule := range g.Rules {
			if rule.Alert == "EvidenceFleetBacklogGrowing" && (rule.For != "1h" || rule.Labels["severity"] != "page") {
				t.Errorf("backlog alert: for %s, severity %s; want 1h, page", rule.For, rule.Labels["severity"])
			}
		}
	}

	// No API, no API alert.
	if _, ok := alerts(render(t, chartDir, []string{writeValues(t, "api: {enabled: false}\n")}, "--api-versions", ruleAPI))["EvidenceFleetAPIErrors"]; ok {
		t.Error("an API alert although api.enabled is false")
	}

	// KEDA everywhere: with a group that keeps a replica (ci/keda-values.yaml:
	// verify) no workers means trouble; with every group able to scale to
	// zero it is the idle state, and the alert is left out.
	if got := alerts(render(t, chartDir, []string{filepath.Join(chartDir, "ci/keda-values.yaml")}, "--api-versions", ruleAPI)); got["EvidenceFleetWorkersAbsent"] == "" {
		t.Error("no workers-absent alert although the verify group keeps a replica")
	}
	allZero := writeValues(t, "groupDefaults: {keda: {enabled: true, minReplicaCount: 0}}\n")
	if _, ok := alerts(render(t, chartDir, []string{allZero}, "--api-versions", ruleAPI))["EvidenceFleetWorkersAbsent"]; ok {
		t.Error("a workers-absent alert although every group may scale to zero")
	}

	if bin, err := exec.LookPath("promtool"); err == nil {
		runPromtool(t, bin, "check", "rules", writeRuleFile(t, r, t.TempDir()))
	}
}
