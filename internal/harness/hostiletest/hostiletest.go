// Package hostiletest is what the tests of hostile input share: the
// allocation a call makes, and HTTP answers padded to any size without
// holding them in memory.
package hostiletest

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"
)

// AllocatedBy returns the bytes the process allocated while fn ran, a
// strict upper bound of the heap fn grew by (a fake server's writes
// included), and how long fn took. A test that uses it must not run in
// parallel with others of its package, which would allocate meanwhile.
func AllocatedBy(fn func()) (uint64, time.Duration) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	fn()
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, took
}

// Allocated is AllocatedBy without the time.
func Allocated(fn func()) uint64 {
	n, _ := AllocatedBy(fn)
	return n
}

// PeakHeap returns the highest heap seen above the heap before fn,
// sampled every millisecond while fn runs, with the collector running at
// every 5% of growth so that the heap is about what is live (the worker
// runs under GOMEMLIMIT, which keeps it so near the limit). A sample can
// miss a short peak; a parse tree lives for most of an extraction. A test
// that uses it must not run in parallel with others of its package.
func PeakHeap(fn func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	var base runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > base.HeapAlloc && m.HeapAlloc-base.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc - base.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	fn()
	close(done)
	<-stopped
	return peak.Load()
}

// MiB renders n bytes in MiB.
func MiB(n uint64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// WritePadded writes a 200 JSON answer of prefix, filler repeated until the
// body holds size bytes, and suffix, from one preallocated block; it stops
// when the client goes away.
func WritePadded(w http.ResponseWriter, prefix, filler, suffix string, size int) {
	w.Header().Set("Content-Type", "application/json")
	block := bytes.Repeat([]byte(filler), max((64<<10)/len(filler), 1))
	if _, err := w.Write([]byte(prefix)); err != nil {
		return
	}
	for left := size - len(prefix) - len(suffix); left > 0; left -= len(block) {
		if _, err := w.Write(block[:min(left, len(block))]); err != nil {
			return
		}
	}
	_, _ = w.Write([]byte(suffix))
}

// PaddedServer answers every request with WritePadded; it is closed when
// the test ends.
func PaddedServer(t testing.TB, prefix, filler, suffix string, size int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		WritePadded(w, prefix, filler, suffix, size)
	}))
	t.Cleanup(srv.Close)
	return srv
}
