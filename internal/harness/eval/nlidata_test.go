package eval

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadNLIFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		want    []NLIExample
		wantErr string // substring of the error; "" for success
	}{
		{
			name:    "three labels",
			content: "entailment\tA man sleeps .\tA person sleeps .\nneutral\tA dog runs .\tThe dog is happy .\ncontradiction\tIt is day .\tIt is night .\n",
			want: []NLIExample{
				{"supports", "A man sleeps .", "A person sleeps ."},
				{"neutral", "A dog runs .", "The dog is happy ."},
				{"refutes", "It is day .", "It is night ."},
			},
		},
		{
			name:    "CRLF and blank lines",
			content: "\r\nentailment\tP\tH\r\n\n",
			want:    []NLIExample{{"supports", "P", "H"}},
		},
		{name: "two fields", content: "entailment\tP\n", wantErr: "line 1: 2 tab-separated fields"},
		{name: "four fields", content: "neutral\tP\tH\n\nentailment\tP\tH\tX\n", wantErr: "line 3: 4 tab-separated fields"},
		{name: "unknown label", content: "-\tP\tH\n", wantErr: `line 1: label "-"`},
		{name: "empty", content: "\n\n", wantErr: "no rows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "x.tsv")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadNLIFile(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			pairs := Pairs(got)
			for i, p := range pairs {
				if p.Premise != got[i].Premise || p.Hypothesis != got[i].Hypothesis {
					t.Errorf("Pairs[%d] = %+v, want premise/hypothesis of %+v", i, p, got[i])
				}
			}
		})
	}
}

func TestNLIDataFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"b.tsv", "a.tsv", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("entailment\tP\tH\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := NLIDataFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a.tsv"), filepath.Join(dir, "b.tsv")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("NLIDataFiles = %v, want %v", got, want)
	}
	for _, d := range []string{t.TempDir(), filepath.Join(dir, "missing")} {
		if _, err := NLIDataFiles(d); err == nil {
			t.Errorf("NLIDataFiles(%s): no error for a directory without *.tsv", d)
		}
	}
}
