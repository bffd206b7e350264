package crawl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/gocolly/colly/v2"
	"golang.org/x/net/html/charset"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/ident"
	"github.com/evidencefleet/evidencefleet/internal/textclip"
	"github.com/evidencefleet/evidencefleet/internal/warc"
)

// Defaults applied by New to zero fields of Config.
const (
	DefaultUserAgent          = "evidencefleet/0.1 (+https://github.com/evidencefleet/evidencefleet)"
	DefaultTimeout            = 20 * time.Second
	DefaultMaxBodyBytes int64 = 5 << 20
	DefaultMaxRedirects       = 5
	DefaultDomainDelay        = time.Second
)

// RobotsTTL is how long a Fetcher keeps a robots.txt it read: the pages it
// fetches meanwhile were fetched under that capture.
const RobotsTTL = 24 * time.Hour

const (
	robotsMaxBytes = 512 << 10 // like Google: robots.txt content beyond 500 KiB is ignored
	acceptHeader   = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1"
)

// Config configures a Fetcher. Zero fields take the defaults noted; start
// from DefaultConfig to get RespectRobots=true (a bool cannot default to true).
type Config struct {
	UserAgent    string // default DefaultUserAgent
	MaxBodyBytes int64  // default 5 MiB; a larger body is a permanent error
	MaxRedirects int    // default 5; negative: follow none (any redirect is a permanent error)
	// Timeout is the deadline of one Fetch as a whole: connection set-up,
	// every redirect hop, the robots.txt of every origin on the way and the
	// body. Default 20s. Politeness waits (DomainDelay) are not counted.
	// Every followed URL is capped at ident.MaxURLBytes, as targets are.
	Timeout time.Duration
	// DomainDelay is the minimum spacing between the starts of two requests to
	// one domain (see Domain), across all concurrent Fetch calls of the
	// Fetcher: robots.txt and redirect hops included, a floor per process
	// under the fleet-wide politeness of target_queue. Default 1s, or 0 when
	// ReplayDir is set; negative disables it.
	DomainDelay   time.Duration
	RespectRobots bool   // obey robots.txt (cached per origin for 24h); DefaultConfig sets it
	ReplayDir     string // when set, answer only from this replay archive; never touch the network
	// AllowPrivate turns the SSRF guard off. By default every dialled address
	// (after DNS resolution, so redirects and DNS rebinding are covered) must
	// be public: loopback, private, link-local, multicast, unspecified and
	// other special-purpose ranges are refused with a permanent error.
	AllowPrivate bool

	dialExempt string // tests only: one "ip:port" the guard lets through (a string keeps Config comparable)
}

// DefaultConfig returns the documented defaults, with RespectRobots on.
// DomainDelay is left 0 so that New picks 1s for the network and 0 for a
// replay archive.
func DefaultConfig() Config {
	return Config{
		UserAgent:     DefaultUserAgent,
		Timeout:       DefaultTimeout,
		MaxBodyBytes:  DefaultMaxBodyBytes,
		MaxRedirects:  DefaultMaxRedirects,
		RespectRobots: true,
	}
}

func (c Config) withDefaults() Config {
	if c.UserAgent == "" {
		c.UserAgent = DefaultUserAgent
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	switch {
	case c.MaxRedirects == 0:
		c.MaxRedirects = DefaultMaxRedirects
	case c.MaxRedirects < 0:
		c.MaxRedirects = 0
	}
	switch {
	case c.DomainDelay == 0 && c.ReplayDir == "":
		c.DomainDelay = DefaultDomainDelay
	case c.DomainDelay < 0:
		c.DomainDelay = 0
	}
	return c
}

// Result is a successfully fetched page.
type Result struct {
	URL         string    // normalised requested URL
	FinalURL    string    // URL after redirects (normalised when possible)
	Status      int       // final HTTP status (2xx)
	ContentType string    // media type without parameters, e.g. "text/html"
	Body        []byte    // body converted to valid UTF-8
	FetchedAt   time.Time // UTC time the response was received
	// Capture is the response as received (RecordedHeader's headers, the
	// body before its conversion to UTF-8), for the page's WARC record.
	Capture warc.Capture
	// Redirects are the redirects followed to FinalURL, in order.
	Redirects []Redirect
}

// Redirect is one redirect followed: the URL that answered with it and
// its status (301, 302, 303, 307 or 308).
type Redirect struct {
	From   string
	Status int
}

// Moved reports whether the page moved for good: one of its redirects is
// permanent (301 or 308).
func (r *Result) Moved() bool {
	for _, h := range r.Redirects {
		if h.Status == http.StatusMovedPermanently || h.Status == http.StatusPermanentRedirect {
			return true
		}
	}
	return false
}

// Fetcher fetches single pages with colly. One Fetcher per process is meant
// to be shared by all goroutines: it owns the connection pool, the
// per-domain politeness limiter and the robots.txt cache.
type Fetcher struct {
	cfg    Config
	rt     http.RoundTripper // limiter + bounded decoding, over base
	live   *http.Transport   // nil in replay mode
	replay *ReplayTransport  // nil in live mode
	robots *robotsCache
}

// New builds a Fetcher. In replay mode (cfg.ReplayDir set) it loads the
// archive's manifest and fails if it is missing or malformed.
func New(cfg Config) (*Fetcher, error) {
	cfg = cfg.withDefaults()
	f := &Fetcher{cfg: cfg, robots: newRobotsCache()}
	var base http.RoundTripper
	if cfg.ReplayDir != "" {
		rt, err := NewReplayTransport(cfg.ReplayDir)
		if err != nil {
			return nil, err
		}
		f.replay = rt
		base = rt
	} else {
		f.live = newLiveTransport(cfg)
		base = f.live
	}
	f.rt = &exchangeTransport{base: base, limiter: newDomainLimiter(cfg.DomainDelay)}
	return f, nil
}

// Replay reports whether the Fetcher serves from a replay archive.
func (f *Fetcher) Replay() bool { return f.replay != nil }

// Close releases idle network connections. The Fetcher stays usable.
func (f *Fetcher) Close() {
	if f.live != nil {
		f.live.CloseIdleConnections()
	}
}

func newLiveTransport(cfg Config) *http.Transport {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !cfg.AllowPrivate {
		exempt := cfg.dialExempt
		d.Control = func(network, address string, c syscall.RawConn) error {
			if exempt != "" && address == exempt {
				return nil
			}
			return guardControl(network, address, c)
		}
	}
	return &http.Transport{
		Proxy:                  nil, // a proxy would hide the real destination from the SSRF guard
		DialContext:            d.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 1 << 20,
		// Never ask for or decode a compression behind our back: the
		// fetcher asks for gzip itself and decodes it under its limits
		// (decodeBody); a transport-decoded robots.txt would be cut
		// instead of failing as the bomb it is.
		DisableCompression: true,
	}
}

// Fetch fetches one http(s) URL and returns the page, or a *PermanentError
// (do not retry) or *TransientError (retry, honouring RetryAfter). Safe for
// concurrent use. Config.Timeout bounds the fetch as a whole, politeness
// waits excepted (see fetchClock); ctx bounds the whole call, those included.
// Every page request, live or replayed, counts as a fetch with the bytes of
// body it received in the job's cost meter (cost.From); robots.txt does not.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (*Result, error) {
	norm, u, err := f.target(rawURL)
	if err != nil {
		return nil, err
	}
	ctx, release := startClock(ctx, f.cfg.Timeout, norm)
	defer release()
	if f.cfg.RespectRobots {
		if err := f.checkRobots(ctx, u); err != nil {
			return nil, classifyErr(ctx, norm, err)
		}
	}
	pctx := context.WithValue(ctx, bodyLimitKey{}, bodyLimit{max: f.cfg.MaxBodyBytes})
	ex, err := f.exchange(pctx, norm, true)
	cost.From(ctx).Fetch(len(ex.body)) // a replayed fetch stands for a real one
	if ex.abortErr != nil {
		return nil, ex.abortErr
	}
	if err != nil {
		return nil, classifyErr(ctx, norm, err)
	}
	if ex.status == 0 {
		return nil, &TransientError{Reason: ReasonNetwork, Err: fmt.Errorf("%s: no response", norm)}
	}
	if int64(len(ex.body)) > f.cfg.MaxBodyBytes {
		return nil, bodyTooLarge(ex.finalURL, f.cfg.MaxBodyBytes)
	}
	ctHeader := ex.header.Get("Content-Type")
	mt := mediaType(ctHeader)
	if mt == "" {
		mt = mediaType(http.DetectContentType(ex.body))
	}
	if !acceptedType(mt) {
		return nil, unsupportedType(ex.finalURL, mt)
	}
	final := ex.finalURL
	if n, err := ident.NormalizeURL(final); err == nil {
		final = n
	}
	return &Result{
		URL:         norm,
		FinalURL:    final,
		Status:      ex.status,
		ContentType: mt,
		Body:        toUTF8(ex.body, ctHeader),
		FetchedAt:   ex.at,
		Capture: warc.Capture{URL: final, Date: ex.at, Status: ex.status, Header: warc.RecordedHeader(ex.header), Body: ex.body,
			Request: warc.RecordedRequest(ex.request)},
		Redirects: ex.redirects,
	}, nil
}

// target normalises and parses a URL to fetch, or returns the
// *PermanentError that refuses it (invalid, too long, a blocked address).
func (f *Fetcher) target(rawURL string) (string, *url.URL, error) {
	norm, err := ident.NormalizeURL(rawURL)
	if err != nil {
		return "", nil, &PermanentError{Reason: ReasonInvalidURL, Err: err}
	}
	if len(norm) > ident.MaxURLBytes {
		return "", nil, permanent(ReasonInvalidURL, "URL of %d bytes (%s) is longer than %d bytes", len(norm), clip(norm), ident.MaxURLBytes)
	}
	u, err := url.Parse(norm)
	if err != nil {
		return "", nil, &PermanentError{Reason: ReasonInvalidURL, Err: err}
	}
	if err := f.blockedLiteral(u); err != nil {
		return "", nil, &PermanentError{Reason: ReasonBlockedAddress, Err: err}
	}
	return norm, u, nil
}

// blockedLiteral is the guard's refusal of u's host when it is a non-public
// IP literal (live fetching with the guard on), else nil.
func (f *Fetcher) blockedLiteral(u *url.URL) error {
	if f.replay != nil || f.cfg.AllowPrivate {
		return nil
	}
	return literalHostBlocked(u.Hostname())
}

// exchangeResult is what one colly visit observed.
type exchangeResult struct {
	status    int
	header    http.Header
	finalURL  string
	body      []byte
	at        time.Time
	request   http.Header // the headers of the request answered (the last, after redirects)
	abortErr  error       // classification decided from the headers (status, type, length)
	redirects []Redirect  // followed, in order
}

// exchange performs one GET through a fresh colly Collector that shares the
// Fetcher's transport. page selects the page policy (content-type, size and
// status checks on headers, robots.txt on redirect targets) instead of the
// robots.txt policy.
func (f *Fetcher) exchange(ctx context.Context, target string, page bool) (*exchangeResult, error) {
	ex := &exchangeResult{}
	c := colly.NewCollector()
	// Pin every setting that COLLY_* environment variables could have changed.
	c.UserAgent = f.cfg.UserAgent
	// Accept-Encoding is ours, not the transport's, so that every body is
	// decoded by decodeBody under its limit (see newLiveTransport).
	c.Headers = &http.Header{"Accept": {acceptHeader}, "Accept-Encoding": {"gzip"}}
	c.IgnoreRobotsTxt = true // robots.txt is handled by checkRobots (shared cache, ctx-aware)
	c.AllowURLRevisit = true
	c.ParseHTTPErrorResponse = true
	c.DetectCharset = false
	c.CacheDir = ""
	c.MaxDepth = 0
	c.MaxRequests = 0
	c.Async = false
	c.CheckHead = false
	c.AllowedDomains, c.DisallowedDomains = nil, nil
	c.URLFilters, c.DisallowedURLFilters = nil, nil
	c.Context = ctx
	c.WithTransport(f.rt)
	c.SetRequestTimeout(0) // the fetch's deadline is ctx's (fetchClock)
	policy := f.redirectPolicy(page)
	c.SetRedirectHandler(func(req *http.Request, via []*http.Request) error {
		if err := policy(req, via); err != nil {
			return err
		}
		if req.Response != nil { // the redirect that made req
			ex.redirects = append(ex.redirects, Redirect{From: via[len(via)-1].URL.String(), Status: req.Response.StatusCode})
		}
		return nil
	})
	if page {
		c.MaxBodySize = int(f.cfg.MaxBodyBytes + 1)
	} else {
		c.MaxBodySize = robotsMaxBytes + 1 // the cut (or a bomb's error) is exchangeBody's
	}

	c.OnResponseHeaders(func(r *colly.Response) {
		ex.status = r.StatusCode
		ex.header = r.Headers.Clone()
		ex.finalURL = r.Request.URL.String()
		ex.at = time.Now().UTC()
		if r.Request.Headers != nil {
			ex.request = r.Request.Headers.Clone()
		}
		if r.StatusCode < 200 || r.StatusCode > 299 {
			if page {
				ex.abortErr = classifyStatus(ex.finalURL, r.StatusCode, ex.header, time.Now())
			}
			r.Request.Abort() // error bodies are not needed
			return
		}
		if !page {
			return
		}
		if mt := mediaType(ex.header.Get("Content-Type")); mt != "" && !acceptedType(mt) {
			ex.abortErr = unsupportedType(ex.finalURL, mt)
			r.Request.Abort()
			return
		}
		if cl := r.Headers.Get("Content-Length"); cl != "" {
			if n, err := strconv.ParseInt(cl, 10, 64); err == nil && n > f.cfg.MaxBodyBytes {
				ex.abortErr = bodyTooLarge(ex.finalURL, f.cfg.MaxBodyBytes)
				r.Request.Abort()
			}
		}
	})
	c.OnResponse(func(r *colly.Response) {
		ex.body = r.Body
	})
	err := c.Visit(target)
	if err != nil && errors.Is(err, colly.ErrAbortedAfterHeaders) && ex.status != 0 {
		err = nil // we aborted on purpose; ex says why
	}
	return ex, err
}

// redirectPolicy decides on every redirect hop; colly installs it as the
// http.Client CheckRedirect.
func (f *Fetcher) redirectPolicy(page bool) func(req *http.Request, via []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		next, size := followedURL(req.URL)
		if size > ident.MaxURLBytes {
			return permanent(ReasonRedirectURLTooLong, "%s: redirect to a URL of %d bytes (%s), longer than %d bytes",
				via[len(via)-1].URL, size, clip(next), ident.MaxURLBytes)
		}
		if len(via) > f.cfg.MaxRedirects {
			return &PermanentError{Reason: ReasonTooManyRedirects,
				Err: fmt.Errorf("%s: more than %d redirects (next: %s)", via[0].URL, f.cfg.MaxRedirects, req.URL)}
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return &PermanentError{Reason: ReasonInvalidURL, Err: fmt.Errorf("redirect to unsupported scheme: %s", clip(next))}
		}
		if page {
			clockFrom(req.Context()).redirected(len(via))
		}
		if err := f.blockedLiteral(req.URL); err != nil {
			return &PermanentError{Reason: ReasonBlockedAddress, Err: err}
		}
		if page && f.cfg.RespectRobots {
			if err := f.checkRobots(req.Context(), req.URL); err != nil {
				return err
			}
		}
		return nil
	}
}

// followedURL returns the URL a redirect leads to (already resolved against
// the URL redirected from), normalised when it can be, and its size: the
// larger of its lengths as requested and as normalised, so that neither
// what goes on the wire nor what is stored passes the cap.
func followedURL(u *url.URL) (string, int) {
	wire := *u
	wire.Fragment, wire.RawFragment = "", ""
	s := wire.String()
	size := len(s)
	if n, err := ident.NormalizeURL(s); err == nil {
		s, size = n, max(size, len(n))
	}
	return s, size
}

// clip shortens a URL for an error message.
func clip(u string) string { return textclip.Bytes(u, 100) }

// classifyErr maps a failure to a Permanent or TransientError. A fetch
// whose deadline passed (ctx's cause, see fetchClock) fails with that.
func classifyErr(ctx context.Context, target string, err error) error {
	var pe *PermanentError
	if errors.As(err, &pe) {
		return pe
	}
	var te *TransientError
	if errors.As(err, &te) {
		return te
	}
	var be *BlockedAddressError
	if errors.As(err, &be) {
		return &PermanentError{Reason: ReasonBlockedAddress, Err: be}
	}
	if cerr := ctx.Err(); cerr != nil {
		if errors.As(context.Cause(ctx), &te) {
			return te // the fetch deadline
		}
		if errors.Is(cerr, context.DeadlineExceeded) {
			return &TransientError{Reason: ReasonTimeout, Err: fmt.Errorf("%s: %w", target, cerr)}
		}
		return &TransientError{Reason: ReasonCanceled, Err: fmt.Errorf("%s: %w", target, cerr)}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &TransientError{Reason: ReasonTimeout, Err: err}
	}
	return &TransientError{Reason: ReasonNetwork, Err: err}
}

func bodyTooLarge(u string, limit int64) *PermanentError {
	return permanent(ReasonBodyTooLarge, "%s: body larger than %d bytes", u, limit)
}

func unsupportedType(u, mt string) *PermanentError {
	if mt == "" {
		mt = "(none)"
	}
	return permanent(ReasonUnsupportedContent, "%s: content type %s is not HTML or plain text", u, mt)
}

// mediaType returns the lowercased media type of a Content-Type value, or "".
func mediaType(ct string) string {
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ""
	}
	return mt
}

func acceptedType(mt string) bool {
	switch mt {
	case "text/html", "application/xhtml+xml", "text/plain":
		return true
	}
	return false
}

// toUTF8 returns body as valid UTF-8. colly already decodes bodies whose
// Content-Type names a non-UTF-8 charset; for the rest the charset is taken
// from a BOM or <meta charset> (HTML prescan), and invalid sequences left
// after that are replaced with U+FFFD.
func toUTF8(body []byte, contentType string) []byte {
	if utf8.Valid(body) {
		return body
	}
	enc, name, _ := charset.DetermineEncoding(body, contentType)
	if name != "utf-8" && enc != nil {
		if dec, err := io.ReadAll(enc.NewDecoder().Reader(bytes.NewReader(body))); err == nil {
			body = dec
		}
	}
	return bytes.ToValidUTF8(body, []byte("\uFFFD"))
}

// exchangeTransport wraps the base transport with what colly cannot do
// across collectors: the per-domain politeness wait (shared by all Fetch
// calls; the fetch's clock stops meanwhile) and the decoding of the body
// under its size limit (decodeBody, exchangeBody).
type exchangeTransport struct {
	base    http.RoundTripper
	limiter *domainLimiter
}

func (t *exchangeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	clock := clockFrom(ctx)
	domain := ident.HostDomain(req.URL.Hostname())
	clock.stop()
	slot, err := t.limiter.wait(ctx, domain)
	clock.start()
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	defer t.limiter.done(slot)
	clock.request(req.URL.String())
	if slot != nil {
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) { t.limiter.sent(slot, time.Now()) },
		})
		req = req.WithContext(ctx)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	limit, _ := ctx.Value(bodyLimitKey{}).(bodyLimit)
	decoded, err := decodeBody(resp)
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	resp.Body = &exchangeBody{rc: decoded, raw: resp.Body, limit: limit, url: req.URL}
	return resp, nil
}
