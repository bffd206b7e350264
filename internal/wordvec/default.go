package wordvec

import (
	_ "embed"
	"sync"
)

// gloveFile is GloVe 6B 100d's 40,000 most frequent lower-case words
// (ATTRIBUTION.md; written by internal/harness/cmd/glovesubset).
//
// It is stored uncompressed: gzip saves a sixth of its 4.3 MB and would
// cost every process start about 90 ms.
//
//go:embed glove-6b-100d.bin
var gloveFile []byte

// Default returns the embedded GloVe vectors, decoded once per process
// (about 7 MB in memory).
var Default = sync.OnceValues(func() (*Vectors, error) {
	return DecodeVectors(gloveFile)
})
