package ident

import (
	"strings"
	"testing"
)

func TestNormalizeURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    string
		wantErr string // substring of the error; "" means success
	}{
		{in: "HTTP://Example.COM", want: "http://example.com/"},
		{in: "https://example.com:443/a", want: "https://example.com/a"},
		{in: "http://example.com:80/a", want: "http://example.com/a"},
		{in: "http://example.com:8080/a", want: "http://example.com:8080/a"},
		{in: "https://example.com:80/a", want: "https://example.com:80/a"},
		{in: "http://example.com:/a", want: "http://example.com/a"},
		{in: "https://example.com/a#section-2", want: "https://example.com/a"},
		{in: "https://example.com?b=2&a=1", want: "https://example.com/?a=1&b=2"},
		{in: "https://example.com/p?z=1&a=2&a=1", want: "https://example.com/p?a=2&a=1&z=1"},
		{in: "https://example.com/p?utm_source=x&id=7&UTM_Medium=y&fbclid=abc&gclid=def", want: "https://example.com/p?id=7"},
		{in: "https://example.com/p?utm_campaign=only", want: "https://example.com/p"},
		{in: "https://example.com/p?flag&x=", want: "https://example.com/p?flag&x="},
		{in: "https://en.wikipedia.org/wiki/Caf%c3%a9", want: "https://en.wikipedia.org/wiki/Caf%C3%A9"},
		{in: "https://en.wikipedia.org/wiki/Café", want: "https://en.wikipedia.org/wiki/Caf%C3%A9"},
		{in: "https://en.wikipedia.org/wiki/Mercury_(planet)", want: "https://en.wikipedia.org/wiki/Mercury_(planet)"},
		{in: "https://en.wikipedia.org/wiki/Earth%27s_energy_budget", want: "https://en.wikipedia.org/wiki/Earth%27s_energy_budget"},
		{in: "https://example.com/%7Euser/a%2Fb", want: "https://example.com/~user/a%2Fb"},
		{in: "https://example.com/a b", want: "https://example.com/a%20b"},
		{in: "  https://example.com/x  ", want: "https://example.com/x"},
		{in: "https://example.com./x", want: "https://example.com/x"},
		{in: "https://Bücher.example/x", want: "https://xn--bcher-kva.example/x"},
		{in: "http://[::1]:8080/", want: "http://[::1]:8080/"},
		{in: "http://[2001:DB8::1]/", want: "http://[2001:db8::1]/"},
		{in: "http://127.0.0.1:80/", want: "http://127.0.0.1/"},
		// Hosts ending in a number are IPv4 addresses, as browsers read them (WHATWG URL §3.5).
		{in: "http://2130706433/", want: "http://127.0.0.1/"},
		{in: "http://0x7f000001/x", want: "http://127.0.0.1/x"},
		{in: "http://0X7F.1/", want: "http://127.0.0.1/"},
		{in: "http://127.1/", want: "http://127.0.0.1/"},
		{in: "http://0177.0.0.1/", want: "http://127.0.0.1/"},
		{in: "http://10.0.258/", want: "http://10.0.1.2/"},
		{in: "http://134744072./", want: "http://8.8.8.8/"},
		{in: "http://0x/", want: "http://0.0.0.0/"},
		{in: "http://example.123/", wantErr: "ends in a number"},
		{in: "http://1.2.3.4.5/", wantErr: "more than four parts"},
		{in: "http://256.1.1.1/", wantErr: "above 255"},
		{in: "http://1.2.65536/", wantErr: "overflows"},
		{in: "http://4294967296/", wantErr: "overflows"},
		{in: "http://09.1.1.1/", wantErr: "not a number"},
		{in: "http://example.0x1g/", want: "http://example.0x1g/"},
		{in: "http://1e3.example/", want: "http://1e3.example/"},
		{in: "https://example.com/q?q=a+b&r=%2f", want: "https://example.com/q?q=a+b&r=%2F"},
		{in: "", wantErr: "empty URL"},
		{in: "example.com/page", wantErr: "missing scheme"},
		{in: "ftp://example.com/file", wantErr: "unsupported scheme"},
		{in: "javascript:alert(1)", wantErr: "unsupported scheme"},
		{in: "mailto:a@example.com", wantErr: "unsupported scheme"},
		{in: "https://user:pw@example.com/", wantErr: "userinfo"},
		{in: "https://user@example.com/", wantErr: "userinfo"},
		{in: "https:///path", wantErr: "missing host"},
		{in: "http:example.com", wantErr: "not a hierarchical URL"},
		{in: "https://exa mple.com/", wantErr: "invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := NormalizeURL(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("NormalizeURL(%q) = %q, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("NormalizeURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			again, err := NormalizeURL(got)
			if err != nil || again != got {
				t.Fatalf("not idempotent: NormalizeURL(%q) = %q, %v", got, again, err)
			}
		})
	}
}

func TestDomain(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"https://www.example.com/a":         "example.com",
		"https://Example.com:8443/a":        "example.com",
		"https://en.wikipedia.org/wiki/X":   "en.wikipedia.org",
		"https://www.semanticscholar.org/p": "semanticscholar.org",
		"http://127.0.0.1:5000/":            "127.0.0.1",
		"not a url at all":                  "",
	}
	for in, want := range tests {
		if got := Domain(in); got != want {
			t.Errorf("Domain(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSite(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]string{
		"a.evil.com": "evil.com", "b.evil.com": "evil.com", "evil.com": "evil.com", "WWW.Evil.COM.": "evil.com",
		"news.bbc.co.uk": "bbc.co.uk", "evil.co.uk": "evil.co.uk", "en.wikipedia.org": "wikipedia.org",
		"user.github.io": "user.github.io", "127.0.0.1": "127.0.0.1", "::1": "::1", "co.uk": "co.uk", "": "",
	} {
		if got := Site(host); got != want {
			t.Errorf("Site(%q) = %q, want %q", host, got, want)
		}
	}
}
