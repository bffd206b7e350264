package httpx

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// BaseURL validates a backend base URL (http or https, with a host, no query
// or fragment) and returns it without trailing slashes.
func BaseURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("base URL %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("base URL %q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return "", fmt.Errorf("base URL %q: no host", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("base URL %q: must not have a query or fragment", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// Bearer returns a header with "Authorization: Bearer key", or nil for an
// empty key.
func Bearer(key string) http.Header {
	if key == "" {
		return nil
	}
	return http.Header{"Authorization": {"Bearer " + key}}
}

// safeRedirectHeaders are the request headers a redirect to another host
// keeps; every other one (an API key in X-Api-Key, Authorization, cookies)
// stays with the host it was meant for. Go drops Authorization and cookies
// itself, but not a custom key header.
var safeRedirectHeaders = []string{"Accept", "Accept-Encoding", "Accept-Language", "Content-Type", "User-Agent"}

// keepCredentialsOnHost follows at most 10 redirects, stripping the request's
// credentials when one leaves the original scheme and host.
func keepCredentialsOnHost(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	first := via[0].URL
	if req.URL.Scheme == first.Scheme && strings.EqualFold(req.URL.Host, first.Host) {
		return nil
	}
	kept := make(http.Header, len(safeRedirectHeaders))
	for _, k := range safeRedirectHeaders {
		if v := req.Header.Values(k); len(v) > 0 {
			kept[k] = v
		}
	}
	req.Header = kept
	return nil
}
