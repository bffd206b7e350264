package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/corpus"
	"github.com/evidencefleet/evidencefleet/internal/testfleet"
)

// Pages on three domains about one topic; sentences adapted from Wikipedia
// (CC BY-SA) articles on polar bears and sea ice.
func polarPages() []corpus.Page {
	return []corpus.Page{
		testfleet.Page("https://en.wikipedia.org/wiki/Polar_bear", "Polar bear",
			"The polar bear is a large bear native to the Arctic and nearby areas. It is closely related to the brown bear, and the two species can interbreed.",
			"Because of expected habitat loss caused by climate change, the polar bear is classified as a vulnerable species. The loss of sea ice reduces the ability of polar bears to hunt seals.",
			"Polar bear populations are declining because the sea ice in the Arctic is melting earlier each year."),
		testfleet.Page("https://www.example-science.org/arctic/sea-ice", "Arctic sea ice",
			"Arctic sea ice has declined in recent decades in area and volume due to climate change. The decline of sea ice is driving polar bear populations toward extinction.",
			"Scientists estimate that two thirds of polar bears could disappear by 2050 as the sea ice melts."),
		testfleet.Page("https://news.example-daily.com/polar-bears-thriving", "Polar bears thriving",
			"Some commentators argue that polar bear populations are not declining and that the sea ice is not melting in the Arctic.",
			"Hunting quotas were introduced in the 1970s, and several subpopulations have grown since then."),
	}
}

func TestPipelineBuildsAConsistentGraph(t *testing.T) {
	f := testfleet.Start(t, testfleet.Options{Pages: polarPages()})
	task := f.CreateTask(t, "Polar bear populations are declining because the Arctic sea ice is melting.")
	f.AddTargets(t, task, "https://en.wikipedia.org/wiki/Polar_bear", "https://www.example-science.org/arctic/sea-ice",
		"https://news.example-daily.com/polar-bears-thriving")
	testfleet.WaitIdle(t, f.Pool, 60*time.Second)
	t.Log("\n" + testfleet.JobDump(t, f.Pool))

	ctx := context.Background()
	counts := map[string]int{}
	rows, err := f.Pool.Query(ctx, `SELECT relation, count(*) FROM edges GROUP BY relation`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var rel string
		var n int
		if err := rows.Scan(&rel, &n); err != nil {
			t.Fatal(err)
		}
		counts[rel] = n
	}
	t.Logf("edges by relation: %v", counts)
	if counts["origin"] == 0 || counts["supports"] == 0 {
		t.Errorf("want origin and supports edges, got %v", counts)
	}
}
