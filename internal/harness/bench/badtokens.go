package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"

	timerate "golang.org/x/time/rate"

	"github.com/evidencefleet/evidencefleet/internal/api"
	"github.com/evidencefleet/evidencefleet/internal/apiserver"
	"github.com/evidencefleet/evidencefleet/internal/apitoken"
	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/store"
)

// BadTokensSection measures a good token's request latency alone and
// during a flood of well-formed unknown tokens from another client address
// (issue 43, finding 4).
const BadTokensSection = "badtokens"

// badTokenFlooders are the flood's concurrent clients, and badTokenRate
// the bad tokens a second they offer together (the same in both arms, so
// that the arms differ in what the server does with them, not in how
// much the in-process clients spend sending them).
const (
	badTokenFlooders = 16
	badTokenRate     = 3000
)

// badTokens serves the API in process on a scratch database (no request
// rate per token, so that only authentication is measured) and times
// BadTokenRequests sequential GET /v1/tasks of a good token from
// 127.0.0.1: alone, during a flood of distinct random tokens from
// 127.0.0.2 with the per-address limit of refused tokens at its defaults
// (EVF_API_AUTH_FAILURE_RATE, _BURST), and during the same flood with
// that limit off (every bad token a database query, as before it).
func (h *harness) badTokens(ctx context.Context) error {
	pool, _, done, err := h.scratch(ctx)
	if err != nil {
		return err
	}
	defer done()
	cfg := config.Defaults()
	good, _, err := apitoken.Issue(ctx, store.NewStore(pool), apitoken.Organization, "bench", "good")
	if err != nil {
		return err
	}
	serve := func(f api.FailureLimits) (*httptest.Server, error) {
		srv, err := apiserver.New(pool, apiserver.Options{Failures: f})
		if err != nil {
			return nil, err
		}
		return httptest.NewServer(srv.Handler()), nil
	}
	guarded, err := serve(api.FailureLimits{Rate: cfg.APIAuthFailures, Burst: cfg.APIAuthBurst})
	if err != nil {
		return err
	}
	defer guarded.Close()
	open, err := serve(api.FailureLimits{})
	if err != nil {
		return err
	}
	defer open.Close()

	sec := fmt.Sprintf("bad-token flood (API in process; a good token's %d sequential requests from 127.0.0.1; %d random tokens/s offered by %d clients from 127.0.0.2)",
		h.opts.BadTokenRequests, badTokenRate, badTokenFlooders)
	var alone50, alone99, guard50, guard99, open50, open99, guardRate, guard429, openRate []float64
	for rep := range h.opts.Reps {
		p50, p99, err := h.goodLatency(ctx, guarded.URL, good)
		if err != nil {
			return err
		}
		alone50, alone99 = append(alone50, p50), append(alone99, p99)
		for _, arm := range []struct {
			url      string
			p50, p99 *[]float64
			rate     *[]float64
			refused  *[]float64
		}{{guarded.URL, &guard50, &guard99, &guardRate, &guard429}, {open.URL, &open50, &open99, &openRate, nil}} {
			fl := startFlood(ctx, arm.url)
			p50, p99, err := h.goodLatency(ctx, arm.url, good)
			sent, limited, secs := fl.stop()
			if err != nil {
				return err
			}
			*arm.p50, *arm.p99 = append(*arm.p50, p50), append(*arm.p99, p99)
			*arm.rate = append(*arm.rate, float64(sent)/secs)
			if arm.refused != nil {
				*arm.refused = append(*arm.refused, 100*float64(limited)/float64(max(sent, 1)))
			}
		}
		h.logf("bad tokens rep %d: alone p50 %.2f ms; flood, limited: p50 %.2f ms (%.0f bad/s); flood, unlimited: p50 %.2f ms (%.0f bad/s)",
			rep+1, alone50[rep], guard50[rep], guardRate[rep], open50[rep], openRate[rep])
	}
	a50 := h.add(sec, "good token alone: p50", alone50, "ms", "")
	a99 := h.add(sec, "good token alone: p99", alone99, "ms", "")
	h.add(sec, "during the flood, per-address limit on (default): p50", guard50, "ms", "alone "+ratio(median(guard50), a50))
	h.add(sec, "during the flood, per-address limit on (default): p99", guard99, "ms", "alone "+ratio(median(guard99), a99))
	h.add(sec, "flood answered, limit on", guardRate, "req/s", "")
	h.add(sec, "flood answered 429 (no token looked up), limit on", guard429, "%", "")
	h.add(sec, "during the flood, per-address limit off: p50", open50, "ms", "alone "+ratio(median(open50), a50))
	h.add(sec, "during the flood, per-address limit off: p99", open99, "ms", "alone "+ratio(median(open99), a99))
	h.add(sec, "flood answered, limit off (each a token lookup)", openRate, "req/s", "")
	return nil
}

// goodLatency times BadTokenRequests sequential requests of a good token
// from 127.0.0.1: their p50 and p99 in milliseconds.
func (h *harness) goodLatency(ctx context.Context, base, secret string) (float64, float64, error) {
	c := clientFrom("127.0.0.1", 1)
	defer c.CloseIdleConnections()
	var lat []float64
	for range h.opts.BadTokenRequests {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/tasks", nil)
		if err != nil {
			return 0, 0, err
		}
		req.Header.Set("Authorization", "Bearer "+secret)
		start := time.Now()
		resp, err := c.Do(req)
		if err != nil {
			return 0, 0, fmt.Errorf("good token: %w", err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, 0, fmt.Errorf("good token: status %d", resp.StatusCode)
		}
		lat = append(lat, ms(time.Since(start)))
	}
	return quantile(lat, 0.5), quantile(lat, 0.99), nil
}

// clientFrom is an HTTP client whose connections come from the loopback
// address local, keeping up to conns of them.
func clientFrom(local string, conns int) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: conns}}
}

// flood sends random well-formed tokens from 127.0.0.2 until stopped.
type flood struct {
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	start   time.Time
	sent    atomic.Int64
	limited atomic.Int64 // answered 429
}

func startFlood(ctx context.Context, base string) *flood {
	ctx, cancel := context.WithCancel(ctx)
	f := &flood{cancel: cancel, start: time.Now()}
	c := clientFrom("127.0.0.2", badTokenFlooders)
	pace := timerate.NewLimiter(badTokenRate, badTokenFlooders)
	for range badTokenFlooders {
		f.wg.Go(func() {
			for pace.Wait(ctx) == nil {
				secret, _, _, err := apitoken.New(apitoken.Organization)
				if err != nil {
					return
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/tasks", nil)
				req.Header.Set("Authorization", "Bearer "+secret)
				resp, err := c.Do(req)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				f.sent.Add(1)
				if resp.StatusCode == http.StatusTooManyRequests {
					f.limited.Add(1)
				}
			}
		})
	}
	time.Sleep(200 * time.Millisecond) // the flood under way before the good token's first request
	return f
}

// stop ends the flood: requests answered, of which 429, and its seconds.
func (f *flood) stop() (int64, int64, float64) {
	f.cancel()
	f.wg.Wait()
	return f.sent.Load(), f.limited.Load(), time.Since(f.start).Seconds()
}
