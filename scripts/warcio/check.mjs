// An independent check of a WARC file (and of a CDXJ index of it) with
// Webrecorder's warcio.js, for the tests (internal/harness/warccheck).
//
//   node check.mjs FILE.warc[.gz] [FILE.cdxj]   JSON summary on stdout; exit 1 on errors
//   node check.mjs --index FILE.warc[.gz]       warcio's own CDXJ of the file
//
// warcio.js parses the records (gzip per record, whole-file gzip or none) but
// checks no digest, so the digests are recomputed here with node:crypto over
// the bytes warcio read: WARC-Block-Digest over the record's block, and
// WARC-Payload-Digest over the block past the HTTP headers (application/http
// records) or the whole block (others; revisits are not checked: theirs is
// the original's). "algo:value" with algo sha1, sha256, sha512 or md5 and
// the value in base32 (RFC 4648) or base16. A WARC-Block-Digest is required
// on every record but warcinfo (warcio's own writer gives those none), a
// WARC-Payload-Digest on every application/http response.
import { createHash } from "node:crypto";
import { createReadStream, closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { basename } from "node:path";
import { AsyncIterReader, CDXIndexer, StatusAndHeadersParser, WARCParser, getSurt } from "warcio";

const DIGEST_BYTES = { sha1: 20, sha256: 32, sha512: 64, md5: 16 };
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function base32Decode(s) {
  s = s.replace(/=+$/, "").toUpperCase();
  const out = [];
  let bits = 0;
  let acc = 0;
  for (const c of s) {
    const v = BASE32.indexOf(c);
    if (v < 0) {
      return null;
    }
    acc = (acc << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  return Buffer.from(out);
}

// checkDigest returns "" when header (a WARC digest) is the digest of data,
// or what is wrong.
function checkDigest(header, data) {
  const colon = header.indexOf(":");
  if (colon < 0) {
    return `${header}: no "algorithm:" label`;
  }
  const algo = header.slice(0, colon).trim().toLowerCase().replace("-", "");
  const value = header.slice(colon + 1).trim();
  const size = DIGEST_BYTES[algo];
  if (!size) {
    return `${header}: unsupported algorithm ${algo}`;
  }
  let want = null;
  if (value.length === 2 * size && /^[0-9a-f]+$/i.test(value)) {
    want = Buffer.from(value, "hex");
  } else {
    want = base32Decode(value);
  }
  if (!want || want.length !== size) {
    return `${header}: not the base32 or base16 of a ${size}-byte ${algo} digest`;
  }
  const got = createHash(algo).update(data).digest();
  if (!got.equals(want)) {
    return `${header} does not match the bytes (${algo}: base32 ${base32Encode(got)}, base16 ${got.toString("hex")})`;
  }
  return "";
}

function base32Encode(buf) {
  let out = "";
  let bits = 0;
  let acc = 0;
  for (const b of buf) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32[(acc >> bits) & 31];
    }
  }
  if (bits > 0) {
    out += BASE32[(acc << (5 - bits)) & 31];
  }
  return out;
}

// splitHTTP parses the HTTP message at the start of an application/http
// block with warcio's header parser: its status line and the length of the
// headers (the payload follows).
async function splitHTTP(block) {
  const reader = new AsyncIterReader([block], null);
  const headers = await new StatusAndHeadersParser().parse(reader, { headersClass: Headers });
  if (!headers) {
    return null;
  }
  return { headers, length: reader.getReadOffset() };
}

// scan reads every record of the WARC and checks it.
async function scan(warcPath, summary, errors) {
  const { records, byType, responses } = summary;
  const magic = readSlice(warcPath, 0, 2);
  summary.gzip = magic.length === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  const parser = new WARCParser(createReadStream(warcPath), { parseHttp: false });
  let n = 0;
  for await (const record of parser) {
    n++;
    const type = record.warcType || "";
    byType[type] = (byType[type] || 0) + 1;
    const uri = record.warcTargetURI || "";
    const block = await record.readFully(false);
    const offset = parser.offset;
    const length = parser.recordLength;
    const where = `record ${n} (${type || "no WARC-Type"}${uri ? " " + uri : ""} at offset ${offset})`;
    const fail = (msg) => errors.push(`${where}: ${msg}`);
    records.push({ offset, length, uri, type, payloadDigest: record.warcPayloadDigest || "", status: null, date: record.warcDate || "" });

    if (!/^WARC\/1\.[01]$/.test(record.warcHeaders.statusline)) {
      fail(`version line ${JSON.stringify(record.warcHeaders.statusline)}, not WARC/1.0 or WARC/1.1`);
    }
    for (const h of ["WARC-Record-ID", "WARC-Date", "WARC-Type", "Content-Length"]) {
      if (!record.warcHeader(h)) {
        fail(`no ${h} header`);
      }
    }
    const cl = record.warcHeader("Content-Length");
    if (cl !== null && !/^\d+$/.test(cl.trim())) {
      fail(`Content-Length ${JSON.stringify(cl)} is not a number`);
    } else if (cl !== null && Number(cl) !== block.length) {
      fail(`Content-Length ${cl}, but the file holds ${block.length} bytes of block`);
    }
    const blockDigest = record.warcBlockDigest;
    if (!blockDigest && type !== "warcinfo") {
      fail("no WARC-Block-Digest");
    } else if (blockDigest) {
      const msg = checkDigest(blockDigest, block);
      if (msg) {
        fail(`WARC-Block-Digest ${msg}`);
      }
    }

    let payload = block;
    const isHTTP = (record.warcContentType || "").toLowerCase().startsWith("application/http");
    if (isHTTP && (type === "response" || type === "request" || (type === "revisit" && block.length > 0))) {
      const http = await splitHTTP(block);
      if (!http) {
        fail("no HTTP message in its application/http block");
        payload = new Uint8Array();
      } else {
        payload = block.subarray(http.length);
        if (type !== "request") {
          const status = Number(http.headers.statusCode);
          if (Number.isInteger(status) && status >= 100 && status <= 999) {
            records[records.length - 1].status = status;
          } else {
            fail(`HTTP status line ${JSON.stringify(http.headers.statusline)}`);
          }
        }
      }
    }
    const payloadDigest = record.warcPayloadDigest;
    if (type === "response" && isHTTP && !payloadDigest) {
      fail("no WARC-Payload-Digest");
    } else if (payloadDigest && type !== "revisit") {
      const msg = checkDigest(payloadDigest, payload);
      if (msg) {
        fail(`WARC-Payload-Digest ${msg}`);
      }
    }
    if (type === "response") {
      const r = records[records.length - 1];
      responses.push({ uri, status: r.status, date: r.date, payload_digest: r.payloadDigest, offset, length });
    }
  }
  if (n === 0) {
    errors.push(`${warcPath}: no WARC record`);
  }
  // A gzip file is one member per record when each record's member ends
  // where the next begins and the last at the end of the file; otherwise
  // (one member for the whole file) warcio's offsets address nothing.
  const size = fileSize(warcPath);
  summary.ranges = !summary.gzip || records.every((r, i) => r.offset + r.length === (i + 1 < records.length ? records[i + 1].offset : size));
  if (!summary.ranges) {
    for (const r of responses) {
      r.offset = -1;
      r.length = -1;
    }
  }
}

function readSlice(path, offset, length) {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(length);
    const got = readSync(fd, buf, 0, length, offset);
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

// checkCDXJ checks each line of the index against the scanned records and
// against the bytes at its offset and length, read alone as a replay tool
// reads them.
async function checkCDXJ(cdxjPath, warcPath, summary, errors) {
  const { records } = summary;
  if (!summary.ranges) {
    errors.push(`${cdxjPath}: ${warcPath} is gzip-compressed as a whole, not record by record: no offset and length can address a record in it`);
    return;
  }
  const size = fileSize(warcPath);
  const starts = new Map(records.map((r, i) => [r.offset, { r, end: i + 1 < records.length ? records[i + 1].offset : size }]));
  const indexed = new Set();
  const lines = readFileSync(cdxjPath, "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === "") {
      continue;
    }
    const fail = (msg) => errors.push(`${cdxjPath}:${i + 1}: ${msg}`);
    const m = /^(\S+) (\d{14}) (\{.*\})$/.exec(line);
    if (!m) {
      fail(`not "<surt> <14-digit timestamp> {json}": ${JSON.stringify(line.slice(0, 200))}`);
      continue;
    }
    const [, surt, timestamp, json] = m;
    let f;
    try {
      f = JSON.parse(json);
    } catch (e) {
      fail(`JSON: ${e.message}`);
      continue;
    }
    const missing = ["url", "digest", "offset", "length", "filename"].filter((k) => f[k] === undefined || f[k] === "");
    if (missing.length) {
      fail(`no ${missing.join(", ")}`);
      continue;
    }
    const offset = Number(f.offset);
    const length = Number(f.length);
    if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length <= 0) {
      fail(`offset ${JSON.stringify(f.offset)} and length ${JSON.stringify(f.length)} are not a byte range`);
      continue;
    }
    if (surt !== getSurt(f.url)) {
      fail(`key ${surt} is not the SURT of ${f.url} (warcio: ${getSurt(f.url)})`);
    }
    if (f.filename !== basename(warcPath)) {
      fail(`filename ${JSON.stringify(f.filename)}, not ${JSON.stringify(basename(warcPath))}`);
    }
    const at = starts.get(offset);
    if (!at) {
      fail(`offset ${offset}: no record starts there`);
      continue;
    }
    const { r, end } = at;
    indexed.add(offset);
    if (length < r.length || length > end - offset) {
      fail(`length ${length}: the record at ${offset} is ${r.length} bytes${end - offset !== r.length ? ` (${end - offset} to the next)` : ""}`);
      continue;
    }
    if (f.url !== r.uri) {
      fail(`url ${f.url}, but the record at ${offset} is of ${r.uri}`);
    }
    const recordDigest = r.payloadDigest.slice(r.payloadDigest.indexOf(":") + 1);
    if (f.digest !== recordDigest) {
      fail(`digest ${f.digest}, but the record's WARC-Payload-Digest is ${r.payloadDigest || "absent"}`);
    }
    if (timestamp !== r.date.replace(/[-:T]/g, "").slice(0, 14)) {
      fail(`timestamp ${timestamp}, but the record's WARC-Date is ${r.date}`);
    }
    if (f.status !== undefined && f.status !== "" && f.status !== "-" && Number(f.status) !== r.status) {
      fail(`status ${f.status}, but the record's HTTP status is ${r.status}`);
    }
    await checkSlice(warcPath, offset, length, f, fail);
  }
  for (const r of records) {
    if (r.type === "response" && !indexed.has(r.offset)) {
      errors.push(`${cdxjPath}: no line for the response record of ${r.uri} at offset ${r.offset}`);
    }
  }
}

// checkSlice reads the bytes [offset, offset+length) of the WARC alone: they
// must hold one whole record, of the line's URL and digest.
async function checkSlice(warcPath, offset, length, f, fail) {
  const slice = readSlice(warcPath, offset, length);
  try {
    const parser = new WARCParser([slice], { parseHttp: false });
    let n = 0;
    for await (const record of parser) {
      n++;
      const block = await record.readFully(false);
      if (n > 1) {
        continue;
      }
      if (block.length !== record.warcContentLength) {
        fail(`bytes ${offset}+${length} read alone hold ${block.length} of the record's ${record.warcContentLength} block bytes`);
      }
      if (record.warcTargetURI !== f.url) {
        fail(`bytes ${offset}+${length} read alone are a record of ${record.warcTargetURI}, not ${f.url}`);
      }
      const d = record.warcPayloadDigest || "";
      if (d.slice(d.indexOf(":") + 1) !== f.digest) {
        fail(`bytes ${offset}+${length} read alone have WARC-Payload-Digest ${d}, not ${f.digest}`);
      }
    }
    if (n !== 1) {
      fail(`bytes ${offset}+${length} read alone hold ${n} records, not one`);
    }
  } catch (e) {
    fail(`bytes ${offset}+${length} read alone: ${e.message}`);
  }
}

function fileSize(path) {
  const fd = openSync(path, "r");
  try {
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

async function main(args) {
  if (args[0] === "--index" && args.length === 2) {
    const files = [{ filename: basename(args[1]), reader: createReadStream(args[1]) }];
    await new CDXIndexer({ format: "cdxj" }).writeAll(files, process.stdout);
    return 0;
  }
  if (args.length < 1 || args.length > 2 || args[0].startsWith("-")) {
    process.stderr.write("usage: node check.mjs FILE.warc.gz [FILE.cdxj] | node check.mjs --index FILE.warc.gz\n");
    return 2;
  }
  const [warcPath, cdxjPath] = args;
  const errors = [];
  // warcio reports a record whose Content-Length falls short on console.warn.
  const warn = console.warn;
  console.warn = (...a) => errors.push(`warcio: ${a.join(" ")}`);
  const summary = { records: [], byType: {}, responses: [] };
  try {
    await scan(warcPath, summary, errors);
    if (cdxjPath) {
      await checkCDXJ(cdxjPath, warcPath, summary, errors);
    }
  } catch (e) {
    errors.push(`${warcPath}: ${e.message}`);
  } finally {
    console.warn = warn;
  }
  const out = {
    records: summary.records.length,
    by_type: summary.byType,
    responses: summary.responses,
    errors,
  };
  process.stdout.write(JSON.stringify(out, null, 1) + "\n");
  return errors.length ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
