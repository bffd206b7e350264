//go:build !race

package hostiletest

const builtWithRace = false
