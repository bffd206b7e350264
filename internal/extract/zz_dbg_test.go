package extract

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestZZDump(t *testing.T) {
	f, _ := os.Open("../../testdata/replay/demo/manifest.jsonl")
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m struct{ URL, Content_type, File string }
		json.Unmarshal(sc.Bytes(), &m)
		b, _ := os.ReadFile(filepath.Join("../../testdata/replay/demo", m.File))
		d, err := FromHTMLWithContentType(b, m.Content_type, mustURL(t, m.URL))
		fmt.Printf("=== %s (%v) title=%q\n%s\n", m.File, err, d.Title, d.Text)
	}
}
