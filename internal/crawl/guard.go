package crawl

import (
	"fmt"
	"net/netip"
	"syscall"
)

// BlockedAddressError is the cause of a ReasonBlockedAddress PermanentError:
// the SSRF guard refused to connect to a non-public IP address.
type BlockedAddressError struct {
	Addr string // the ip:port the dialer was about to connect to, or the literal host
}

// Error names the refused address.
func (e *BlockedAddressError) Error() string {
	return fmt.Sprintf("refusing to connect to non-public address %s", e.Addr)
}

// extraBlocked lists special-purpose ranges not covered by the netip.Addr
// predicates used in isPublicAddr.
var extraBlocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT shared space
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, incl. 255.255.255.255
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("100::/64"),       // discard-only
	netip.MustParsePrefix("fec0::/10"),      // deprecated site-local
}

// isPublicAddr reports whether ip is a globally routable unicast address the
// fetcher may connect to: not loopback, private, link-local, multicast,
// unspecified or one of the special-purpose ranges above.
func isPublicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsUnspecified() || ip.IsLoopback() || ip.IsPrivate() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() ||
		ip.IsMulticast() {
		return false
	}
	for _, p := range extraBlocked {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// guardControl is a net.Dialer.Control hook. It runs after DNS resolution,
// for every address actually dialled (including redirect targets and
// re-resolutions), so DNS rebinding cannot slip a private address through.
func guardControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &BlockedAddressError{Addr: address}
	}
	if !isPublicAddr(ap.Addr()) {
		return &BlockedAddressError{Addr: address}
	}
	return nil
}

// literalHostBlocked reports whether host is an IP literal outside the public
// address space; used to fail fast before any request is made.
func literalHostBlocked(host string) bool {
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	return !isPublicAddr(ip)
}
