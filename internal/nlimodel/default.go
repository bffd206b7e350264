package nlimodel

import (
	_ "embed"
	"sync"
)

// weights is the trained model (`make train-nli` writes it).
//
//go:embed weights.bin
var weights []byte

// Default returns the trained model, decoded once.
var Default = sync.OnceValues(func() (*Model, error) { return Decode(weights) })
