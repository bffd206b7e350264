package api

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

// TestClientAddr: the connection's address, unless it is a trusted
// proxy; then the right-most X-Forwarded-For entry not a trusted proxy,
// never an entry the client wrote further left.
func TestClientAddr(t *testing.T) {
	t.Parallel()
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	cases := []struct {
		name, remote string
		forwarded    []string
		want         string
	}{
		{"direct", "203.0.113.7:5000", nil, "203.0.113.7"},
		{"direct, its own X-Forwarded-For ignored", "203.0.113.7:5000", []string{"198.51.100.1"}, "203.0.113.7"},
		{"through the proxy", "10.1.2.3:5000", []string{"203.0.113.7"}, "203.0.113.7"},
		{"client-written entries left of the proxy's", "10.1.2.3:5000", []string{"198.51.100.1, 203.0.113.7"}, "203.0.113.7"},
		{"two trusted hops", "10.1.2.3:5000", []string{"203.0.113.7, 10.9.9.9"}, "203.0.113.7"},
		{"header lines in order", "10.1.2.3:5000", []string{"198.51.100.1", "203.0.113.7"}, "203.0.113.7"},
		{"junk stops the walk", "10.1.2.3:5000", []string{"203.0.113.7, junk"}, "10.1.2.3"},
		{"IPv4 in IPv6", "[::ffff:203.0.113.7]:5000", nil, "203.0.113.7"},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/v1/tasks", nil)
		r.RemoteAddr = c.remote
		for _, f := range c.forwarded {
			r.Header.Add("X-Forwarded-For", f)
		}
		if got := clientAddr(r, trusted); got.String() != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	f := NewFailures(FailureLimits{Rate: 1, Burst: 1})
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "[2001:db8:1:2:3:4:5:6]:443"
	if got := f.key(r); got.String() != "2001:db8:1:2::/64" {
		t.Errorf("an IPv6 client's key: %s, want its /64", got)
	}
}
