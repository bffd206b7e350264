package crawl

import (
	"bufio"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// bodyLimitKey carries the request's bodyLimit in the context.
type bodyLimitKey struct{}

// bodyLimit bounds a body after decoding: past max bytes a page is an error
// (body_too_large), a robots.txt is cut (truncate), as Google reads only its
// first 500 KiB — unless it came compressed: a compressed robots.txt that
// decodes past the cap is a bomb and fails the fetch body_too_large.
type bodyLimit struct {
	max      int64
	truncate bool
}

// decodeBody returns resp's body decoded from its Content-Encoding, and
// marks resp as decoded so that colly decodes nothing more: colly would
// gunzip with no limit whenever Go's transport has not (x-gzip, a gzip
// Content-Type, a .xml.gz path, every replayed entry). gzip, x-gzip and
// deflate are decoded here, lazily, and counted by exchangeBody; any other
// encoding is refused as permanent.
func decodeBody(resp *http.Response) (io.Reader, error) {
	enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	resp.Uncompressed = true
	var r io.Reader
	switch enc {
	case "", "identity":
		return resp.Body, nil
	case "gzip", "x-gzip":
		r = &lazyDecoder{src: resp.Body, open: func(src io.Reader) (io.Reader, error) { return gzip.NewReader(src) }}
	case "deflate":
		r = &lazyDecoder{src: resp.Body, open: func(src io.Reader) (io.Reader, error) { return zlib.NewReader(src) }}
	default:
		return nil, permanent(ReasonUnsupportedEncoding, "%s: content encoding %q is not decoded (want gzip or deflate)", resp.Request.URL, enc)
	}
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length") // the encoded length says nothing of the decoded size
	resp.ContentLength = -1
	return r, nil
}

// lazyDecoder opens its decoder at the first Read, so that a response
// aborted on its headers reads no body.
type lazyDecoder struct {
	src  io.Reader
	open func(io.Reader) (io.Reader, error)
	dec  io.Reader
}

func (d *lazyDecoder) Read(p []byte) (int, error) {
	if d.dec == nil {
		dec, err := d.open(bufio.NewReader(d.src))
		if err != nil {
			return 0, badEncoding(err)
		}
		d.dec = dec
	}
	n, err := d.dec.Read(p)
	if err != nil && err != io.EOF {
		return n, badEncoding(err)
	}
	return n, err
}

// badEncoding keeps network errors of the source as they are (transient)
// and makes a stream that does not decode permanent.
func badEncoding(err error) error {
	if errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, zlib.ErrHeader) ||
		errors.Is(err, zlib.ErrChecksum) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "flate: corrupt input") {
		return &PermanentError{Reason: ReasonUnsupportedEncoding, Err: fmt.Errorf("body does not decode: %w", err)}
	}
	return err
}

// exchangeBody is the body colly reads: decoded and counted against its
// limit.
type exchangeBody struct {
	rc    io.Reader     // decoded body
	raw   io.ReadCloser // the response's own body
	limit bodyLimit
	n     int64
	url   *url.URL
}

func (b *exchangeBody) Read(p []byte) (int, error) {
	if b.limit.max > 0 && b.limit.truncate {
		left := b.limit.max - b.n
		if left <= 0 {
			// A plain file past the cap is cut, as Google reads robots.txt;
			// a compressed one that decodes past it is a bomb.
			if _, encoded := b.rc.(*lazyDecoder); encoded {
				var one [1]byte
				if _, err := io.ReadFull(b.rc, one[:]); err == io.EOF {
					return 0, io.EOF // exactly at the cap
				}
				return 0, bodyTooLarge(b.url.String(), b.limit.max)
			}
			return 0, io.EOF
		}
		if int64(len(p)) > left {
			p = p[:left]
		}
	}
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if b.limit.max > 0 && !b.limit.truncate && b.n > b.limit.max {
		return n, bodyTooLarge(b.url.String(), b.limit.max)
	}
	return n, err
}

func (b *exchangeBody) Close() error { return b.raw.Close() }
