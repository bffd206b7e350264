// Package dashboardcheck reads the Grafana dashboard shipped with the Helm chart
// and turns every query in it (panel targets and template variables) into
// plain PromQL that a Prometheus server can evaluate, so the dashboard can be
// checked against real Prometheus (see dashboard_test.go).
package dashboardcheck

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Query is one PromQL expression of the dashboard.
type Query struct {
	Where    string // "panel \"title\" target A" or "variable kind"
	Expr     string // as written in the dashboard
	Panel    string // the panel's title; "" for a variable
	Variable string // the variable's name; "" for a panel target
}

type panel struct {
	Title   string  `json:"title"`
	Type    string  `json:"type"`
	Panels  []panel `json:"panels"` // collapsed rows
	Targets []struct {
		RefID string `json:"refId"`
		Expr  string `json:"expr"`
	} `json:"targets"`
}

type variable struct {
	Name  string          `json:"name"`
	Type  string          `json:"type"`
	Query json.RawMessage `json:"query"`
}

type model struct {
	UID        string  `json:"uid"`
	Title      string  `json:"title"`
	Panels     []panel `json:"panels"`
	Templating struct {
		List []variable `json:"list"`
	} `json:"templating"`
}

// Load reads a dashboard JSON file and returns its queries.
func Load(path string) ([]Query, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	return Parse(b)
}

// Parse returns the queries of a dashboard: every target of every panel
// (rows included) and every query variable. A panel target without an
// expression is an error: it would show nothing.
func Parse(b []byte) ([]Query, error) {
	var m model
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	if m.UID == "" || m.Title == "" {
		return nil, fmt.Errorf("dashboard: uid and title are required")
	}
	var out []Query
	var walk func([]panel) error
	walk = func(ps []panel) error {
		for _, p := range ps {
			if err := walk(p.Panels); err != nil {
				return err
			}
			for _, t := range p.Targets {
				if strings.TrimSpace(t.Expr) == "" {
					return fmt.Errorf("dashboard: panel %q target %s has no expression", p.Title, t.RefID)
				}
				out = append(out, Query{Where: fmt.Sprintf("panel %q target %s", p.Title, t.RefID), Expr: t.Expr, Panel: p.Title})
			}
		}
		return nil
	}
	if err := walk(m.Panels); err != nil {
		return nil, err
	}
	for _, v := range m.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(v.Query, &q); err != nil {
			var s string // older dashboards keep the query as a string
			if err2 := json.Unmarshal(v.Query, &s); err2 != nil {
				return nil, fmt.Errorf("dashboard: variable %s: %w", v.Name, err)
			}
			q.Query = s
		}
		out = append(out, Query{Where: "variable " + v.Name, Expr: q.Query, Variable: v.Name})
	}
	return out, nil
}

var labelValues = regexp.MustCompile(`^\s*label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)\s*$`)

// PromQL turns a dashboard expression into a query Prometheus evaluates:
// Grafana's interval variables become window, other $variables match
// anything (".*", as the dashboard's "All"), and a variable's
// label_values(selector, label) becomes count by (label) (selector).
func PromQL(expr, window string) string {
	return PromQLWith(expr, window, nil)
}

// PromQLWith is PromQL with some variables set: $name (or ${name}) becomes
// vars[name], a regular expression as Grafana writes a selection into a
// =~ matcher; the others match anything.
func PromQLWith(expr, window string, vars map[string]string) string {
	if m := labelValues.FindStringSubmatch(expr); m != nil {
		expr = fmt.Sprintf("count by (%s) (%s)", m[2], m[1])
	}
	r := strings.NewReplacer("$__rate_interval", window, "$__interval", window, "$__range", window)
	expr = r.Replace(expr)
	return dollarVar.ReplaceAllStringFunc(expr, func(v string) string {
		if val, ok := vars[strings.Trim(v, "${}")]; ok {
			return val
		}
		return ".*"
	})
}

var dollarVar = regexp.MustCompile(`\$\{?[a-zA-Z_][a-zA-Z0-9_]*\}?`)
