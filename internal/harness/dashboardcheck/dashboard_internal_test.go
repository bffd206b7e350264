package dashboardcheck

import "testing"

func TestPromQL(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`sum by (kind) (rate(evidencefleet_jobs_total{namespace=~"$namespace", kind=~"$kind"}[$__rate_interval]))`,
			`sum by (kind) (rate(evidencefleet_jobs_total{namespace=~".*", kind=~".*"}[1m]))`},
		{`label_values(evidencefleet_jobs_total{namespace=~"$namespace"}, kind)`,
			`count by (kind) (evidencefleet_jobs_total{namespace=~".*"})`},
		{`label_values(evidencefleet_worker_info, namespace)`, `count by (namespace) (evidencefleet_worker_info)`},
		{`rate(x{a=~"${queue}"}[$__interval])`, `rate(x{a=~".*"}[1m])`},
	}
	for _, tt := range tests {
		if got := PromQL(tt.in, "1m"); got != tt.want {
			t.Errorf("PromQL(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
	in := `sum by (pod) (rate(x{namespace=~"$namespace", job=~"$release", pod=~"${pod}"}[$__rate_interval]))`
	want := `sum by (pod) (rate(x{namespace=~".*", job=~"evf-evidencefleet-metrics", pod=~"a|b"}[2m]))`
	if got := PromQLWith(in, "2m", map[string]string{"release": "evf-evidencefleet-metrics", "pod": "a|b"}); got != want {
		t.Errorf("PromQLWith(%s)\n got %s\nwant %s", in, got, want)
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	qs, err := Parse([]byte(`{"uid":"u","title":"t",
		"panels":[{"title":"row","type":"row","panels":[{"title":"inner","targets":[{"refId":"A","expr":"up"}]}]},
		          {"title":"p","targets":[{"refId":"A","expr":"a"},{"refId":"B","expr":"b"}]}],
		"templating":{"list":[{"name":"ds","type":"datasource","query":"prometheus"},
		                      {"name":"q","type":"query","query":{"query":"label_values(up, job)"}},
		                      {"name":"old","type":"query","query":"label_values(up, instance)"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for _, q := range qs {
		exprs = append(exprs, q.Expr)
	}
	want := []string{"up", "a", "b", "label_values(up, job)", "label_values(up, instance)"}
	if len(exprs) != len(want) {
		t.Fatalf("got %q, want %q", exprs, want)
	}
	for i := range want {
		if exprs[i] != want[i] {
			t.Errorf("query %d = %q, want %q", i, exprs[i], want[i])
		}
	}
	if qs[0].Panel != "inner" || qs[0].Variable != "" || qs[3].Panel != "" || qs[3].Variable != "q" {
		t.Errorf("panel and variable of the queries: %+v", qs)
	}
	if _, err := Parse([]byte(`{"uid":"u","title":"t","panels":[{"title":"empty","targets":[{"refId":"A","expr":" "}]}]}`)); err == nil {
		t.Error("a target without an expression was accepted")
	}
	if _, err := Parse([]byte(`{"panels":[]}`)); err == nil {
		t.Error("a dashboard without uid and title was accepted")
	}
}
