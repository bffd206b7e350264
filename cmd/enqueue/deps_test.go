package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoParserOrCrawler keeps the enqueue CLI small: it inserts jobs and
// reads results, so it must not link an HTML parser, readability or the
// crawler (the model banner comes from internal/modelcard, which names the
// built-in models without linking them).
func TestLinksNoParserOrCrawler(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps gave %d packages: %q", len(deps), out)
	}
	banned := []string{
		"golang.org/x/net/html",
		"github.com/PuerkitoBio/goquery",
		"github.com/go-shiori/go-readability",
		"codeberg.org/readeck/go-readability",
		"github.com/gocolly/colly",
		"github.com/evidencefleet/evidencefleet/internal/extract",
		"github.com/evidencefleet/evidencefleet/internal/crawl",
		"github.com/evidencefleet/evidencefleet/internal/models/builtin",
	}
	for _, d := range deps {
		for _, b := range banned {
			if d == b || strings.HasPrefix(d, b+"/") {
				t.Errorf("cmd/enqueue depends on %s", d)
			}
		}
	}
}
