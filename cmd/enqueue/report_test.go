package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestReportShowsTrustLevels: the report counts the task's NLI edges by the
// source level stamped on them, lists each source domain with its level of
// record, its pages and its NLI edges by stamped level, counts each claim's
// NLI edges by source level, and names the blocked domains. A level changed
// after the judgements shows as the level of record moving while the edges
// keep the level they were judged with.
func TestReportShowsTrustLevels(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task, _ := b.runTask(t)
	levels := map[string]string{"en.wikipedia.org": "LOW", "glacier-science.example.org": "UNVERIFIED",
		"blog.example-opinion.com": "UNVERIFIED"}
	stamped := b.checkReportLevels(t, task, levels, "blocked domains: none")

	// A person changes two levels of record; the edges keep theirs.
	b.mustRun(t, "domain", "set", "glacier-science.example.org", "ACADEMIC", "--reason", "university group", "--by", "dana")
	b.mustRun(t, "domain", "block", "blog.example-opinion.com", "--reason", "opinion farm", "--by", "dana")
	levels["glacier-science.example.org"], levels["blog.example-opinion.com"] = "ACADEMIC", "BLOCKED"
	after := b.checkReportLevels(t, task, levels,
		"blocked domains: blog.example-opinion.com (enqueue status says when, why and by whom)")
	if after != stamped {
		t.Errorf("NLI edges by source level %q after the changes, %q before: a change of level rewrote judged edges", after, stamped)
	}
}

// checkReportLevels compares the report's trust-level lines with the graph
// (JSON) of the task, given each domain's level of record, and returns the
// task's line of NLI edges by source level.
func (b *bundle) checkReportLevels(t *testing.T, task int64, levels map[string]string, blockedLine string) string {
	t.Helper()
	var g struct {
		graphJSON
		Pages []struct {
			ID         int64  `json:"id"`
			Domain     string `json:"domain"`
			TrustLevel string `json:"trust_level"`
		} `json:"pages"`
	}
	b.mustRunJSON(t, &g, "graph", "--task", fmt.Sprint(task))
	report := b.mustRun(t, "report", "--task", fmt.Sprint(task), "--all")

	all, byClaim, byDomain := map[string]int{}, map[int64]map[string]int{}, map[string]map[string]int{}
	for _, e := range g.Edges {
		if e.Relation == "origin" {
			continue
		}
		level := "none"
		if e.SourceTrustLevel != nil {
			level = *e.SourceTrustLevel
		}
		all[level]++
		if byClaim[e.ClaimID] == nil {
			byClaim[e.ClaimID] = map[string]int{}
		}
		byClaim[e.ClaimID][level]++
		if byDomain[e.Domain] == nil {
			byDomain[e.Domain] = map[string]int{}
		}
		byDomain[e.Domain][level]++
	}
	if len(all) == 0 {
		t.Fatal("the task has no NLI edge: nothing to check")
	}
	total := "NLI edges by source level: " + joinCounts(all)
	if !strings.Contains(report, "\n"+total+"\n") {
		t.Errorf("report lacks %q:\n%s", total, report)
	}
	pages := map[string]int{}
	for _, p := range g.Pages {
		pages[p.Domain]++
		if want := levels[p.Domain]; p.TrustLevel != want {
			t.Errorf("graph: page %d of %s has trust_level %q, want %q", p.ID, p.Domain, p.TrustLevel, want)
		}
	}
	for domain, level := range levels {
		edges := 0
		for _, n := range byDomain[domain] {
			edges += n
		}
		row := fmt.Sprintf(`(?m)^  %s +%s +%s +%s: %s$`, regexp.QuoteMeta(domain), level, count(pages[domain], "page"),
			count(edges, "NLI edge"), regexp.QuoteMeta(joinCounts(byDomain[domain])))
		if !regexp.MustCompile(row).MatchString(report) {
			t.Errorf("report lacks the source row %s:\n%s", row, report)
		}
	}
	if !strings.Contains(report, "\n"+blockedLine+"\n") {
		t.Errorf("report lacks %q:\n%s", blockedLine, report)
	}
	for _, c := range g.Claims {
		head := fmt.Sprintf("\n%s [%s] %s\n", c.EvidenceNo, c.Kind, c.Text)
		_, rest, ok := strings.Cut(report, head)
		if !ok {
			t.Errorf("report --all lacks claim %s", c.EvidenceNo)
			continue
		}
		lines := strings.SplitN(rest, "\n", 4)
		if want := "    NLI edges by source level: " + joinCounts(byClaim[c.ID]); len(lines) < 3 || lines[2] != want {
			t.Errorf("claim %s: report lines %q, want the third %q", c.EvidenceNo, lines[:min(3, len(lines))], want)
		}
	}
	return total
}
