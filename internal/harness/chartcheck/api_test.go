package chartcheck_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// apiContainer is the API Deployment's one container, failing the test
// when the chart rendered none.
func apiContainer(t *testing.T, r rendered) corev1.Container {
	t.Helper()
	if r.api == nil {
		t.Fatal("no API Deployment (component api) rendered")
	}
	if n := len(r.api.Spec.Template.Spec.Containers); n != 1 {
		t.Fatalf("API Deployment has %d containers, want 1", n)
	}
	return r.api.Spec.Template.Spec.Containers[0]
}

// selects reports whether the selector picks a pod template's labels.
func selects(t *testing.T, sel map[string]string, d *appsv1.Deployment) bool {
	t.Helper()
	return labels.SelectorFromSet(sel).Matches(labels.Set(d.Spec.Template.Labels))
}

// TestAPIDefault: by default the chart runs `worker api` beside the worker
// groups, with the workers' image, Secret and hardening, its settings as
// EVF_API_* variables, probes on its own port, a ClusterIP Service and a
// PodDisruptionBudget over its pods only, and no Ingress.
func TestAPIDefault(t *testing.T) {
	t.Parallel()
	r := render(t, chartDir, nil)
	checkPods(t, r, "evidencefleet-db", "DATABASE_URL")
	c := apiContainer(t, r)
	d := r.api
	if d.Name != "evf-evidencefleet-api" || d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("API Deployment %s, replicas %v; want evf-evidencefleet-api with 2", d.Name, d.Spec.Replicas)
	}
	if got := strings.Join(append(c.Command, c.Args...), " "); got != "worker api" {
		t.Errorf("API runs %q, want `worker api`", got)
	}
	worker := r.deployments["ingest"].Spec.Template.Spec
	if c.Image != worker.Containers[0].Image || c.ImagePullPolicy != worker.Containers[0].ImagePullPolicy {
		t.Errorf("API image %s (%s), workers' %s (%s)", c.Image, c.ImagePullPolicy, worker.Containers[0].Image, worker.Containers[0].ImagePullPolicy)
	}
	pod := d.Spec.Template.Spec
	if !reflect.DeepEqual(pod.SecurityContext, worker.SecurityContext) || !reflect.DeepEqual(c.SecurityContext, worker.Containers[0].SecurityContext) ||
		pod.TerminationGracePeriodSeconds == nil || *pod.TerminationGracePeriodSeconds != *worker.TerminationGracePeriodSeconds {
		t.Error("the API pod's security contexts or grace period differ from the workers'")
	}
	e := env(c)
	for k, want := range map[string]string{"EVF_API_ADDR": ":8080", "EVF_API_RATE": "20", "EVF_API_BURST": "40",
		"EVF_API_RIVER_UI": "true", "EVF_API_CONSOLE": "true", "EVF_API_METRICS_ADDR": ":9464", "EVF_LOG_FORMAT": "json", "GOMEMLIMIT": "234881024"} {
		if e[k].Value != want {
			t.Errorf("API env %s=%q, want %q", k, e[k].Value, want)
		}
	}
	for _, k := range []string{"EVF_QUEUES", "EVF_METRICS_ADDR"} {
		if _, ok := e[k]; ok {
			t.Errorf("API env sets %s, a worker's variable", k)
		}
	}
	if len(c.Ports) != 2 || c.Ports[0].Name != "http" || c.Ports[0].ContainerPort != 8080 || c.Ports[1].Name != "ops" || c.Ports[1].ContainerPort != 9464 {
		t.Fatalf("API ports %+v, want http 8080 and ops 9464 (its /metrics, scraped through the metrics Service)", c.Ports)
	}
	for name, p := range map[string]*corev1.Probe{"startup": c.StartupProbe, "liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Port.String() != "http" {
			t.Errorf("API %s probe %+v: want an HTTP GET on port http", name, p)
		}
	}
	if c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("API probes: readiness %s, liveness %s", c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path)
	}

	// The Deployment's selector, the Service and the PDB pick the API's pods
	// and no worker's; no worker selector picks the API's pods.
	if !selects(t, d.Spec.Selector.MatchLabels, d) {
		t.Error("the API Deployment's selector does not match its pods")
	}
	s := r.apiService
	if s == nil || s.Name != d.Name || s.Spec.Type != corev1.ServiceTypeClusterIP || len(s.Spec.Ports) != 1 ||
		s.Spec.Ports[0].Port != 80 || s.Spec.Ports[0].TargetPort.String() != "http" {
		t.Fatalf("API Service: %+v", s)
	}
	if r.apiPDB == nil || r.apiPDB.Spec.MaxUnavailable.String() != "1" {
		t.Fatalf("API PodDisruptionBudget: %+v", r.apiPDB)
	}
	for what, sel := range map[string]map[string]string{"Service": s.Spec.Selector, "PodDisruptionBudget": r.apiPDB.Spec.Selector.MatchLabels} {
		if !selects(t, sel, d) {
			t.Errorf("the API %s does not select the API's pods", what)
		}
		for name, w := range r.deployments {
			if selects(t, sel, w) {
				t.Errorf("the API %s selects group %s's pods", what, name)
			}
		}
	}
	for name, w := range r.deployments {
		if selects(t, w.Spec.Selector.MatchLabels, d) {
			t.Errorf("group %s's selector picks the API's pods", name)
		}
	}
	// The metrics Service's selector matches the API pods too, and they
	// serve /metrics on the port of its name: the ServiceMonitor scrapes
	// them with the workers.
	metricsSvc := r.services[0]
	if !selects(t, metricsSvc.Spec.Selector, d) || !slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool {
		return p.Name == metricsSvc.Spec.Ports[0].TargetPort.String()
	}) {
		t.Errorf("the metrics Service %s does not reach the API pods' port %s", metricsSvc.Name, metricsSvc.Spec.Ports[0].TargetPort.String())
	}
	if len(r.ingresses) != 0 {
		t.Errorf("%d Ingresses rendered with api.ingress disabled", len(r.ingresses))
	}
	// Helm creates regular objects after the pre-install/pre-upgrade hooks
	// succeed: the API, like the workers, starts on a migrated database.
	if d.Annotations["helm.sh/hook"] != "" || len(r.jobs) != 1 || r.jobs[0].Annotations["helm.sh/hook"] != "pre-install,pre-upgrade" {
		t.Error("the API Deployment must be a regular object created after the migration hook")
	}
}

// TestAPIValues: the api values reach the Deployment, the Service, the PDB
// and the Ingress (ci/hpa-values.yaml runs it behind ingress-nginx).
func TestAPIValues(t *testing.T) {
	t.Parallel()
	r := render(t, chartDir, []string{filepath.Join(chartDir, "ci/hpa-values.yaml")})
	checkPods(t, r, "prod-db", "url")
	c := apiContainer(t, r)
	if *r.api.Spec.Replicas != 3 || c.Image != "registry.example.com/evf/worker:2026.11.22" ||
		len(c.EnvFrom) != 1 || r.api.Spec.Template.Spec.ServiceAccountName != "evidencefleet" {
		t.Errorf("API replicas %d, image %s, envFrom %+v, service account %q", *r.api.Spec.Replicas, c.Image, c.EnvFrom, r.api.Spec.Template.Spec.ServiceAccountName)
	}
	e := env(c)
	if e["EVF_API_RATE"].Value != "5" || e["EVF_API_BURST"].Value != "10" || e["EVF_API_RIVER_UI"].Value != "false" {
		t.Errorf("API env rate %q, burst %q, River UI %q", e["EVF_API_RATE"].Value, e["EVF_API_BURST"].Value, e["EVF_API_RIVER_UI"].Value)
	}
	if len(r.ingresses) != 1 {
		t.Fatalf("%d Ingresses, want 1", len(r.ingresses))
	}
	in := r.ingresses[0]
	if in.Name != r.api.Name || in.Spec.IngressClassName == nil || *in.Spec.IngressClassName != "nginx" ||
		in.Annotations["nginx.ingress.kubernetes.io/proxy-buffering"] != "off" {
		t.Errorf("Ingress %s: class %v, annotations %v", in.Name, in.Spec.IngressClassName, in.Annotations)
	}
	if len(in.Spec.TLS) != 1 || in.Spec.TLS[0].SecretName != "evidence-example-com-tls" || !reflect.DeepEqual(in.Spec.TLS[0].Hosts, []string{"evidence.example.com"}) {
		t.Errorf("Ingress TLS %+v", in.Spec.TLS)
	}
	if len(in.Spec.Rules) != 1 || in.Spec.Rules[0].Host != "evidence.example.com" || len(in.Spec.Rules[0].HTTP.Paths) != 1 {
		t.Fatalf("Ingress rules %+v", in.Spec.Rules)
	}
	p := in.Spec.Rules[0].HTTP.Paths[0]
	if p.Path != "/" || p.PathType == nil || *p.PathType != "Prefix" || p.Backend.Service == nil ||
		p.Backend.Service.Name != r.apiService.Name || p.Backend.Service.Port.Name != r.apiService.Spec.Ports[0].Name {
		t.Errorf("Ingress path %+v does not lead to the API Service's port", p)
	}

	// Port, env over the shared env, no PDB.
	r = render(t, chartDir, []string{writeValues(t, "api:\n  port: 9090\n  rate: 0.5\n  env: {EVF_LOG_FORMAT: text, GOMEMLIMIT: 100MiB}\n  pdb: {enabled: false}\n  service: {type: NodePort, port: 8443}\n")})
	c = apiContainer(t, r)
	e = env(c)
	if e["EVF_API_ADDR"].Value != ":9090" || c.Ports[0].ContainerPort != 9090 || e["EVF_API_RATE"].Value != "0.5" {
		t.Errorf("API addr %q, port %d, rate %q", e["EVF_API_ADDR"].Value, c.Ports[0].ContainerPort, e["EVF_API_RATE"].Value)
	}
	n := 0
	for _, v := range c.Env {
		if v.Name == "EVF_LOG_FORMAT" || v.Name == "GOMEMLIMIT" {
			n++
		}
	}
	if e["EVF_LOG_FORMAT"].Value != "text" || e["GOMEMLIMIT"].Value != "100MiB" || n != 2 {
		t.Errorf("api.env does not replace the shared env and the chart's GOMEMLIMIT: %+v", c.Env)
	}
	if r.apiPDB != nil || r.apiService.Spec.Type != corev1.ServiceTypeNodePort || r.apiService.Spec.Ports[0].Port != 8443 {
		t.Error("api.pdb.enabled=false or api.service not applied")
	}
}

// TestAPIDisabled: api.enabled=false renders none of the API's objects and
// leaves the workers as they are.
func TestAPIDisabled(t *testing.T) {
	t.Parallel()
	r := render(t, chartDir, []string{writeValues(t, "api:\n  enabled: false\n  ingress: {enabled: true}\n")})
	if r.api != nil || r.apiService != nil || r.apiPDB != nil || len(r.ingresses) != 0 {
		t.Errorf("API objects rendered with api.enabled=false: deployment %v, service %v, pdb %v, %d ingresses",
			r.api != nil, r.apiService != nil, r.apiPDB != nil, len(r.ingresses))
	}
	if len(r.deployments) != 3 || len(r.pdbs) != 3 || len(r.services) != 1 {
		t.Errorf("workers %v, %d PDBs, %d Services; want the three groups, 3, 1", keys(r.deployments), len(r.pdbs), len(r.services))
	}
}

// TestAPIBadValues: the schema refuses wrong types and unknown fields under
// api; the templates refuse what it cannot express.
func TestAPIBadValues(t *testing.T) {
	t.Parallel()
	tests := []refusal{
		{"replicas not a number", "api: {replicas: two}\n", "/api/replicas"},
		{"port a string", "api: {port: \"8080\"}\n", "/api/port"},
		{"port out of range", "api: {port: 70000}\n", "/api/port"},
		{"riverUI not a boolean", "api: {riverUI: \"yes\"}\n", "/api/riverUI"},
		{"negative rate", "api: {rate: -1}\n", "/api/rate"},
		{"misspelt field", "api: {rates: 5}\n", "rates"},
		{"ingress host without paths", "api: {ingress: {hosts: [{host: a.example}]}}\n", "paths"},
		{"ingress enabled with no hosts", "api: {ingress: {enabled: true, hosts: []}}\n", "/api/ingress/hosts"},
		{"unknown service type", "api: {service: {type: ExternalName}}\n", "/api/service/type"},
		{"memory limit GOMEMLIMIT cannot follow", "api: {resources: {limits: {memory: 1GB}}}\n", "api: memory limit \"1GB\""},
		{"group named like the API", "groups:\n  - {name: api, queues: [target, embed, nli, rerank, citation, maintenance]}\n", "a worker group is named api"},
	}
	refused(t, tests)
	// With the API off, a group may take its name.
	if _, err := run(t, "template", "evf", chartDir, "-f", writeValues(t, "api: {enabled: false}\ngroups:\n  - {name: api, queues: [target, embed, nli, rerank, citation, maintenance]}\n")); err != nil {
		t.Error(err)
	}
}

// TestNotes: NOTES.txt tells how to reach the API and make a token with the
// enqueue binary the image holds (Dockerfile), in a pod that has the
// database Secret.
func TestNotes(t *testing.T) {
	t.Parallel()
	docker, err := os.ReadFile("../../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(docker), "./cmd/enqueue") || !strings.Contains(string(docker), "/out/enqueue /usr/local/bin/") {
		t.Fatal("the Dockerfile no longer builds and installs enqueue, which NOTES.txt tells operators to run in a pod")
	}
	// helm template leaves NOTES.txt out: render it through tpl in a copy.
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(chartDir)); err != nil {
		t.Fatal(err)
	}
	notes, err := os.ReadFile(filepath.Join(chartDir, "templates/NOTES.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), notes, 0o644); err != nil {
		t.Fatal(err)
	}
	tpl := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: notes}\ndata:\n  notes: {{ tpl (.Files.Get \"notes.txt\") . | quote }}\n"
	if err := os.WriteFile(filepath.Join(dir, "templates/notes.yaml"), []byte(tpl), 0o644); err != nil {
		t.Fatal(err)
	}
	render := func(values string) string {
		out, err := run(t, "template", "evf", dir, "--namespace", "research", "-s", "templates/notes.yaml", "-f", writeValues(t, values))
		if err != nil {
			t.Fatal(err)
		}
		var cm corev1.ConfigMap
		if err := yaml.Unmarshal([]byte(out), &cm); err != nil {
			t.Fatal(err)
		}
		return cm.Data["notes"]
	}
	for _, tt := range []struct{ values, want, not string }{
		{"{}", "kubectl -n research port-forward svc/evf-evidencefleet-api 8080:80\n" +
			"TOKEN=$(kubectl -n research exec deploy/evf-evidencefleet-api -- enqueue org token create --org ORG)\n" +
			"curl -s -H \"Authorization: Bearer $TOKEN\" http://localhost:8080/v1/tasks", ""},
		{"api: {ingress: {enabled: true, hosts: [{host: e.example, paths: [{path: /, pathType: Prefix}]}], tls: [{secretName: t, hosts: [e.example]}]}}",
			"curl -s -H \"Authorization: Bearer $TOKEN\" https://e.example/v1/tasks", "port-forward"},
		// Without the API, a worker pod (same image, same Secret) makes tokens.
		{"api: {enabled: false}", "exec deploy/evf-evidencefleet-ingest -- enqueue org token create --org ORG", "curl"},
	} {
		got := render(tt.values)
		for _, line := range strings.Split(tt.want, "\n") {
			if !strings.Contains(got, line) {
				t.Errorf("with %s, NOTES lack %q:\n%s", tt.values, line, got)
			}
		}
		if tt.not != "" && strings.Contains(got, tt.not) {
			t.Errorf("with %s, NOTES mention %q:\n%s", tt.values, tt.not, got)
		}
	}
}
