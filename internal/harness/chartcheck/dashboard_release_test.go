package chartcheck_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/dashboardcheck"
)

// grafanaUID is what Grafana accepts as a dashboard uid.
var grafanaUID = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,40}$`)

// releaseDashboard is the dashboard ConfigMap's one file, rendered for
// release name in namespace ns.
type releaseDashboard struct {
	key  string         // its file name in the ConfigMap
	raw  string         // the JSON as rendered
	json map[string]any // decoded
}

func renderDashboard(t *testing.T, name, ns string) releaseDashboard {
	t.Helper()
	out, err := run(t, "template", name, chartDir, "--namespace", ns, "--show-only", "templates/dashboard-configmap.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := decode(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.configMaps) != 1 || len(r.configMaps[0].Data) != 1 {
		t.Fatalf("release %s/%s: want one ConfigMap with one dashboard, got %d", ns, name, len(r.configMaps))
	}
	var d releaseDashboard
	for k, v := range r.configMaps[0].Data {
		d.key, d.raw = k, v
	}
	if err := json.Unmarshal([]byte(d.raw), &d.json); err != nil {
		t.Fatalf("release %s/%s: the dashboard is not JSON: %v", ns, name, err)
	}
	return d
}

// variableCurrent is the selected value of a dashboard variable.
func variableCurrent(d map[string]any, name string) any {
	for _, v := range d["templating"].(map[string]any)["list"].([]any) {
		if v := v.(map[string]any); v["name"] == name {
			return v["current"].(map[string]any)["value"]
		}
	}
	return nil
}

// withoutReleaseFields is a dashboard without what the chart makes the
// release's: uid, title and the namespace and release variables' selection.
func withoutReleaseFields(d map[string]any) map[string]any {
	b, _ := json.Marshal(d)
	var c map[string]any
	_ = json.Unmarshal(b, &c)
	delete(c, "uid")
	delete(c, "title")
	for _, v := range c["templating"].(map[string]any)["list"].([]any) {
		if v := v.(map[string]any); v["name"] == "namespace" || v["name"] == "release" {
			delete(v, "current")
		}
	}
	return c
}

// TestDashboardPerRelease: the dashboard ConfigMap of each release holds
// dashboards/evidencefleet.json with a uid, a title and a file name of that
// release's (namespace and name), so two releases' dashboards do not
// replace each other in Grafana or in the sidecar's folder; the uid is one
// Grafana accepts (at most 40 characters of [a-zA-Z0-9_-]) for the longest
// release name Helm allows, and the same on every upgrade. The dashboard
// opens on the release's namespace and scrape job (its metrics Service's
// name), and has the release and pod variables.
func TestDashboardPerRelease(t *testing.T) {
	t.Parallel()
	file, err := os.ReadFile(filepath.Join(chartDir, "dashboards/evidencefleet.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(file, &want); err != nil {
		t.Fatal(err)
	}
	want = withoutReleaseFields(want)

	long := strings.Repeat("a", 26) + "-" + strings.Repeat("b", 26) // 53, Helm's longest release name
	releases := []struct{ name, ns string }{
		{"evf", "research"}, {"evf-staging", "research"}, {"evf", "other"},
		{long, "research"}, {long[:27] + "c", "research"}, // same first 27 characters
	}
	uids, titles, files := map[string]string{}, map[string]string{}, map[string]string{}
	for _, rel := range releases {
		id := rel.ns + "/" + rel.name
		d := renderDashboard(t, rel.name, rel.ns)
		uid, _ := d.json["uid"].(string)
		title, _ := d.json["title"].(string)
		if !grafanaUID.MatchString(uid) {
			t.Errorf("release %s: uid %q is not a Grafana uid (at most 40 of [a-zA-Z0-9_-])", id, uid)
		}
		if !strings.Contains(title, rel.name) || !strings.Contains(title, rel.ns) {
			t.Errorf("release %s: title %q does not name the release and its namespace", id, title)
		}
		for _, c := range []struct {
			seen map[string]string
			v    string
		}{{uids, uid}, {titles, title}, {files, d.key}} {
			if other, ok := c.seen[c.v]; ok {
				t.Errorf("releases %s and %s share %q", other, id, c.v)
			}
			c.seen[c.v] = id
		}
		if got := withoutReleaseFields(d.json); !reflect.DeepEqual(got, want) {
			t.Errorf("release %s: the dashboard differs from dashboards/evidencefleet.json beyond uid, title and the selected namespace and release", id)
		}
		fullname := rel.name + "-evidencefleet" // evf.fullname: cut to 63, no trailing hyphen
		fullname = strings.TrimSuffix(fullname[:min(len(fullname), 63)], "-")
		job := fullname + "-metrics"
		if got := variableCurrent(d.json, "release"); !reflect.DeepEqual(got, []any{job}) {
			t.Errorf("release %s: release variable selects %v, want [%s]", id, got, job)
		}
		if got := variableCurrent(d.json, "namespace"); !reflect.DeepEqual(got, []any{rel.ns}) {
			t.Errorf("release %s: namespace variable selects %v, want [%s]", id, got, rel.ns)
		}
		qs, err := dashboardcheck.Parse([]byte(d.raw))
		if err != nil {
			t.Fatalf("release %s: %v", id, err)
		}
		vars := map[string]bool{}
		for _, q := range qs {
			if q.Variable != "" {
				vars[q.Variable] = true
			}
		}
		for _, v := range []string{"namespace", "release", "pod", "queue", "kind"} {
			if !vars[v] {
				t.Errorf("release %s: no %s variable", id, v)
			}
		}
	}
	if uid, _ := renderDashboard(t, "evf", "research").json["uid"].(string); uids[uid] != "research/evf" {
		t.Errorf("the uid of research/evf changes from one rendering to the next: %q", uid)
	}

	// The release variable's selection is the job the ServiceMonitor gives
	// the release's series: the metrics Service's name.
	r := render(t, chartDir, nil)
	var services []string
	for _, s := range r.services {
		services = append(services, s.Name)
	}
	if len(services) != 1 || services[0] != "evf-evidencefleet-metrics" {
		t.Errorf("metrics Services %v, want [evf-evidencefleet-metrics], the job the dashboard selects", services)
	}
}
