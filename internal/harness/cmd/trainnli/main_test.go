package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/nlimodel"
)

func writeGz(t *testing.T, path, text string) {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRunWritesTheSameWeightsTwice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var rows strings.Builder
	for _, r := range []string{
		"entailment\tA man plays a guitar.\tA man plays.",
		"contradiction\tA man plays a guitar.\tNobody plays.",
		"neutral\tA man plays a guitar.\tA man plays a song he wrote.",
		"entailment\tTwo dogs run in the snow.\tDogs run.\tgold_evidence",
		"contradiction\tTwo dogs run in the snow.\tThe dogs sleep.",
	} {
		rows.WriteString(r + "\n")
	}
	writeGz(t, filepath.Join(dir, "toy.tsv.gz"), strings.Repeat(rows.String(), 8))
	var outs [2][]byte
	for i := range outs {
		out := filepath.Join(t.TempDir(), "w.bin")
		var log bytes.Buffer
		if err := run([]string{"-data", dir, "-out", out, "-epochs", "2"}, &log, io.Discard); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(log.String(), "validation toy.tsv.gz") {
			t.Errorf("log lacks the validation line:\n%s", log.String())
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := nlimodel.Decode(b); err != nil {
			t.Fatal(err)
		}
		outs[i] = b
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("two trainings on the same data wrote different weights")
	}
}

func TestRunRejectsBadRows(t *testing.T) {
	t.Parallel()
	for name, row := range map[string]string{
		"unknown label": "maybe\tA man plays.\tA man plays.\n",
		"two fields":    "entailment\tA man plays.\n",
	} {
		dir := t.TempDir()
		writeGz(t, filepath.Join(dir, "bad.tsv.gz"), row)
		err := run([]string{"-data", dir, "-out", filepath.Join(dir, "w.bin")}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "bad.tsv.gz line 1") {
			t.Errorf("%s: err = %v, want one naming the file and line", name, err)
		}
	}
	if err := run([]string{"-data", t.TempDir()}, io.Discard, io.Discard); err == nil {
		t.Error("an empty data directory trained")
	}
}
