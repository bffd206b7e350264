package chartcheck_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/operator-values.golden.yaml from the chart")

const (
	operatorValues = chartDir + "/ci/operator-values.yaml"
	operatorImage  = "registry.example.com/evf/worker@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	serviceMonAPI  = "monitoring.coreos.com/v1/ServiceMonitor"
)

// pod is what a workload's pod template must carry.
type pod struct {
	spec        corev1.PodSpec
	labels      map[string]string
	annotations map[string]string
}

// podWant is where the settings of ci/operator-values.yaml land in one pod.
type podWant struct {
	account      string
	cpu, memory  string // requests.cpu and limits.memory
	gomemlimit   string // "" for none
	annotations  map[string]string
	labels       map[string]string
	nodeSelector map[string]string
	tolerations  []string // keys, in order
	affinity     string   // nodeAffinity or podAntiAffinity
	spread       string   // the one constraint's topologyKey; "" for none
	spreadSel    map[string]string
	priority     string
	env          map[string]string // name -> value, or "secret:NAME/KEY", "configMap:NAME/KEY"
	noEnv        []string
	volumes      []string
	mounts       []string
	runAsUser    int64
	seccomp      bool // the container's own seccompProfile
	addCaps      []corev1.Capability
}

// TestOperatorValues: every setting of ci/operator-values.yaml reaches the
// objects it belongs to. Precedence: a group over groupDefaults over the top
// level, api over the top level, the migration Job as a group that sets
// nothing; maps merged key by key, resources, affinity, priority and lists
// taken whole from the most specific level; the defaultResources last.
func TestOperatorValues(t *testing.T) {
	t.Parallel()
	r := render(t, chartDir, []string{operatorValues}, "--api-versions", serviceMonAPI)
	checkPods(t, r, "research-db", "uri")

	// The file sets every pod setting at the top level.
	b, err := os.ReadFile(operatorValues)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]any
	if err := yaml.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"resources", "podAnnotations", "podLabels", "nodeSelector", "tolerations", "affinity",
		"topologySpreadConstraints", "priorityClassName", "extraEnv", "extraVolumes", "extraVolumeMounts",
		"podSecurityContext", "securityContext", "serviceAccount", "nameOverride", "fullnameOverride", "groupDefaults", "api"} {
		if _, ok := top[k]; !ok {
			t.Errorf("ci/operator-values.yaml does not set %s", k)
		}
	}

	// Names: fullnameOverride and nameOverride.
	if len(r.deployments) != 3 || r.api == nil || len(r.jobs) != 1 {
		t.Fatalf("deployments %v, api %v, %d jobs", keys(r.deployments), r.api != nil, len(r.jobs))
	}
	for c, d := range r.deployments {
		if d.Name != "research-evf-"+c {
			t.Errorf("group %s's Deployment is %s, want research-evf-%s (fullnameOverride)", c, d.Name, c)
		}
	}
	if r.api.Name != "research-evf-api" || r.jobs[0].Name != "research-evf-migrate" {
		t.Errorf("API %s, Job %s", r.api.Name, r.jobs[0].Name)
	}
	if len(r.services) != 1 || r.services[0].Name != "research-evf-metrics" {
		t.Errorf("metrics Service %v", r.services)
	}

	pods := map[string]pod{}
	for c, d := range r.deployments {
		pods[c] = pod{d.Spec.Template.Spec, d.Spec.Template.Labels, d.Spec.Template.Annotations}
		if !labels.SelectorFromSet(d.Spec.Selector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) {
			t.Errorf("group %s: the selector does not match its pods (podLabels)", c)
		}
		if !labels.SelectorFromSet(r.services[0].Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) {
			t.Errorf("group %s: the metrics Service does not select its pods", c)
		}
		if p := r.pdbs[c]; p == nil || !labels.SelectorFromSet(p.Spec.Selector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) {
			t.Errorf("group %s: no PodDisruptionBudget over its pods", c)
		}
	}
	pods["api"] = pod{r.api.Spec.Template.Spec, r.api.Spec.Template.Labels, r.api.Spec.Template.Annotations}
	job := r.jobs[0]
	pods["migrate"] = pod{job.Spec.Template.Spec, job.Spec.Template.Labels, job.Spec.Template.Annotations}
	for name, o := range map[string]map[string]string{"api": r.api.Labels, "job": job.Labels, "metrics Service": r.services[0].Labels} {
		if o["app.kubernetes.io/name"] != "evidence" {
			t.Errorf("%s: app.kubernetes.io/name %q, want evidence (nameOverride)", name, o["app.kubernetes.io/name"])
		}
	}

	team := map[string]string{"example.com/team": "research", "example.com/cost-center": "42"}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	sel := func(component string) map[string]string {
		return map[string]string{"app.kubernetes.io/name": "evidence", "app.kubernetes.io/instance": "evf", "app.kubernetes.io/component": component}
	}
	topEnv := map[string]string{"PGSSLROOTCERT": "/etc/evf/ca/ca.crt", "EVF_NLI_API_KEY": "secret:model-api-keys/nli", "EVF_LOG_FORMAT": "text"}
	workers := podWant{
		account: "evidence", cpu: "300m", memory: "384Mi", gomemlimit: "352321536",
		annotations:  with(team, "example.com/tier", "workers", "prometheus.io/scrape", "true", "prometheus.io/port", "9464"),
		labels:       with(nil, "example.com/team", "research", "example.com/tier", "workers"),
		nodeSelector: map[string]string{"example.com/pool": "evidence-workers", "kubernetes.io/os": "linux"},
		tolerations:  []string{"dedicated"}, affinity: "nodeAffinity", spread: "topology.kubernetes.io/zone",
		priority: "evidence-workers", env: topEnv, volumes: []string{"tmp", "db-ca"}, mounts: []string{"tmp", "db-ca"}, runAsUser: 10001,
	}
	ingest := workers
	ingest.cpu, ingest.memory, ingest.gomemlimit = "1", "1Gi", "939524096" // its own resources
	ingest.annotations = with(workers.annotations, "example.com/tier", "ingest")
	ingest.tolerations = []string{"dedicated", "nvidia.com/gpu"}
	ingest.env = map[string]string{"PGSSLROOTCERT": "/etc/evf/ca/ca.crt", "HTTPS_PROXY": "http://proxy.example.com:3128", "EVF_LOG_FORMAT": "json"}
	ingest.noEnv = []string{"EVF_NLI_API_KEY"} // its extraEnv replaces the top level's
	ingest.spreadSel = sel("ingest")
	verify := workers // groupDefaults.resources over its defaultResources (2Gi)
	verify.labels = with(workers.labels, "example.com/tier", "verify")
	verify.nodeSelector = with(workers.nodeSelector, "example.com/disk", "ssd")
	verify.affinity, verify.priority = "podAntiAffinity", "evidence-high"
	verify.spread, verify.spreadSel = "kubernetes.io/hostname", map[string]string{"app.kubernetes.io/component": "verify"}
	verify.volumes, verify.mounts = []string{"tmp", "db-ca", "models"}, []string{"tmp", "db-ca", "models"}
	verify.runAsUser, verify.seccomp = 20001, true
	background := workers
	background.spreadSel = sel("background")
	api := podWant{
		account: "evidence", cpu: "200m", memory: "512Mi", gomemlimit: "469762048", // the top level's resources over api.defaultResources
		annotations:  with(team, "example.com/tier", "api"),
		labels:       with(nil, "example.com/team", "research", "example.com/tier", "api"),
		nodeSelector: map[string]string{"example.com/pool": "evidence-edge", "kubernetes.io/os": "linux"},
		tolerations:  []string{"edge"}, affinity: "podAntiAffinity", spread: "topology.kubernetes.io/zone", spreadSel: sel("api"),
		priority: "evidence-api",
		env:      map[string]string{"PGSSLROOTCERT": "/etc/evf/ca/ca.crt", "EVF_API_TRUSTED_PROXIES": "configMap:edge-network/pod-cidr", "EVF_LOG_FORMAT": "json"},
		noEnv:    []string{"EVF_NLI_API_KEY"}, volumes: []string{"tmp", "db-ca"}, mounts: []string{"tmp", "db-ca"}, runAsUser: 30001,
		addCaps: []corev1.Capability{"NET_BIND_SERVICE"},
	}
	// The hook: groupDefaults over the top level, its own account and resources.
	migrate := workers
	migrate.account, migrate.cpu, migrate.memory, migrate.gomemlimit = "evidence-migrate", "100m", "128Mi", ""
	migrate.annotations = with(team, "example.com/tier", "workers")
	migrate.spread, migrate.volumes, migrate.mounts = "", []string{"db-ca"}, []string{"db-ca"}

	for name, want := range map[string]podWant{"ingest": ingest, "verify": verify, "background": background, "api": api, "migrate": migrate} {
		p, ok := pods[name]
		if !ok {
			t.Errorf("no %s pod", name)
			continue
		}
		checkOperatorPod(t, name, p, want)
		if c := p.labels["app.kubernetes.io/component"]; c != name {
			t.Errorf("%s: podLabels moved the pod to component %q", name, c)
		}
	}

	// The accounts: the workers' and the API's, and the hook's, created before the Job.
	accounts := map[string]*corev1.ServiceAccount{}
	for _, a := range r.accounts {
		accounts[a.Name] = a
		if a.Annotations["iam.gke.io/gcp-service-account"] != "evidence@research.iam.gserviceaccount.com" ||
			a.AutomountServiceAccountToken == nil || *a.AutomountServiceAccountToken {
			t.Errorf("ServiceAccount %s: annotations %v, automount %v", a.Name, a.Annotations, a.AutomountServiceAccountToken)
		}
	}
	if len(accounts) != 2 || accounts["evidence"] == nil || accounts["evidence-migrate"] == nil {
		t.Fatalf("ServiceAccounts %v, want evidence and evidence-migrate", keys(accounts))
	}
	if h := accounts["evidence"].Annotations["helm.sh/hook"]; h != "" {
		t.Errorf("the workers' account is a hook (%s): helm would not manage it", h)
	}
	h := accounts["evidence-migrate"].Annotations
	aw, err1 := strconv.Atoi(h["helm.sh/hook-weight"])
	jw, err2 := strconv.Atoi(job.Annotations["helm.sh/hook-weight"])
	if h["helm.sh/hook"] != job.Annotations["helm.sh/hook"] || err1 != nil || err2 != nil || aw >= jw ||
		!strings.Contains(h["helm.sh/hook-delete-policy"], "hook-succeeded") {
		t.Errorf("the hook's account %v is not created before the Job (%v) and removed with it", h, job.Annotations)
	}

	// The ServiceMonitor.
	if len(r.monitors) != 1 {
		t.Fatalf("%d ServiceMonitors", len(r.monitors))
	}
	m := r.monitors[0]
	ep := m.Spec.Endpoints[0]
	if m.Labels["release"] != "kube-prometheus-stack" || ep.Interval != "20s" || ep.ScrapeTimeout != "15s" ||
		len(ep.Relabelings) != 1 || ep.Relabelings[0].TargetLabel != "node" ||
		!reflect.DeepEqual(ep.Relabelings[0].SourceLabels, []string{"__meta_kubernetes_pod_node_name"}) ||
		len(ep.MetricRelabelings) != 1 || ep.MetricRelabelings[0].Action != "drop" || ep.MetricRelabelings[0].Regex != "go_gc_.*" {
		t.Errorf("ServiceMonitor %+v %+v", m.Labels, ep)
	}
	if !labels.SelectorFromSet(m.Spec.Selector.MatchLabels).Matches(labels.Set(r.services[0].Labels)) {
		t.Error("the ServiceMonitor does not select the metrics Service")
	}
}

func checkOperatorPod(t *testing.T, name string, p pod, want podWant) {
	t.Helper()
	s := p.spec
	if len(s.Containers) != 1 {
		t.Fatalf("%s: %d containers", name, len(s.Containers))
	}
	c := s.Containers[0]
	if c.Image != operatorImage {
		t.Errorf("%s: image %s, want the digest's %s", name, c.Image, operatorImage)
	}
	if len(s.ImagePullSecrets) != 1 || s.ImagePullSecrets[0].Name != "registry-credentials" {
		t.Errorf("%s: imagePullSecrets %v", name, s.ImagePullSecrets)
	}
	if s.ServiceAccountName != want.account {
		t.Errorf("%s: service account %q, want %q", name, s.ServiceAccountName, want.account)
	}
	if got := c.Resources.Requests.Cpu().String(); got != want.cpu {
		t.Errorf("%s: cpu request %s, want %s", name, got, want.cpu)
	}
	if got := c.Resources.Limits.Memory().String(); got != want.memory {
		t.Errorf("%s: memory limit %s, want %s", name, got, want.memory)
	}
	e := env(c)
	if got := e["GOMEMLIMIT"].Value; got != want.gomemlimit {
		t.Errorf("%s: GOMEMLIMIT %q, want %q", name, got, want.gomemlimit)
	}
	for k, v := range want.annotations {
		if p.annotations[k] != v {
			t.Errorf("%s: pod annotation %s=%q, want %q", name, k, p.annotations[k], v)
		}
	}
	if len(p.annotations) != len(want.annotations) {
		t.Errorf("%s: pod annotations %v, want %v", name, p.annotations, want.annotations)
	}
	for k, v := range want.labels {
		if p.labels[k] != v {
			t.Errorf("%s: pod label %s=%q, want %q", name, k, p.labels[k], v)
		}
	}
	if !reflect.DeepEqual(s.NodeSelector, want.nodeSelector) {
		t.Errorf("%s: nodeSelector %v, want %v", name, s.NodeSelector, want.nodeSelector)
	}
	var tol []string
	for _, x := range s.Tolerations {
		tol = append(tol, x.Key)
	}
	if !slices.Equal(tol, want.tolerations) {
		t.Errorf("%s: tolerations %v, want %v", name, tol, want.tolerations)
	}
	switch a := s.Affinity; {
	case a == nil:
		t.Errorf("%s: no affinity", name)
	case want.affinity == "nodeAffinity" && (a.NodeAffinity == nil || a.PodAntiAffinity != nil),
		want.affinity == "podAntiAffinity" && (a.PodAntiAffinity == nil || a.NodeAffinity != nil):
		t.Errorf("%s: affinity %+v, want only its %s", name, a, want.affinity)
	}
	if want.spread == "" {
		if len(s.TopologySpreadConstraints) != 0 {
			t.Errorf("%s: topology spread constraints %v", name, s.TopologySpreadConstraints)
		}
	} else if len(s.TopologySpreadConstraints) != 1 || s.TopologySpreadConstraints[0].TopologyKey != want.spread ||
		s.TopologySpreadConstraints[0].LabelSelector == nil || !reflect.DeepEqual(s.TopologySpreadConstraints[0].LabelSelector.MatchLabels, want.spreadSel) {
		t.Errorf("%s: topology spread constraints %+v, want %s over %v", name, s.TopologySpreadConstraints, want.spread, want.spreadSel)
	}
	if s.PriorityClassName != want.priority {
		t.Errorf("%s: priorityClassName %q, want %q", name, s.PriorityClassName, want.priority)
	}
	for k, v := range want.env {
		got, n := e[k], 0
		for _, x := range c.Env {
			if x.Name == k {
				n++
			}
		}
		var desc string
		switch vf := got.ValueFrom; {
		case vf == nil:
			desc = got.Value
		case vf.SecretKeyRef != nil:
			desc = "secret:" + vf.SecretKeyRef.Name + "/" + vf.SecretKeyRef.Key
		case vf.ConfigMapKeyRef != nil:
			desc = "configMap:" + vf.ConfigMapKeyRef.Name + "/" + vf.ConfigMapKeyRef.Key
		}
		if desc != v || n != 1 {
			t.Errorf("%s: %d variables %s, %q; want one, %q", name, n, k, desc, v)
		}
	}
	for _, k := range want.noEnv {
		if _, ok := e[k]; ok {
			t.Errorf("%s: sets %s", name, k)
		}
	}
	var vols, mounts []string
	for _, v := range s.Volumes {
		vols = append(vols, v.Name)
	}
	for _, m := range c.VolumeMounts {
		mounts = append(mounts, m.Name)
	}
	if !slices.Equal(vols, want.volumes) || !slices.Equal(mounts, want.mounts) {
		t.Errorf("%s: volumes %v, mounts %v; want %v, %v", name, vols, mounts, want.volumes, want.mounts)
	}
	// Merged key by key: the chart's hardening, the top level's user and
	// group, groupDefaults' fsGroupChangePolicy (not the API's), the
	// workload's own user.
	psc := s.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser != want.runAsUser ||
		psc.RunAsGroup == nil || *psc.RunAsGroup != 10001 || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault ||
		(psc.FSGroupChangePolicy != nil) != (name != "api") {
		t.Errorf("%s: pod security context %+v", name, psc)
	}
	sc := c.SecurityContext
	if sc == nil || sc.Privileged == nil || *sc.Privileged || sc.Capabilities == nil ||
		!slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || !slices.Equal(sc.Capabilities.Add, want.addCaps) ||
		(sc.SeccompProfile != nil) != want.seccomp {
		t.Errorf("%s: container security context %+v", name, sc)
	}
}

// TestOperatorValuesGolden: the workloads, accounts, Services and the
// ServiceMonitor rendered with ci/operator-values.yaml equal
// testdata/operator-values.golden.yaml (go test -run TestOperatorValuesGolden
// -update rewrites it after an intended change).
func TestOperatorValuesGolden(t *testing.T) {
	t.Parallel()
	args := []string{"template", "evf", chartDir, "--namespace", "research", "-f", operatorValues, "--api-versions", serviceMonAPI}
	for _, s := range []string{"serviceaccount", "migrate-job", "deployment", "api", "service", "pdb", "servicemonitor"} {
		args = append(args, "--show-only", "templates/"+s+".yaml")
	}
	out, err := run(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "operator-values.golden.yaml")
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("the rendering of ci/operator-values.yaml differs from %s (go test ./internal/harness/chartcheck/ -run TestOperatorValuesGolden -update rewrites it):\n%s",
			golden, firstDiff(string(want), out))
	}
}

// firstDiff shows the first line where got departs from want, with context.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		if i >= len(w) || i >= len(g) || w[i] != g[i] {
			var b bytes.Buffer
			for j := max(0, i-3); j < min(i+4, max(len(w), len(g))); j++ {
				wl, gl := "", ""
				if j < len(w) {
					wl = w[j]
				}
				if j < len(g) {
					gl = g[j]
				}
				mark := " "
				if wl != gl {
					mark = "!"
				}
				fmt.Fprintf(&b, "%s %4d want %q\n%s      got  %q\n", mark, j+1, wl, mark, gl)
			}
			return b.String()
		}
	}
	return ""
}

// TestResourcesPrecedence: groupDefaults.resources and the top-level
// resources reach the default groups (whose own sizes are only
// defaultResources), the top level the API, and the more specific level
// wins, replacing the whole block.
func TestResourcesPrecedence(t *testing.T) {
	t.Parallel()
	limits := func(r rendered) map[string]string {
		out := map[string]string{}
		for c, d := range r.deployments {
			res := d.Spec.Template.Spec.Containers[0].Resources
			out[c] = res.Limits.Memory().String() + "/" + res.Requests.Cpu().String()
		}
		if r.api != nil {
			res := r.api.Spec.Template.Spec.Containers[0].Resources
			out["api"] = res.Limits.Memory().String() + "/" + res.Requests.Cpu().String()
		}
		return out
	}
	for _, tt := range []struct {
		name, values string
		want         map[string]string
	}{
		{"defaults", "{}", map[string]string{"ingest": "256Mi/250m", "verify": "384Mi/500m", "background": "192Mi/100m", "api": "256Mi/100m"}},
		{"groupDefaults over the default groups' sizes", "groupDefaults: {resources: {limits: {memory: 1Gi}}}\n",
			map[string]string{"ingest": "1Gi/0", "verify": "1Gi/0", "background": "1Gi/0", "api": "256Mi/100m"}},
		{"the top level over every default size", "resources: {requests: {cpu: 50m}, limits: {memory: 300Mi}}\n",
			map[string]string{"ingest": "300Mi/50m", "verify": "300Mi/50m", "background": "300Mi/50m", "api": "300Mi/50m"}},
		{"groupDefaults over the top level and api.resources over it",
			"resources: {limits: {memory: 300Mi}}\ngroupDefaults: {resources: {limits: {memory: 1Gi}}}\napi: {resources: {requests: {cpu: 2}}}\n",
			map[string]string{"ingest": "1Gi/0", "verify": "1Gi/0", "background": "1Gi/0", "api": "0/2"}},
		{"a group's own over groupDefaults",
			"groupDefaults: {resources: {limits: {memory: 1Gi}}}\ngroups:\n  - {name: all, queues: [target, embed, nli, rerank, citation, maintenance], resources: {requests: {cpu: 3}}}\n  - {name: spare, queues: [nli], defaultResources: {limits: {memory: 2Gi}}}\n",
			map[string]string{"all": "0/3", "spare": "1Gi/0", "api": "256Mi/100m"}},
		{"a group's defaultResources when no level sets any",
			"groups:\n  - {name: all, queues: [target, embed, nli, rerank, citation, maintenance], defaultResources: {limits: {memory: 2Gi}}}\n  - {name: bare, queues: [nli]}\n",
			map[string]string{"all": "2Gi/0", "bare": "0/0", "api": "256Mi/100m"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := render(t, chartDir, []string{writeValues(t, tt.values)})
			if got := limits(r); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("memory limit/cpu request %v, want %v", got, tt.want)
			}
			// GOMEMLIMIT follows the resources the group ended with.
			for c, d := range r.deployments {
				lim := d.Spec.Template.Spec.Containers[0].Resources.Limits.Memory()
				got := env(d.Spec.Template.Spec.Containers[0])["GOMEMLIMIT"].Value
				if want := fmt.Sprint(lim.Value() * 7 / 8); (lim.IsZero() && got != "") || (!lim.IsZero() && got != want) {
					t.Errorf("%s: GOMEMLIMIT %q with a limit of %s", c, got, lim)
				}
			}
		})
	}
}

// TestServiceAccountValues: no account by default (the namespace's, without
// its token); serviceAccount.create makes the workers' and the hook's;
// automount; the older serviceAccountName.
func TestServiceAccountValues(t *testing.T) {
	t.Parallel()
	specs := func(r rendered) map[string]corev1.PodSpec {
		out := map[string]corev1.PodSpec{"api": r.api.Spec.Template.Spec}
		for c, d := range r.deployments {
			out[c] = d.Spec.Template.Spec
		}
		for _, j := range r.jobs {
			out["job"] = j.Spec.Template.Spec
		}
		return out
	}
	r := render(t, chartDir, nil)
	if len(r.accounts) != 0 {
		t.Errorf("%d ServiceAccounts by default", len(r.accounts))
	}
	for name, s := range specs(r) {
		if s.ServiceAccountName != "" {
			t.Errorf("%s: service account %q by default", name, s.ServiceAccountName)
		}
	}

	r = render(t, chartDir, []string{writeValues(t, "serviceAccount: {create: true, automount: true}\n")})
	names := map[string]bool{}
	for _, a := range r.accounts {
		names[a.Name] = true
		if a.AutomountServiceAccountToken == nil || !*a.AutomountServiceAccountToken {
			t.Errorf("ServiceAccount %s does not automount its token", a.Name)
		}
	}
	if len(names) != 2 || !names["evf-evidencefleet"] || !names["evf-evidencefleet-migrate"] {
		t.Errorf("ServiceAccounts %v, want evf-evidencefleet and evf-evidencefleet-migrate", names)
	}
	for name, s := range specs(r) {
		want := "evf-evidencefleet"
		if name == "job" {
			want += "-migrate"
		}
		if s.ServiceAccountName != want || s.AutomountServiceAccountToken == nil || !*s.AutomountServiceAccountToken {
			t.Errorf("%s: service account %q (want %s), automount %v", name, s.ServiceAccountName, want, s.AutomountServiceAccountToken)
		}
	}

	// An existing account, by its new or its old name: no account is created
	// and the hook uses it too.
	for _, v := range []string{"serviceAccount: {name: existing}\n", "serviceAccountName: existing\n", "serviceAccountName: existing\nserviceAccount: {name: existing}\n"} {
		r = render(t, chartDir, []string{writeValues(t, v)})
		if len(r.accounts) != 0 {
			t.Errorf("with %s: %d ServiceAccounts", v, len(r.accounts))
		}
		for name, s := range specs(r) {
			if s.ServiceAccountName != "existing" {
				t.Errorf("with %s: %s runs as %q", v, name, s.ServiceAccountName)
			}
		}
	}
}

// TestPodSettingsRefused: the schema types every new key and still refuses
// unknown ones; the templates refuse what it cannot express.
func TestPodSettingsRefused(t *testing.T) {
	t.Parallel()
	tests := []refusal{
		{"unknown top-level key", "replicaCount: 3\n", "replicaCount"},
		{"misspelt pod setting", "podAnnotation: {a: b}\n", "podAnnotation"},
		{"misspelt group pod setting", "groupDefaults: {tolerations: [], priorityClass: high}\n", "priorityClass"},
		{"misspelt api pod setting", "api: {extraEnvs: []}\n", "extraEnvs"},
		{"misspelt serviceAccount field", "serviceAccount: {automountServiceAccountToken: true}\n", "automountServiceAccountToken"},
		{"serviceAccount.create not a boolean", "serviceAccount: {create: \"yes\"}\n", "/serviceAccount/create"},
		{"non-string annotation", "podAnnotations: {a: 1}\n", "/podAnnotations/a"},
		{"non-string group label", "groups:\n  - {name: v, queues: [nli], podLabels: {a: true}}\n", "/groups/0/podLabels/a"},
		{"nodeSelector a list", "api: {nodeSelector: [a]}\n", "/api/nodeSelector"},
		{"toleration with an unknown field", "tolerations: [{key: a, operator: Exists, efect: NoSchedule}]\n", "efect"},
		{"toleration effect", "tolerations: [{key: a, operator: Exists, effect: Never}]\n", "/tolerations/0/effect"},
		{"affinity a list", "affinity: []\n", "/affinity"},
		{"spread constraint without maxSkew", "topologySpreadConstraints: [{topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]\n", "maxSkew"},
		{"priorityClassName a number", "priorityClassName: 5\n", "/priorityClassName"},
		{"extraEnv without a name", "extraEnv: [{value: x}]\n", "name"},
		{"extraEnv value a number", "extraEnv: [{name: A, value: 5}]\n", "/extraEnv/0/value"},
		{"extraEnv value and valueFrom", "extraEnv: [{name: A, value: x, valueFrom: {secretKeyRef: {name: s, key: k}}}]\n", "/extraEnv/0"},
		{"extraEnv unknown source", "extraEnv: [{name: A, valueFrom: {vaultRef: {key: k}}}]\n", "vaultRef"},
		{"extraEnv setting the database", "extraEnv: [{name: DATABASE_URL, value: postgres://x}]\n", "extraEnv sets DATABASE_URL"},
		{"group extraEnv setting its queues", "groups:\n  - {name: v, queues: [target, embed, nli, rerank, citation, maintenance], extraEnv: [{name: EVF_QUEUES, value: nli}]}\n", "group v: extraEnv sets EVF_QUEUES"},
		{"api extraEnv setting concurrency", "api: {extraEnv: [{name: EVF_NLI_WORKERS, value: \"3\"}]}\n", "api: extraEnv sets EVF_NLI_WORKERS"},
		{"extra volume named tmp", "extraVolumes: [{name: tmp, emptyDir: {}}]\n", "extraVolumes names a volume tmp"},
		{"extra volume without a name", "extraVolumes: [{emptyDir: {}}]\n", "name"},
		{"mount without a path", "extraVolumeMounts: [{name: a}]\n", "mountPath"},
		{"resources with an unknown field", "resources: {limit: {memory: 1Gi}}\n", "limit"},
		{"group securityContext a string", "groups:\n  - {name: v, queues: [nli], securityContext: strict}\n", "/groups/0/securityContext"},
		{"digest that is not one", "image: {repository: r, digest: latest}\n", "/image/digest"},
		{"fullnameOverride not a DNS label", "fullnameOverride: Research_EVF\n", "/fullnameOverride"},
		{"scrapeTimeout not a duration", "serviceMonitor: {scrapeTimeout: 10}\n", "/serviceMonitor/scrapeTimeout"},
		{"interval not a duration", "serviceMonitor: {interval: 30 seconds}\n", "/serviceMonitor/interval"},
		{"relabeling with an unknown field", "serviceMonitor: {relabelings: [{source_labels: [a]}]}\n", "source_labels"},
		{"relabeling action", "serviceMonitor: {metricRelabelings: [{action: delete}]}\n", "/serviceMonitor/metricRelabelings/0/action"},
		{"two account names", "serviceAccountName: a\nserviceAccount: {name: b}\n", "serviceAccount.name (b) and serviceAccountName (a) differ"},
	}
	refused(t, tests)
}

// TestPodSettingsMerge: an empty value is unset, the next level applies;
// a group's security context is merged over the top level's, keeping its
// hardening, and may turn one field off.
func TestPodSettingsMerge(t *testing.T) {
	t.Parallel()
	r := render(t, chartDir, []string{writeValues(t, "tolerations: [{key: a, operator: Exists}]\n"+
		"groupDefaults: {tolerations: []}\n"+
		"groups:\n  - {name: all, queues: [target, embed, nli, rerank, citation, maintenance], tolerations: [], securityContext: {readOnlyRootFilesystem: false}, podSecurityContext: {runAsUser: 4242}}\n")})
	s := r.deployments["all"].Spec.Template.Spec
	if len(s.Tolerations) != 1 || s.Tolerations[0].Key != "a" {
		t.Errorf("empty tolerations did not fall through to the top level's: %v", s.Tolerations)
	}
	sc, psc := s.Containers[0].SecurityContext, s.SecurityContext
	if sc.ReadOnlyRootFilesystem == nil || *sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Errorf("group securityContext not merged over the top level's: %+v", sc)
	}
	if *psc.RunAsUser != 4242 || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.SeccompProfile == nil {
		t.Errorf("group podSecurityContext not merged over the top level's: %+v", psc)
	}
	if api := r.api.Spec.Template.Spec; *api.SecurityContext.RunAsUser != 65532 || !*api.Containers[0].SecurityContext.ReadOnlyRootFilesystem {
		t.Error("a group's security contexts reached the API")
	}
}
