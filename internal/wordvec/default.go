package wordvec

import (
	"bytes"
	_ "embed"
	"sync"
)

// gloveFile is GloVe 6B 100d's 40,000 most frequent lower-case words
// (ATTRIBUTION.md; written by internal/harness/cmd/glovesubset).
//
//go:embed glove-6b-100d.bin.gz
var gloveFile []byte

// Default returns the embedded GloVe vectors, decoded once per process
// (about 7 MB in memory).
var Default = sync.OnceValues(func() (*Vectors, error) {
	return ReadVectors(bytes.NewReader(gloveFile))
})
