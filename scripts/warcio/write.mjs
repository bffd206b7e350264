// Writes a WARC file with Webrecorder's warcio.js, as a crawl made by
// another tool would be, for the replay tests (internal/harness/warccheck
// Write): a warcinfo record, then one response record per line of stdin,
// each gzip-compressed on its own.
//
//   node write.mjs OUT.warc.gz < records.jsonl
//
// A line is {"url", "date" (RFC 3339), "status", "headers": {name: value},
// "body" (base64)}.
import { writeFileSync } from "node:fs";
import { WARCRecord, WARCSerializer } from "warcio";

const out = process.argv[2];
if (!out) {
  console.error("usage: node write.mjs OUT.warc.gz < records.jsonl");
  process.exit(2);
}
let input = "";
for await (const chunk of process.stdin) input += chunk;
const lines = input.split("\n").filter((l) => l.trim() !== "");

const parts = [];
const info = WARCRecord.createWARCInfo({ filename: out.split("/").pop(), warcVersion: "WARC/1.1" }, { software: "warcio.js" });
parts.push(await WARCSerializer.serialize(info, { gzip: true }));
for (const line of lines) {
  const r = JSON.parse(line);
  const body = Buffer.from(r.body || "", "base64");
  async function* content() { yield new Uint8Array(body); }
  const record = WARCRecord.create({
    url: r.url,
    date: r.date,
    type: "response",
    warcVersion: "WARC/1.1",
    statusline: `HTTP/1.1 ${r.status} ${r.reason || "OK"}`,
    httpHeaders: r.headers || {},
  }, content());
  parts.push(await WARCSerializer.serialize(record, { gzip: true }));
}
writeFileSync(out, Buffer.concat(parts.map((p) => Buffer.from(p))));
