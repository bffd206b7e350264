package nlimodel

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"slices"
	"strings"
)

// TrainingExample is a labelled pair with the file it came from and the
// file's fourth column, if any (FEVER: gold_evidence or
// nei_same_subject_evidence).
type TrainingExample struct {
	Example
	Source string
	Meta   string
}

// ReadTSV reads label<TAB>premise<TAB>hypothesis[<TAB>meta] lines from a
// gzipped file; labels are entailment, neutral or contradiction.
func ReadTSV(path string) ([]TrainingExample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("nlimodel: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("nlimodel: %s: %w", path, err)
	}
	return readTSV(zr, path)
}

func readTSV(r io.Reader, name string) ([]TrainingExample, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var out []TrainingExample
	for line := 1; sc.Scan(); line++ {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 3 {
			return nil, fmt.Errorf("nlimodel: %s line %d: %d fields, want 3 or 4", name, line, len(f))
		}
		k := slices.Index(Labels[:], f[0])
		if k < 0 {
			return nil, fmt.Errorf("nlimodel: %s line %d: label %q", name, line, f[0])
		}
		e := TrainingExample{Example: Example{f[1], f[2], k}, Source: name}
		if len(f) > 3 {
			e.Meta = f[3]
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("nlimodel: %s: %w", name, err)
	}
	return out, nil
}

// pairHash is the FNV-1a hash of a pair's texts.
func pairHash(e Example) uint64 {
	h := fnv.New64a()
	h.Write([]byte(e.Premise))
	h.Write([]byte{0})
	h.Write([]byte(e.Hypothesis))
	return h.Sum64()
}

// Split orders the examples by the hash of their texts (mixing the
// sources) and puts one in valEvery in the validation part, by the same
// hash: the split depends on nothing but the pairs.
func Split(all []TrainingExample, valEvery uint64) (train, val []TrainingExample) {
	sorted := slices.Clone(all)
	slices.SortStableFunc(sorted, func(a, b TrainingExample) int {
		ha, hb := pairHash(a.Example), pairHash(b.Example)
		switch {
		case ha < hb:
			return -1
		case ha > hb:
			return 1
		}
		return 0
	})
	for _, e := range sorted {
		if pairHash(e.Example)%valEvery == 0 {
			val = append(val, e)
		} else {
			train = append(train, e)
		}
	}
	return train, val
}

// Accuracy is the share of examples whose most probable class is their
// label.
func (m *Model) Accuracy(ex []TrainingExample) float64 {
	if len(ex) == 0 {
		return 0
	}
	ok := 0
	for _, e := range ex {
		if best, _ := Top(m.Scores(e.Premise, e.Hypothesis)); best == e.Label {
			ok++
		}
	}
	return float64(ok) / float64(len(ex))
}
