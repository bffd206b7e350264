package chartcheck_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/evidencefleet/evidencefleet/jobs"
)

// servedQueues maps each queue to the groups whose Deployment serves it and
// runs pods: fixed replicas above 0, or replicas left to an HPA or KEDA.
func servedQueues(t *testing.T, r rendered) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for name, d := range r.deployments {
		if d.Spec.Replicas != nil && *d.Spec.Replicas == 0 {
			continue
		}
		if d.Spec.Replicas == nil && r.hpas[name] == nil && r.scaled[name] == nil {
			t.Errorf("deployment %s leaves its replicas to an autoscaler the chart did not render", name)
		}
		for _, q := range strings.Split(env(d.Spec.Template.Spec.Containers[0])["EVF_QUEUES"].Value, ",") {
			if !slices.Contains(jobs.AllQueues, q) {
				t.Errorf("deployment %s serves unknown queue %q", name, q)
			}
			out[q] = append(out[q], name)
		}
	}
	return out
}

// TestEveryQueueServed: the default values and every example value set in
// ci/ serve every queue the workers know (jobs.AllQueues).
func TestEveryQueueServed(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(chartDir, "ci", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no value sets in ci/: %v", err)
	}
	for _, f := range append([]string{""}, files...) {
		name := "default values"
		var values []string
		if f != "" {
			name, values = filepath.Base(f), []string{f}
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			served := servedQueues(t, render(t, chartDir, values))
			for _, q := range jobs.AllQueues {
				if len(served[q]) == 0 {
					t.Errorf("queue %s is served by no group (served: %v)", q, served)
				}
			}
		})
	}
}

// TestUnservedQueueFails: values that leave a queue without a group that
// runs fail to render, naming exactly the unserved queues, unless
// allowUnservedQueues lists them.
func TestUnservedQueueFails(t *testing.T) {
	t.Parallel()
	const (
		noRerank = "groups:\n  - {name: all, queues: [target, embed, nli, citation, maintenance]}\n"
		split    = "groups:\n  - {name: main, queues: [target, embed, nli, rerank]}\n  - {name: background, queues: [citation, maintenance]%s}\n"
	)
	fails := []struct{ name, values, want string }{
		{"a queue in no group", noRerank, "rerank"},
		{"a disabled group", strings.Replace(split, "%s", ", enabled: false", 1), "citation, maintenance"},
		{"a group with 0 replicas", strings.Replace(split, "%s", ", replicas: 0", 1), "citation, maintenance"},
		{"a group disabled in groupDefaults", strings.Replace(split, "%s", "", 1) + "groupDefaults: {enabled: false}\n", "target, embed, nli, rerank, citation, maintenance"},
		{"allowed only in part", strings.Replace(split, "%s", ", enabled: false", 1) + "allowUnservedQueues: [citation]\n", "maintenance"},
	}
	for _, tt := range fails {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := writeValues(t, tt.values)
			_, err := run(t, "template", "evf", chartDir, "-f", f)
			if err == nil {
				t.Fatalf("rendered with a queue unserved:\n%s", tt.values)
			}
			if want := "unserved queues: " + tt.want + ". "; !strings.Contains(err.Error(), want) {
				t.Errorf("the error does not name exactly the unserved queues (%q):\n%v", want, err)
			}
			if !strings.Contains(err.Error(), "allowUnservedQueues") {
				t.Errorf("the error does not name the override:\n%v", err)
			}
		})
	}

	renders := []struct{ name, values string }{
		{"unserved on purpose", noRerank + "allowUnservedQueues: [rerank]\n"},
		{"a KEDA group that may scale to zero serves", strings.Replace(split, "%s", ", keda: {enabled: true, minReplicaCount: 0}", 1)},
		{"an HPA group serves", strings.Replace(split, "%s", ", autoscaling: {enabled: true}", 1)},
	}
	for _, tt := range renders {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := render(t, chartDir, []string{writeValues(t, tt.values)})
			served := servedQueues(t, r)
			for _, q := range jobs.AllQueues {
				if len(served[q]) == 0 && !strings.Contains(tt.values, "allowUnservedQueues: ["+q+"]") {
					t.Errorf("queue %s served by no group", q)
				}
			}
		})
	}
}

// TestAsSubchart: the schema accepts the global values a parent chart
// passes down, given on the command line, in a values file, and with the
// chart installed as a subchart.
func TestAsSubchart(t *testing.T) {
	t.Parallel()
	global := writeValues(t, "global: {imageRegistry: registry.example.com, foo: bar}\n")
	r := render(t, chartDir, []string{global}, "--set", "global.foo=bar")
	if len(r.deployments) != 3 {
		t.Errorf("deployments %v with global values", keys(r.deployments))
	}
	if _, err := run(t, "template", "evf", chartDir, "--set", "global.foo=bar"); err != nil {
		t.Error(err)
	}

	parent := t.TempDir()
	if err := os.CopyFS(filepath.Join(parent, "charts", "evidencefleet"), os.DirFS(chartDir)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Version string `json:"version"`
	}
	if err := yaml.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: platform\nversion: 1.0.0\n" +
			"dependencies:\n  - {name: evidencefleet, version: " + strconv.Quote(meta.Version) + "}\n",
		"values.yaml": "global: {environment: staging}\nevidencefleet:\n  database: {existingSecret: platform-db, secretKey: url}\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(parent, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r = render(t, parent, nil, "--set", "global.foo=bar")
	checkPods(t, r, "platform-db", "url")
	if len(r.deployments) != 3 {
		t.Errorf("deployments %v as a subchart", keys(r.deployments))
	}
}

func writeValues(t *testing.T, values string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(f, []byte(values), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}
