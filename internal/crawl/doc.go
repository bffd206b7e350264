// Package crawl fetches single web pages for the target_queue job: URL
// normalisation, colly-based fetching with an SSRF guard, robots.txt,
// per-domain politeness, size/type limits and a permanent/transient error
// classification, plus an offline replay mode.
//
// # Fetching
//
// Every Fetch runs one GET through a fresh colly Collector whose
// http.Client uses the Fetcher's shared RoundTripper (colly WithTransport).
// The shared transport does, for all collectors of the process:
//
//   - the per-process floor of politeness (Config.DomainDelay, keyed by
//     Domain, covering robots.txt and redirect hops too). The fleet-wide
//     spacing and daily budget of page fetches are the target_queue
//     worker's, reserved in Postgres before it calls Fetch; CheckRobots
//     gives it robots.txt's Crawl-delay for that;
//   - gzip, x-gzip and deflate decoding under the body limit: every request
//     asks for gzip itself and the live transport's own decompression is
//     off, so no body is decoded out of the limit's sight;
//   - a hard body limit that fails instead of truncating;
//   - in live mode, the SSRF guard: a net.Dialer Control hook that refuses
//     non-public addresses after DNS resolution, so redirects and DNS
//     rebinding are covered. No proxy is used.
//
// One deadline bounds a Fetch as a whole (Config.Timeout: connection
// set-up, every redirect hop, the robots.txt of every origin on the way,
// the body); its clock stops during politeness waits. Every URL followed
// is capped at ident.MaxURLBytes, as targets are.
//
// The caller's context reaches the requests through colly's Collector.Context.
// robots.txt is read through colly as well, but cached per origin (24h) by
// the Fetcher, because colly's own robots handling is per Collector, ignores
// the context and treats a 5xx robots.txt as "allow everything".
//
// # Replay archives
//
// With Config.ReplayDir set, responses come only from a replay archive and
// nothing is dialled; colly still does the fetching, through ReplayTransport.
// An archive is a directory of WARC files (ISO 28500; *.warc.gz or *.warc,
// read in name order with github.com/nlnwa/gowarc): each HTTP response
// record is one recorded response for its WARC-Target-URI, with the status,
// headers and payload it recorded; a later record for the same URL replaces
// an earlier one; request, revisit, metadata and other records are skipped.
// So a crawl made by another tool (Heritrix, Browsertrix, wget --warc-file)
// can be replayed through the fleet, and the demo corpus ships as one WARC
// file (testdata/replay/demo/archive.warc.gz, written by internal/warc). Bodies
// are read from the file when fetched, at the record's offset, bounded by
// the fetcher's limits like live responses; an archive of more than
// MaxArchiveRecords responses, a record's HTTP headers over 2 MiB or more
// than 256 MiB of them in all are refused when it is opened.
//
// The older layout, a directory holding manifest.jsonl and the body files,
// is still read when manifest.jsonl is there:
//
//	archive/
//	  manifest.jsonl
//	  en.wikipedia.org/Global_warming.html
//	  ...
//
// Each manifest line is one JSON object:
//
//	{"url": "https://en.wikipedia.org/wiki/Global_warming",
//	 "status": 200,                              // optional, default 200
//	 "content_type": "text/html; charset=utf-8", // sent as Content-Type
//	 "file": "en.wikipedia.org/Global_warming.html", // relative to the dir; optional (empty body)
//	 "headers": {"Retry-After": "120"}}           // optional extra headers
//
// URLs are matched after NormalizeURL, so the manifest may hold them in any
// equivalent spelling; a URL listed twice is an error. A URL missing from the
// archive is answered with 404, so a missing robots.txt means "allowed".
// robots.txt may be recorded (e.g. "http://host/robots.txt"); for robots.txt
// the other scheme is tried too. Redirects are recorded as a 3xx entry with a
// "Location" header. Unknown fields in a manifest line are rejected.
package crawl
