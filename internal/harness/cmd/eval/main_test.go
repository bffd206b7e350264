package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/eval"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/harness/repodata"
)

func TestRunUsageErrors(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://127.0.0.1:1/none")
	tests := []struct {
		name string
		args []string
		want error
	}{
		{"unknown flag", []string{"-nope"}, errUsage},
		{"stray argument", []string{"extra"}, errUsage},
		{"bad log level", []string{"-log-level", "loud"}, errUsage},
		{"help", []string{"-h"}, flag.ErrHelp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, &out, &errOut)
			if !errors.Is(err, tt.want) {
				t.Fatalf("run(%v) = %v, want %v", tt.args, err, tt.want)
			}
			if out.Len() != 0 {
				t.Errorf("stdout not empty on a usage error: %q", out.String())
			}
			if errOut.Len() == 0 {
				t.Error("nothing on stderr for a usage error")
			}
		})
	}
}

func TestRunMissingData(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://127.0.0.1:1/none")
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"-claims", "", "-nli-data", t.TempDir()}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "no *.tsv files") {
		t.Fatalf("run with an empty NLI directory = %v, want an error naming the missing files", err)
	}
}

// TestRunJSON runs the command on 5 claims and 20 NLI rows per file in a
// scratch database on the test server and decodes its JSON summary.
func TestRunJSON(t *testing.T) {
	t.Parallel()
	claimsFile, nliDir := repodata.Path(t, repodata.ClimateFever...), repodata.Path(t, repodata.NLIReport...)
	pgtest.BaseURL(t) // run reads DATABASE_URL, the test server
	var out, errOut bytes.Buffer
	args := []string{"-claims", claimsFile, "-nli-data", nliDir, "-limit", "5", "-nli-limit", "20", "-json"}
	if err := run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, errOut.String())
	}
	var rep eval.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("stdout is not a JSON report: %v\n%s", err, out.String())
	}
	if !rep.DatabaseIsTemp {
		t.Error("the default run did not use a scratch database")
	}
	if len(rep.NLI) == 0 {
		t.Error("no NLI results")
	}
	for _, f := range rep.NLI {
		if f.Scores.N != 20 {
			t.Errorf("%s: N = %d, want 20", f.File, f.Scores.N)
		}
	}
	cf := rep.ClimateFever
	if cf == nil || cf.Claims != 5 || cf.ClaimScores.MatrixSum() != 5 {
		t.Fatalf("Climate-FEVER result %+v, want 5 claims in the verdict matrix", cf)
	}
	if cf.Judged > cf.GoldPairs || cf.PairScores.MatrixSum() != cf.Judged {
		t.Errorf("judged %d of %d gold pairs, pair matrix sum %d", cf.Judged, cf.GoldPairs, cf.PairScores.MatrixSum())
	}
}
