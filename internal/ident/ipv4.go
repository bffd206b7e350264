package ident

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// A host that ends in a number is an IPv4 address in the WHATWG URL
// Standard (§3.5, "ends in a number" and the IPv4 parser), as browsers read
// it: "2130706433", "0x7f000001", "127.1" and "0177.0.0.1" all name
// 127.0.0.1. Go's resolver would instead look such hosts up in DNS, so
// NormalizeURL turns them into the dotted quad they name (and the fetcher's
// guard sees the real address) or refuses them.

// endsInNumber reports whether the last label of host is a number: all
// decimal digits, or a 0x/0X hexadecimal number.
func endsInNumber(host string) bool {
	parts := strings.Split(host, ".")
	last := parts[len(parts)-1]
	if last == "" {
		if len(parts) == 1 {
			return false
		}
		last = parts[len(parts)-2]
	}
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, err := ipv4Part(last)
	return err == nil
}

// parseIPv4Number parses a host that ends in a number as the WHATWG IPv4
// parser does: one to four parts, each decimal, octal (leading 0) or
// hexadecimal (0x), the last filling the remaining bytes.
func parseIPv4Number(host string) (netip.Addr, error) {
	parts := strings.Split(host, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return netip.Addr{}, errors.New("more than four parts")
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, err := ipv4Part(p)
		if err != nil {
			return netip.Addr{}, fmt.Errorf("part %q: %w", p, err)
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, errors.New("a part above 255")
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, errors.New("the last part overflows the address")
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), nil
}

// ipv4Part parses one part: "" is refused, "0x" alone is 0.
func ipv4Part(p string) (uint64, error) {
	if p == "" {
		return 0, errors.New("empty")
	}
	base := 10
	switch {
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, nil
		}
	case len(p) >= 2 && p[0] == '0':
		p, base = p[1:], 8
	}
	if strings.ContainsAny(p, "+-_") {
		return 0, errors.New("not a number")
	}
	n, err := strconv.ParseUint(p, base, 64)
	if err != nil {
		return 0, errors.New("not a number")
	}
	return n, nil
}
