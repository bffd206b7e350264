package crawl

import (
	"fmt"
	"net/netip"
	"syscall"

	"code.dny.dev/ssrf"
)

// BlockedAddressError is the cause of a ReasonBlockedAddress PermanentError:
// the SSRF guard refused to connect to a non-public IP address.
type BlockedAddressError struct {
	Addr string // the ip:port the dialer was about to connect to, or the literal host
	Err  error  // the guard's reason, may be nil
}

// Error names the refused address and why.
func (e *BlockedAddressError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("refusing to connect to non-public address %s: %v", e.Addr, e.Err)
	}
	return fmt.Sprintf("refusing to connect to non-public address %s", e.Addr)
}

// Unwrap returns the guard's reason.
func (e *BlockedAddressError) Unwrap() error { return e.Err }

// guardian refuses every address outside the public unicast space: the IANA
// special-purpose registries for IPv4 and IPv6 (loopback, private, link-local,
// CGNAT, documentation, benchmarking, 6to4, Teredo, …) and all IPv6 outside
// 2000::/3 (so NAT64 64:ff9b::/96, IPv4-compatible ::/96 and IPv4-mapped
// addresses too). Any port is allowed; only TCP is dialled.
var guardian = ssrf.New(ssrf.WithAnyPort())

// guardControl is a net.Dialer.Control hook. It runs after DNS resolution,
// for every address actually dialled (including redirect targets and
// re-resolutions), so DNS rebinding cannot slip a private address through.
func guardControl(network, address string, c syscall.RawConn) error {
	if err := guardian.Safe(network, address, c); err != nil {
		return &BlockedAddressError{Addr: address, Err: err}
	}
	return nil
}

// literalHostBlocked returns the guard's refusal of host when it is an IP
// literal outside the public address space, to fail before any request.
// (ident.NormalizeURL has already turned numeric hosts such as 2130706433
// or 127.1 into the dotted quad they name.)
func literalHostBlocked(host string) error {
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return nil
	}
	if err := guardian.SafeAddr(ip); err != nil {
		return &BlockedAddressError{Addr: host, Err: err}
	}
	return nil
}
