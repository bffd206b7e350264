package chartcheck_test

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

const chartDir = "../../../deploy/helm/evidencefleet"

// The custom resources the chart renders, with the fields of their CRDs
// that the chart may use (keda.sh/v1alpha1, monitoring.coreos.com/v1).
type (
	scaledObject struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata"`
		Spec              struct {
			ScaleTargetRef struct {
				APIVersion string `json:"apiVersion,omitempty"`
				Kind       string `json:"kind,omitempty"`
				Name       string `json:"name"`
			} `json:"scaleTargetRef"`
			PollingInterval  *int32 `json:"pollingInterval,omitempty"`
			CooldownPeriod   *int32 `json:"cooldownPeriod,omitempty"`
			MinReplicaCount  *int32 `json:"minReplicaCount,omitempty"`
			MaxReplicaCount  *int32 `json:"maxReplicaCount,omitempty"`
			IdleReplicaCount *int32 `json:"idleReplicaCount,omitempty"`
			Triggers         []struct {
				Type              string            `json:"type"`
				Name              string            `json:"name,omitempty"`
				Metadata          map[string]string `json:"metadata"`
				AuthenticationRef *struct {
					Name string `json:"name"`
					Kind string `json:"kind,omitempty"`
				} `json:"authenticationRef,omitempty"`
			} `json:"triggers"`
		} `json:"spec"`
	}
	triggerAuthentication struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata"`
		Spec              struct {
			SecretTargetRef []struct {
				Parameter string `json:"parameter"`
				Name      string `json:"name"`
				Key       string `json:"key"`
			} `json:"secretTargetRef"`
		} `json:"spec"`
	}
	serviceMonitor struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata"`
		Spec              struct {
			Selector  metav1.LabelSelector `json:"selector"`
			Endpoints []struct {
				Port              string          `json:"port,omitempty"`
				Path              string          `json:"path,omitempty"`
				Interval          string          `json:"interval,omitempty"`
				ScrapeTimeout     string          `json:"scrapeTimeout,omitempty"`
				Relabelings       []relabelConfig `json:"relabelings,omitempty"`
				MetricRelabelings []relabelConfig `json:"metricRelabelings,omitempty"`
			} `json:"endpoints"`
		} `json:"spec"`
	}
	// A Prometheus Operator RelabelConfig.
	relabelConfig struct {
		SourceLabels []string `json:"sourceLabels,omitempty"`
		Separator    string   `json:"separator,omitempty"`
		TargetLabel  string   `json:"targetLabel,omitempty"`
		Regex        string   `json:"regex,omitempty"`
		Modulus      uint64   `json:"modulus,omitempty"`
		Replacement  string   `json:"replacement,omitempty"`
		Action       string   `json:"action,omitempty"`
	}
	prometheusRule struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata"`
		Spec              struct {
			Groups []struct {
				Name     string `json:"name"`
				Interval string `json:"interval,omitempty"`
				Limit    *int   `json:"limit,omitempty"`
				Rules    []struct {
					Alert         string            `json:"alert,omitempty"`
					Record        string            `json:"record,omitempty"`
					Expr          string            `json:"expr"`
					For           string            `json:"for,omitempty"`
					KeepFiringFor string            `json:"keep_firing_for,omitempty"`
					Labels        map[string]string `json:"labels,omitempty"`
					Annotations   map[string]string `json:"annotations,omitempty"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
)

// rendered is one helm template output, decoded. The worker groups'
// objects are keyed by group; the API process's (component api) are apart.
type rendered struct {
	deployments map[string]*appsv1.Deployment
	api         *appsv1.Deployment
	apiService  *corev1.Service
	apiPDB      *policyv1.PodDisruptionBudget
	ingresses   []*networkingv1.Ingress
	hpas        map[string]*autoscalingv2.HorizontalPodAutoscaler
	pdbs        map[string]*policyv1.PodDisruptionBudget
	scaled      map[string]*scaledObject
	triggerAuth []*triggerAuthentication
	jobs        []*batchv1.Job
	accounts    []*corev1.ServiceAccount
	services    []*corev1.Service
	configMaps  []*corev1.ConfigMap
	monitors    []*serviceMonitor
	rules       []*prometheusRule
	ruleDocs    []string // the PrometheusRule documents as rendered
}

func helm(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("EVF_HELM"), "../../../bin/helm"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				abs, _ := filepath.Abs(p)
				return abs
			}
		}
	}
	if p, err := exec.LookPath("helm"); err == nil {
		return p
	}
	if os.Getenv("EVF_REQUIRE_HELM") != "" {
		t.Fatal("helm is required: make helm builds it from the Go module proxy into bin/helm")
	}
	t.Skip("helm not found (make helm builds it into bin/helm)")
	return ""
}

func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(helm(t), args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("helm %s: %v\n%s%s", strings.Join(args, " "), err, errOut.String(), out.String())
	}
	return out.String(), nil
}

// render runs helm lint and helm template over chart with the value files
// and decodes every object strictly.
func render(t *testing.T, chart string, values []string, extra ...string) rendered {
	t.Helper()
	var vf []string
	for _, v := range values {
		vf = append(vf, "-f", v)
	}
	if out, err := run(t, append([]string{"lint", "--strict", chart}, vf...)...); err != nil {
		t.Fatalf("lint: %v", err)
	} else if !strings.Contains(out, "0 chart(s) failed") {
		t.Fatalf("lint: %s", out)
	}
	out, err := run(t, append(append([]string{"template", "evf", chart, "--namespace", "research"}, vf...), extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	r, err := decode(out)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func decode(manifests string) (rendered, error) {
	r := rendered{deployments: map[string]*appsv1.Deployment{}, hpas: map[string]*autoscalingv2.HorizontalPodAutoscaler{},
		pdbs: map[string]*policyv1.PodDisruptionBudget{}, scaled: map[string]*scaledObject{}}
	for i, doc := range strings.Split(manifests, "\n---") {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			return r, fmt.Errorf("document %d: %w", i, err)
		}
		if head.Kind == "" {
			continue // comments only
		}
		strict := func(v any) error {
			if err := yaml.UnmarshalStrict([]byte(doc), v); err != nil {
				return fmt.Errorf("%s %s (document %d): %w\n%s", head.APIVersion, head.Kind, i, err, doc)
			}
			return nil
		}
		var err error
		switch head.APIVersion + " " + head.Kind {
		case "apps/v1 Deployment":
			var d appsv1.Deployment
			if err = strict(&d); err == nil {
				if c := d.Labels["app.kubernetes.io/component"]; c == "api" {
					r.api = &d
				} else {
					r.deployments[c] = &d
				}
			}
		case "autoscaling/v2 HorizontalPodAutoscaler":
			var h autoscalingv2.HorizontalPodAutoscaler
			if err = strict(&h); err == nil {
				r.hpas[h.Labels["app.kubernetes.io/component"]] = &h
			}
		case "policy/v1 PodDisruptionBudget":
			var p policyv1.PodDisruptionBudget
			if err = strict(&p); err == nil {
				if c := p.Labels["app.kubernetes.io/component"]; c == "api" {
					r.apiPDB = &p
				} else {
					r.pdbs[c] = &p
				}
			}
		case "batch/v1 Job":
			var j batchv1.Job
			if err = strict(&j); err == nil {
				r.jobs = append(r.jobs, &j)
			}
		case "v1 ServiceAccount":
			var a corev1.ServiceAccount
			if err = strict(&a); err == nil {
				r.accounts = append(r.accounts, &a)
			}
		case "v1 Service":
			var s corev1.Service
			if err = strict(&s); err == nil {
				if s.Labels["app.kubernetes.io/component"] == "api" {
					r.apiService = &s
				} else {
					r.services = append(r.services, &s)
				}
			}
		case "networking.k8s.io/v1 Ingress":
			var in networkingv1.Ingress
			if err = strict(&in); err == nil {
				r.ingresses = append(r.ingresses, &in)
			}
		case "v1 ConfigMap":
			var c corev1.ConfigMap
			if err = strict(&c); err == nil {
				r.configMaps = append(r.configMaps, &c)
			}
		case "keda.sh/v1alpha1 ScaledObject":
			var s scaledObject
			if err = strict(&s); err == nil {
				r.scaled[s.Labels["app.kubernetes.io/component"]] = &s
			}
		case "keda.sh/v1alpha1 TriggerAuthentication":
			var a triggerAuthentication
			if err = strict(&a); err == nil {
				r.triggerAuth = append(r.triggerAuth, &a)
			}
		case "monitoring.coreos.com/v1 ServiceMonitor":
			var m serviceMonitor
			if err = strict(&m); err == nil {
				r.monitors = append(r.monitors, &m)
			}
		case "monitoring.coreos.com/v1 PrometheusRule":
			var p prometheusRule
			if err = strict(&p); err == nil {
				r.rules = append(r.rules, &p)
				r.ruleDocs = append(r.ruleDocs, doc)
			}
		default:
			err = fmt.Errorf("document %d: unexpected object %s %s", i, head.APIVersion, head.Kind)
		}
		if err != nil {
			return r, err
		}
	}
	return r, nil
}

func env(c corev1.Container) map[string]corev1.EnvVar {
	out := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		out[e.Name] = e
	}
	return out
}

// checkPods holds for every value set: hardened pods, probes, the database
// from the Secret by reference.
func checkPods(t *testing.T, r rendered, secret, key string) {
	t.Helper()
	specs := map[string]corev1.PodSpec{}
	for name, d := range r.deployments {
		specs["deployment "+name] = d.Spec.Template.Spec
	}
	if r.api != nil {
		specs["deployment api"] = r.api.Spec.Template.Spec
	}
	for _, j := range r.jobs {
		specs["job "+j.Name] = j.Spec.Template.Spec
	}
	for name, s := range specs {
		psc := s.SecurityContext
		if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
			t.Errorf("%s: pod may run as root", name)
		}
		if s.AutomountServiceAccountToken == nil || *s.AutomountServiceAccountToken {
			t.Errorf("%s: mounts a service account token it does not need", name)
		}
		for _, c := range s.Containers {
			sc := c.SecurityContext
			if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
				sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
				t.Errorf("%s/%s: root filesystem writable or privilege escalation allowed", name, c.Name)
			}
			db, ok := env(c)["DATABASE_URL"]
			if !ok || db.Value != "" || db.ValueFrom == nil || db.ValueFrom.SecretKeyRef == nil ||
				db.ValueFrom.SecretKeyRef.Name != secret || db.ValueFrom.SecretKeyRef.Key != key {
				t.Errorf("%s/%s: DATABASE_URL not taken from secret %s key %s: %+v", name, c.Name, secret, key, db)
			}
		}
	}
	all := maps.Clone(r.deployments)
	if r.api != nil {
		all["api"] = r.api
	}
	for name, d := range all {
		c := d.Spec.Template.Spec.Containers[0]
		if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" ||
			c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
			t.Errorf("deployment %s: probes are not /healthz and /readyz", name)
		}
	}
}

func TestDefaultValues(t *testing.T) {
	t.Parallel()
	r := render(t, chartDir, nil)
	checkPods(t, r, "evidencefleet-db", "DATABASE_URL")
	if len(r.deployments) != 3 || r.deployments["ingest"] == nil || r.deployments["verify"] == nil || r.deployments["background"] == nil {
		t.Fatalf("deployments %v, want ingest, verify and background", keys(r.deployments))
	}
	if bg := env(r.deployments["background"].Spec.Template.Spec.Containers[0]); bg["EVF_QUEUES"].Value != "citation,maintenance" ||
		bg["EVF_CITATION_WORKERS"].Value != "1" || bg["EVF_MAINTENANCE_WORKERS"].Value != "1" {
		t.Errorf("background group env: queues %q, citation %q, maintenance %q", bg["EVF_QUEUES"].Value, bg["EVF_CITATION_WORKERS"].Value, bg["EVF_MAINTENANCE_WORKERS"].Value)
	}
	ingest := env(r.deployments["ingest"].Spec.Template.Spec.Containers[0])
	if ingest["EVF_QUEUES"].Value != "target,embed" || ingest["EVF_TARGET_WORKERS"].Value != "4" || ingest["EVF_EMBED_WORKERS"].Value != "2" {
		t.Errorf("ingest group env: queues %q, target %q, embed %q", ingest["EVF_QUEUES"].Value, ingest["EVF_TARGET_WORKERS"].Value, ingest["EVF_EMBED_WORKERS"].Value)
	}
	// Each group's Go runtime collects before its pod's memory limit: 7/8 of it.
	for group, want := range map[string]string{"ingest": "234881024", "verify": "352321536", "background": "176160768"} {
		if got := env(r.deployments[group].Spec.Template.Spec.Containers[0])["GOMEMLIMIT"].Value; got != want {
			t.Errorf("%s GOMEMLIMIT %q, want %s (7/8 of its memory limit)", group, got, want)
		}
	}
	if got := *r.deployments["ingest"].Spec.Replicas; got != 1 {
		t.Errorf("ingest replicas %d, want 1", got)
	}
	if len(r.hpas)+len(r.scaled)+len(r.triggerAuth) != 0 {
		t.Error("autoscaling objects rendered with autoscaling off")
	}
	if len(r.pdbs) != 3 {
		t.Errorf("%d PodDisruptionBudgets, want one per group", len(r.pdbs))
	}
	if len(r.jobs) != 1 || r.jobs[0].Annotations["helm.sh/hook"] != "pre-install,pre-upgrade" ||
		strings.Join(r.jobs[0].Spec.Template.Spec.Containers[0].Args, " ") != "worker migrate" {
		t.Errorf("want one pre-install/pre-upgrade migration hook running `worker migrate`")
	}
	if len(r.monitors) != 0 || len(r.rules) != 0 {
		t.Error("a ServiceMonitor or PrometheusRule was rendered on a cluster without its CRD")
	}
	if len(r.configMaps) != 1 || r.configMaps[0].Labels["grafana_dashboard"] != "1" {
		t.Fatal("want the dashboard ConfigMap with the grafana_dashboard sidecar label")
	}
	// dashboards/evidencefleet.json made the release's (uid, title, file
	// name): TestDashboardPerRelease (dashboard_release_test.go) checks it.
	if len(r.configMaps[0].Data) != 1 {
		t.Errorf("the dashboard ConfigMap holds %d files, want 1", len(r.configMaps[0].Data))
	}

	// With the Prometheus Operator's CRD, the ServiceMonitor selects the metrics Service.
	r = render(t, chartDir, nil, "--api-versions", "monitoring.coreos.com/v1/ServiceMonitor")
	if len(r.monitors) != 1 || len(r.services) != 1 {
		t.Fatalf("%d ServiceMonitors and %d Services, want 1 each", len(r.monitors), len(r.services))
	}
	for k, v := range r.monitors[0].Spec.Selector.MatchLabels {
		if r.services[0].Labels[k] != v {
			t.Errorf("the ServiceMonitor selects %s=%s, the Service has %q", k, v, r.services[0].Labels[k])
		}
	}
	if r.monitors[0].Spec.Endpoints[0].Port != r.services[0].Spec.Ports[0].Name {
		t.Error("the ServiceMonitor scrapes a port the Service does not name")
	}
}

func TestKEDAValues(t *testing.T) {
	t.Parallel()
	r := render(t, chartDir, []string{filepath.Join(chartDir, "ci/keda-values.yaml")})
	checkPods(t, r, "evidencefleet-db", "DATABASE_URL")
	if len(r.hpas) != 0 || len(r.scaled) != 4 || len(r.triggerAuth) != 1 {
		t.Fatalf("%d HPAs, %d ScaledObjects, %d TriggerAuthentications; want 0, 4, 1", len(r.hpas), len(r.scaled), len(r.triggerAuth))
	}
	verify := r.scaled["verify"]
	trig := verify.Spec.Triggers[0]
	// What the query counts is checked on a real database in TestKEDAQueryCountsWork.
	if trig.Type != "postgresql" || trig.Metadata["query"] != "SELECT count(*) FROM river_job WHERE queue IN ('nli') AND "+
		"(state IN ('available', 'running') OR (state IN ('scheduled', 'retryable') AND scheduled_at <= now() + interval '10 seconds'))" ||
		trig.Metadata["targetQueryValue"] != "10" || trig.AuthenticationRef == nil || trig.AuthenticationRef.Name != r.triggerAuth[0].Name {
		t.Errorf("verify trigger: %+v", trig)
	}
	if q := r.scaled["ingest"].Spec.Triggers[0].Metadata["query"]; !strings.Contains(q, "queue IN ('target', 'embed')") {
		t.Errorf("ingest trigger counts %q", q)
	}
	if q := r.scaled["background"].Spec.Triggers[0].Metadata["query"]; !strings.Contains(q, "queue IN ('citation', 'maintenance')") ||
		!strings.Contains(q, "interval '30 seconds'") {
		t.Errorf("background trigger counts %q", q)
	}
	if ref := r.triggerAuth[0].Spec.SecretTargetRef[0]; ref.Parameter != "connection" || ref.Name != "evidencefleet-db" || ref.Key != "DATABASE_URL" {
		t.Errorf("KEDA's connection is not the workers' Secret: %+v", ref)
	}
	for name, d := range r.deployments {
		if d.Spec.Replicas != nil {
			t.Errorf("deployment %s sets replicas while KEDA scales it", name)
		}
		if r.scaled[name].Spec.ScaleTargetRef.Name != d.Name {
			t.Errorf("ScaledObject %s targets %s, not %s", name, r.scaled[name].Spec.ScaleTargetRef.Name, d.Name)
		}
	}
	// Defaults fill what a group leaves out; the group's own values win.
	if got := r.deployments["verify"].Spec.Template.Spec.Containers[0].Resources.Limits.Memory().String(); got != "512Mi" {
		t.Errorf("verify memory limit %s, want 512Mi", got)
	}
	if got := *r.scaled["verify"].Spec.MinReplicaCount; got != 1 {
		t.Errorf("verify minReplicaCount %d, want 1", got)
	}
}

// TestPoolerValues: behind a transaction-mode pooler every pod gets the
// pooled string, the mode and the direct string, and KEDA the direct one.
func TestPoolerValues(t *testing.T) {
	t.Parallel()
	r := render(t, chartDir, []string{filepath.Join(chartDir, "ci/pgbouncer-values.yaml")})
	checkPods(t, r, "evidencefleet-db", "DATABASE_URL")
	pods := map[string]corev1.Container{"api": r.api.Spec.Template.Spec.Containers[0]}
	for name, d := range r.deployments {
		pods[name] = d.Spec.Template.Spec.Containers[0]
	}
	for _, j := range r.jobs {
		pods["job "+j.Name] = j.Spec.Template.Spec.Containers[0]
	}
	for name, c := range pods {
		e := env(c)
		direct := e["EVF_DATABASE_DIRECT_URL"]
		if e["EVF_DB_POOLER"].Value != "transaction" || direct.ValueFrom == nil || direct.ValueFrom.SecretKeyRef == nil ||
			direct.ValueFrom.SecretKeyRef.Name != "evidencefleet-db" || direct.ValueFrom.SecretKeyRef.Key != "DATABASE_DIRECT_URL" {
			t.Errorf("%s: pooler %q, direct string %+v", name, e["EVF_DB_POOLER"].Value, direct)
		}
	}
	if len(r.triggerAuth) != 1 || r.triggerAuth[0].Spec.SecretTargetRef[0].Key != "DATABASE_DIRECT_URL" {
		t.Errorf("KEDA does not use the direct string: %+v", r.triggerAuth)
	}
	// Without a pooler nothing of it is rendered.
	for name, d := range render(t, chartDir, nil).deployments {
		if _, ok := env(d.Spec.Template.Spec.Containers[0])["EVF_DB_POOLER"]; ok {
			t.Errorf("%s: EVF_DB_POOLER set without a pooler", name)
		}
	}
}

func TestHPAValues(t *testing.T) {
	t.Parallel()
	r := render(t, chartDir, []string{filepath.Join(chartDir, "ci/hpa-values.yaml")}, "--api-versions", "monitoring.coreos.com/v1/ServiceMonitor")
	checkPods(t, r, "prod-db", "url")
	if len(r.hpas) != 1 || r.hpas["verify"] == nil || len(r.scaled) != 0 {
		t.Fatalf("HPAs %v and %d ScaledObjects; want verify only and none", keys(r.hpas), len(r.scaled))
	}
	h := r.hpas["verify"]
	if h.Spec.ScaleTargetRef.Name != r.deployments["verify"].Name || *h.Spec.MinReplicas != 2 || h.Spec.MaxReplicas != 12 ||
		*h.Spec.Metrics[0].Resource.Target.AverageUtilization != 60 {
		t.Errorf("verify HPA: %+v", h.Spec)
	}
	if r.deployments["verify"].Spec.Replicas != nil || *r.deployments["ingest"].Spec.Replicas != 2 {
		t.Error("replicas: the HPA's deployment must leave them to the HPA; ingest wants 2")
	}
	if _, ok := r.pdbs["ingest"]; ok || r.pdbs["verify"].Spec.MaxUnavailable.String() != "25%" || r.pdbs["background"] == nil {
		t.Errorf("PDBs %v: want verify (maxUnavailable 25%%) and background", keys(r.pdbs))
	}
	c := r.deployments["verify"].Spec.Template.Spec.Containers[0]
	if c.Image != "registry.example.com/evf/worker:2026.11.22" || len(c.EnvFrom) != 1 || c.EnvFrom[0].SecretRef.Name != "model-api-keys" {
		t.Errorf("image %s, envFrom %+v", c.Image, c.EnvFrom)
	}
	if r.deployments["verify"].Spec.Template.Spec.ServiceAccountName != "evidencefleet" {
		t.Error("serviceAccountName not applied")
	}
	if len(r.monitors) != 1 || r.monitors[0].Labels["release"] != "kube-prometheus-stack" || r.monitors[0].Spec.Endpoints[0].Interval != "15s" {
		t.Error("ServiceMonitor labels or interval not applied")
	}
}

func TestSeveralGroups(t *testing.T) {
	t.Parallel()
	r := render(t, chartDir, []string{filepath.Join(chartDir, "ci/groups-values.yaml")})
	checkPods(t, r, "evidencefleet-db", "DATABASE_URL")
	want := map[string]string{"fetch": "target", "embed": "embed", "verify": "nli,rerank", "background": "citation,maintenance"}
	if len(r.deployments) != len(want) {
		t.Fatalf("deployments %v, want %d", keys(r.deployments), len(want))
	}
	for name, queues := range want {
		e := env(r.deployments[name].Spec.Template.Spec.Containers[0])
		if e["EVF_QUEUES"].Value != queues {
			t.Errorf("group %s serves %q, want %q", name, e["EVF_QUEUES"].Value, queues)
		}
	}
	if e := env(r.deployments["fetch"].Spec.Template.Spec.Containers[0]); e["EVF_TARGET_WORKERS"].Value != "16" {
		t.Errorf("fetch target workers %q", e["EVF_TARGET_WORKERS"].Value)
	}
	if len(r.jobs) != 0 || len(r.configMaps) != 0 || len(r.pdbs) != 3 {
		t.Errorf("%d jobs, %d ConfigMaps, %d PDBs; want 0, 0, 3", len(r.jobs), len(r.configMaps), len(r.pdbs))
	}
	if len(r.deployments["verify"].Spec.Template.Spec.Tolerations) != 1 || r.deployments["embed"].Spec.Template.Spec.NodeSelector["accelerator"] != "none" {
		t.Error("tolerations or nodeSelector not applied")
	}
}

// TestBadValuesAreRefused: the schema and the templates' own checks.
func TestBadValuesAreRefused(t *testing.T) {
	t.Parallel()
	tests := []refusal{
		{"HPA and KEDA on one group", "groups:\n  - {name: v, queues: [nli], autoscaling: {enabled: true}, keda: {enabled: true}}\n", "autoscaling"},
		{"unknown queue", "groups:\n  - {name: v, queues: [nlii]}\n", "/groups/0/queues/0"},
		{"misspelt group field", "groups:\n  - {name: v, queues: [nli], replica: 3}\n", "replica"},
		{"concurrency for a queue the group does not serve", "groups:\n  - {name: v, queues: [nli], concurrency: {embed: 2}}\n", "does not serve"},
		{"no database secret", "database: {existingSecret: \"\", secretKey: DATABASE_URL}\n", "existingSecret"},
		{"transaction pooler without the direct string", "database: {existingSecret: db, secretKey: DATABASE_URL, pooler: transaction}\n", "database.directSecretKey is required"},
		{"pooler mode that is not one", "database: {existingSecret: db, secretKey: DATABASE_URL, pooler: statement}\n", "/database/pooler"},
		{"duplicate group", "groups:\n  - {name: v, queues: [nli]}\n  - {name: v, queues: [embed]}\n", "two groups"},
		{"unknown queue left unserved", "allowUnservedQueues: [citatoin]\n", "/allowUnservedQueues/0"},
		{"KEDA field of chart 0.2 (renamed jobsPerReplica)", "groupDefaults: {keda: {availableJobsPerReplica: 5}}\n", "availableJobsPerReplica"},
		{"alert duration that is not one", "prometheusRule: {alerts: {oldestAvailable: {for: 5 minutes}}}\n", "/prometheusRule/alerts/oldestAvailable/for"},
		{"misspelt alert", "prometheusRule: {alerts: {oldestAvailible: {seconds: 60}}}\n", "oldestAvailible"},
		{"memory limit GOMEMLIMIT cannot follow", "groups:\n  - {name: v, queues: [nli], resources: {limits: {memory: 256MB}}}\nallowUnservedQueues: [target, embed, rerank, citation, maintenance]\n", "memory limit \"256MB\""},
	}
	refused(t, tests)
}

// TestMisspeltTemplateFieldFails: a typo in a template renders fine YAML but
// an object the API server would reject; strict decoding catches it.
func TestMisspeltTemplateFieldFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(chartDir)); err != nil {
		t.Fatal(err)
	}
	tpl := filepath.Join(dir, "templates/deployment.yaml")
	b, err := os.ReadFile(tpl)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(b), "readinessProbe:", "readynessProbe:", 1)
	if broken == string(b) {
		t.Fatal("the template changed: no readinessProbe to misspell")
	}
	if err := os.WriteFile(tpl, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "template", "evf", dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decode(out); err == nil || !strings.Contains(err.Error(), "readynessProbe") {
		t.Errorf("strict decoding accepted a misspelt field: %v", err)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// refusal is values the chart refuses, and what its error must name.
type refusal struct{ name, values, want string }

// refused checks that rendering the chart with each of tests' values
// fails, naming the problem.
func refused(t *testing.T, tests []refusal) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := run(t, "template", "evf", chartDir, "-f", writeValues(t, tt.values))
			if err == nil {
				t.Fatalf("rendered with %s", tt.values)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error does not name the problem (%q):\n%v", tt.want, err)
			}
		})
	}
}
