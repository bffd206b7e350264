package nlimodel

// posIndex maps a text's token hashes to their first position: an
// open-addressing table over the hashes themselves (they are FNV-1a
// hashes already, so their low bits index it), quicker than a Go map for
// the few lookups a pair makes of its premise. Position -1: absent.
type posIndex struct {
	keys []uint64
	pos  []int32
	mask uint64
	zero int32 // the position of the hash 0 (the empty slot's key), or -1
}

func newPosIndex(hs []uint64) posIndex {
	size := 8
	for size < 2*len(hs) {
		size *= 2
	}
	ix := posIndex{keys: make([]uint64, size), pos: make([]int32, size), mask: uint64(size - 1), zero: -1}
	for i, h := range hs {
		if h == 0 {
			if ix.zero < 0 {
				ix.zero = int32(i)
			}
			continue
		}
		for s := h & ix.mask; ; s = (s + 1) & ix.mask {
			if ix.keys[s] == h {
				break // an earlier position holds it
			}
			if ix.keys[s] == 0 {
				ix.keys[s], ix.pos[s] = h, int32(i)
				break
			}
		}
	}
	return ix
}

// get returns the first position of h, or -1.
func (ix *posIndex) get(h uint64) int {
	if h == 0 {
		return int(ix.zero)
	}
	for s := h & ix.mask; ; s = (s + 1) & ix.mask {
		switch ix.keys[s] {
		case h:
			return int(ix.pos[s])
		case 0:
			return -1
		}
	}
}
