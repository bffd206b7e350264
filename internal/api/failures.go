package api

import (
	"math"
	"net/http"
	"net/netip"
	"strings"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"
)

// FailureLimits bound the refused tokens of each client address: every
// request whose bearer token is refused (malformed, unknown, revoked or
// expired) takes one from its address's bucket, and an address with an
// empty bucket is answered 429 before its token is looked at, so that a
// flood of bad tokens costs neither the database nor anyone else's
// requests. A good token from a refused address waits as well: it shares
// the address.
type FailureLimits struct {
	// Rate is the refused tokens per second an address may send,
	// sustained; 0 turns the limit off.
	Rate float64
	// Burst is how many it may send at once.
	Burst int
	// TrustedProxies are the proxies in front of the API (an ingress
	// controller): a request from one is the address its X-Forwarded-For
	// names, the right-most entry not itself a trusted proxy.
	TrustedProxies []netip.Prefix
}

// maxFailureAddrs bounds the addresses whose refusals are remembered; past
// it the least recently refused is forgotten (its bucket full again, as
// it would be after Burst/Rate seconds).
const maxFailureAddrs = 10000

// Failures keeps a token bucket of refusals per client address: one is
// shared by every surface of the process that takes tokens (/v1, /mcp,
// River UI's and the console's logins).
type Failures struct {
	limits FailureLimits
	by     *lru.Cache[netip.Prefix, *rate.Limiter]
}

// NewFailures is nil (no limit) when l.Rate is 0; a nil Failures refuses
// nothing.
func NewFailures(l FailureLimits) *Failures {
	if l.Rate <= 0 {
		return nil
	}
	l.Burst = max(l.Burst, 1)
	by, err := lru.New[netip.Prefix, *rate.Limiter](maxFailureAddrs)
	if err != nil {
		panic(err) // only for a size ≤ 0
	}
	return &Failures{limits: l, by: by}
}

// Refused reports whether r's address has used up its refusals, and how
// long until it has one again. It takes nothing.
func (f *Failures) Refused(r *http.Request) (time.Duration, bool) {
	if f == nil {
		return 0, false
	}
	lim, ok := f.by.Get(f.key(r))
	if !ok {
		return 0, false
	}
	tokens := lim.Tokens()
	if tokens >= 1 {
		return 0, false
	}
	wait := time.Duration(math.Ceil((1 - tokens) / f.limits.Rate * float64(time.Second)))
	return max(wait, time.Millisecond), true
}

// Failed takes one refusal of r's address.
func (f *Failures) Failed(r *http.Request) {
	if f == nil {
		return
	}
	key := f.key(r)
	lim, ok := f.by.Get(key)
	if !ok {
		fresh := rate.NewLimiter(rate.Limit(f.limits.Rate), f.limits.Burst)
		if prev, found, _ := f.by.PeekOrAdd(key, fresh); found {
			lim = prev
		} else {
			lim = fresh
		}
	}
	lim.Allow()
}

// key is the client address of r as a bucket's key: an IPv4 address, or
// the /64 of an IPv6 one (one host's usual share, which it could
// otherwise walk through).
func (f *Failures) key(r *http.Request) netip.Prefix {
	a := clientAddr(r, f.limits.TrustedProxies)
	bits := a.BitLen()
	if a.Is6() {
		bits = 64
	}
	p, err := a.Prefix(bits)
	if err != nil { // an invalid address (no RemoteAddr): one key for all of them
		return netip.Prefix{}
	}
	return p
}

// clientAddr is the address r came from: its connection's, or, when that
// is a trusted proxy, the right-most address of X-Forwarded-For that is
// not one (entries further left are the client's to write, so are not
// believed).
func clientAddr(r *http.Request, trusted []netip.Prefix) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	addr := ap.Addr().Unmap()
	if !isTrusted(addr, trusted) {
		return addr
	}
	hops := r.Header.Values("X-Forwarded-For")
	for i := len(hops) - 1; i >= 0; i-- {
		entries := strings.Split(hops[i], ",")
		for j := len(entries) - 1; j >= 0; j-- {
			a, err := netip.ParseAddr(strings.TrimSpace(entries[j]))
			if err != nil {
				return addr // not an address: the last one believed
			}
			addr = a.Unmap()
			if !isTrusted(addr, trusted) {
				return addr
			}
		}
	}
	return addr
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
