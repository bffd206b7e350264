package jobs_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/jobs"
)

// allKinds lists every job kind of the public contract.
var allKinds = []string{jobs.KindTargetQueue, jobs.KindEmbed, jobs.KindVerifyNLI, jobs.KindRerank,
	jobs.KindCitationGraph, jobs.KindCleanup}

func int64Ptr(v int64) *int64 { return &v }

// parseCase is one ParseArgs input with the expected outcome.
type parseCase struct {
	name string
	kind string
	raw  string
	// want lists substrings the error message must contain; empty means
	// the args must be accepted.
	want []string
	// field is the ArgsError.Field the error must carry ("" for errors not
	// about one field); only checked when want is set.
	field string
	// knownBug, when set, marks a case where the code is known to be wrong
	// (see the test report); the case is skipped with the reason instead of
	// failing, and reports loudly once the bug is fixed.
	knownBug string
}

func TestParseArgsAcceptsValidArgs(t *testing.T) {
	t.Parallel()
	cases := []parseCase{
		{name: "target url", kind: jobs.KindTargetQueue, raw: `{"task_id":1,"target":{"kind":"url","value":"https://example.com/a"}}`},
		{name: "target url not yet normalised", kind: jobs.KindTargetQueue, raw: `{"task_id":1,"target":{"kind":"url","value":"  HTTPS://Example.COM:443/a?utm_source=x#frag "}}`},
		{name: "target doi", kind: jobs.KindTargetQueue, raw: `{"task_id":1,"target":{"kind":"doi","value":"https://doi.org/10.1000/XYZ123"}}`},
		{name: "target query", kind: jobs.KindTargetQueue, raw: `{"task_id":1,"target":{"kind":"query","value":"  polar   bears "}}`},
		{name: "target with depth", kind: jobs.KindTargetQueue, raw: `{"task_id":9,"target":{"kind":"url","value":"http://example.org/"},"depth":2}`},
		{name: "target trailing whitespace", kind: jobs.KindTargetQueue, raw: "{\"task_id\":1,\"target\":{\"kind\":\"url\",\"value\":\"https://example.com/\"}}\n  \t"},
		{name: "embed fragment ids", kind: jobs.KindEmbed, raw: `{"fragment_ids":[1,2,3]}`},
		{name: "embed fragment ids with task", kind: jobs.KindEmbed, raw: `{"task_id":4,"fragment_ids":[1]}`},
		{name: "embed page version", kind: jobs.KindEmbed, raw: `{"page_version_id":7}`},
		{name: "verify task", kind: jobs.KindVerifyNLI, raw: `{"task_id":3}`},
		{name: "verify with page and claims", kind: jobs.KindVerifyNLI, raw: `{"task_id":3,"page_id":5,"claim_ids":[1,2]}`},
		{name: "verify null page", kind: jobs.KindVerifyNLI, raw: `{"task_id":3,"page_id":null}`},
		{name: "verify shard", kind: jobs.KindVerifyNLI, raw: `{"task_id":3,"claim_from":64,"claim_to":127}`},
		{name: "verify one-claim shard", kind: jobs.KindVerifyNLI, raw: `{"task_id":3,"claim_from":70,"claim_to":70}`},
		{name: "verify dispatch continued", kind: jobs.KindVerifyNLI, raw: `{"task_id":3,"dispatch_from":64000}`},
		{name: "rerank", kind: jobs.KindRerank, raw: `{"task_id":2,"query":"sea ice","top_k":10}`},
		{name: "rerank task only", kind: jobs.KindRerank, raw: `{"task_id":2}`},
		// the same queries as the refused ones of TestParseArgsRejectsBadArgsNamingTheField, in valid text
		{name: "rerank query with a surrogate pair", kind: jobs.KindRerank, raw: `{"task_id":2,"query":"\ud83e\uddca ice"}`},
		{name: "rerank query with U+FFFD itself", kind: jobs.KindRerank, raw: `{"task_id":2,"query":"\ufffd ice �"}`},
		{name: "rerank query with an escaped backslash before ud800", kind: jobs.KindRerank, raw: `{"task_id":2,"query":"C:\\ud800 ice"}`},
		{name: "target query in UTF-8", kind: jobs.KindTargetQueue, raw: `{"task_id":1,"target":{"kind":"query","value":"seaéice"}}`},
		{name: "citation graph", kind: jobs.KindCitationGraph, raw: `{"task_id":2,"page_id":8}`},
		{name: "cleanup soft", kind: jobs.KindCleanup, raw: `{"task_id":2,"mode":"soft"}`},
		{name: "cleanup hard", kind: jobs.KindCleanup, raw: `{"task_id":2,"mode":"hard"}`},
		{name: "cleanup orphans sweep", kind: jobs.KindCleanup, raw: `{"mode":"orphans"}`},
	}
	runParseCases(t, cases)
}

func TestParseArgsRejectsBadArgsNamingTheField(t *testing.T) {
	t.Parallel()
	const tq = jobs.KindTargetQueue
	target := func(value string) string {
		b, _ := json.Marshal(value)
		return `{"task_id":1,"target":{"kind":"url","value":` + string(b) + `}}`
	}
	cases := []parseCase{
		// Unknown fields.
		{name: "target unknown top-level field", kind: tq, raw: `{"task_id":1,"target":{"kind":"url","value":"https://e.com/"},"bogus":1}`,
			want: []string{`field "bogus"`, "unknown field"}, field: "bogus"},
		{name: "target unknown nested field", kind: tq, raw: `{"task_id":1,"target":{"kind":"url","value":"https://e.com/","extra":true}}`,
			want: []string{`field "target.extra"`, "unknown field"}, field: "target.extra"},
		{name: "target field with wrong case", kind: tq, raw: `{"Task_ID":1,"target":{"kind":"url","value":"https://e.com/"}}`,
			want: []string{`field "Task_ID"`, "unknown field"}, field: "Task_ID"},
		{name: "embed unknown field", kind: jobs.KindEmbed, raw: `{"bogus":1}`, want: []string{`field "bogus"`, "unknown field"}, field: "bogus"},
		{name: "verify unknown field", kind: jobs.KindVerifyNLI, raw: `{"task_id":1,"claims":[1]}`, want: []string{`field "claims"`}, field: "claims"},
		{name: "rerank unknown field", kind: jobs.KindRerank, raw: `{"task_id":1,"topk":3}`, want: []string{`field "topk"`}, field: "topk"},
		{name: "citation unknown field", kind: jobs.KindCitationGraph, raw: `{"task_id":1,"page_id":2,"depth":1}`, want: []string{`field "depth"`}, field: "depth"},
		{name: "cleanup unknown field", kind: jobs.KindCleanup, raw: `{"task_id":1,"mode":"soft","force":true}`, want: []string{`field "force"`}, field: "force"},

		// Wrong types.
		{name: "target string task_id", kind: tq, raw: `{"task_id":"1","target":{"kind":"url","value":"https://e.com/"}}`,
			want: []string{`field "task_id"`, "expected an integer, got string"}, field: "task_id"},
		{name: "target fractional task_id", kind: tq, raw: `{"task_id":1.5,"target":{"kind":"url","value":"https://e.com/"}}`,
			want: []string{`field "task_id"`, "expected an integer"}, field: "task_id"},
		{name: "target overflowing task_id", kind: tq, raw: `{"task_id":1e40,"target":{"kind":"url","value":"https://e.com/"}}`,
			want: []string{`field "task_id"`, "expected an integer"}, field: "task_id"},
		{name: "target is a string", kind: tq, raw: `{"task_id":1,"target":"https://e.com/"}`,
			want: []string{`field "target"`, "expected an object, got string"}, field: "target"},
		{name: "target kind is a number", kind: tq, raw: `{"task_id":1,"target":{"kind":1,"value":"https://e.com/"}}`,
			want: []string{`field "target.kind"`, "expected a string, got number"}, field: "target.kind"},
		{name: "target depth is a string", kind: tq, raw: `{"task_id":1,"target":{"kind":"url","value":"https://e.com/"},"depth":"1"}`,
			want: []string{`field "depth"`}, field: "depth"},
		{name: "embed object where array expected", kind: jobs.KindEmbed, raw: `{"fragment_ids":{"1":2}}`,
			want: []string{`field "fragment_ids"`, "expected an array, got object"}, field: "fragment_ids"},
		{name: "embed string in id array", kind: jobs.KindEmbed, raw: `{"fragment_ids":[1,"2"]}`,
			want: []string{`field "fragment_ids"`, "got string"}, field: "fragment_ids"},
		{name: "embed string task_id", kind: jobs.KindEmbed, raw: `{"task_id":"4","fragment_ids":[1]}`,
			want: []string{`field "task_id"`}, field: "task_id"},
		{name: "verify string task_id", kind: jobs.KindVerifyNLI, raw: `{"task_id":"3"}`, want: []string{`field "task_id"`, "expected an integer"}, field: "task_id"},
		{name: "verify object where array expected", kind: jobs.KindVerifyNLI, raw: `{"task_id":3,"claim_ids":{}}`,
			want: []string{`field "claim_ids"`, "expected an array"}, field: "claim_ids"},
		{name: "verify boolean page_id", kind: jobs.KindVerifyNLI, raw: `{"task_id":3,"page_id":true}`, want: []string{`field "page_id"`}, field: "page_id"},
		{name: "rerank number query", kind: jobs.KindRerank, raw: `{"task_id":2,"query":5}`, want: []string{`field "query"`, "expected a string"}, field: "query"},
		{name: "citation string page_id", kind: jobs.KindCitationGraph, raw: `{"task_id":2,"page_id":"8"}`, want: []string{`field "page_id"`}, field: "page_id"},
		{name: "cleanup array mode", kind: jobs.KindCleanup, raw: `{"task_id":2,"mode":["soft"]}`, want: []string{`field "mode"`}, field: "mode"},

		// Missing and non-positive ids.
		{name: "target missing task_id", kind: tq, raw: `{"target":{"kind":"url","value":"https://e.com/"}}`,
			want: []string{`field "task_id"`, "required"}, field: "task_id"},
		{name: "target zero task_id", kind: tq, raw: `{"task_id":0,"target":{"kind":"url","value":"https://e.com/"}}`,
			want: []string{`field "task_id"`, "required"}, field: "task_id"},
		{name: "target negative task_id", kind: tq, raw: `{"task_id":-5,"target":{"kind":"url","value":"https://e.com/"}}`,
			want: []string{`field "task_id"`, "positive", "-5"}, field: "task_id"},
		{name: "target negative depth", kind: tq, raw: `{"task_id":1,"target":{"kind":"url","value":"https://e.com/"},"depth":-1}`,
			want: []string{`field "depth"`}, field: "depth"},
		{name: "target missing target", kind: tq, raw: `{"task_id":1}`, want: []string{`field "target.value"`, "required"}, field: "target.value"},
		{name: "embed negative fragment id", kind: jobs.KindEmbed, raw: `{"fragment_ids":[3,-2]}`,
			want: []string{`field "fragment_ids[1]"`, "positive", "-2"}, field: "fragment_ids[1]"},
		{name: "embed zero fragment id", kind: jobs.KindEmbed, raw: `{"fragment_ids":[0]}`, want: []string{`field "fragment_ids[0]"`}, field: "fragment_ids[0]"},
		{name: "embed negative page_version_id", kind: jobs.KindEmbed, raw: `{"page_version_id":-3}`,
			want: []string{`field "page_version_id"`, "positive"}, field: "page_version_id"},
		{name: "embed negative task_id", kind: jobs.KindEmbed, raw: `{"task_id":-1,"fragment_ids":[1]}`,
			want: []string{`field "task_id"`, "positive"}, field: "task_id"},
		{name: "verify missing task_id", kind: jobs.KindVerifyNLI, raw: `{"claim_ids":[1]}`, want: []string{`field "task_id"`, "required"}, field: "task_id"},
		{name: "verify negative task_id", kind: jobs.KindVerifyNLI, raw: `{"task_id":-3}`, want: []string{`field "task_id"`, "-3"}, field: "task_id"},
		{name: "verify negative page_id", kind: jobs.KindVerifyNLI, raw: `{"task_id":3,"page_id":-1}`, want: []string{`field "page_id"`}, field: "page_id"},
		{name: "verify zero page_id", kind: jobs.KindVerifyNLI, raw: `{"task_id":3,"page_id":0}`, want: []string{`field "page_id"`}, field: "page_id"},
		{name: "verify negative claim id", kind: jobs.KindVerifyNLI, raw: `{"task_id":3,"claim_ids":[-7]}`,
			want: []string{`field "claim_ids[0]"`, "-7"}, field: "claim_ids[0]"},
		{name: "verify shard without its start", kind: jobs.KindVerifyNLI, raw: `{"task_id":3,"claim_to":9}`,
			want: []string{`field "claim_from"`, "required"}, field: "claim_from"},
		{name: "verify shard ending before it starts", kind: jobs.KindVerifyNLI, raw: `{"task_id":3,"claim_from":9,"claim_to":8}`,
			want: []string{`field "claim_to"`, "at least claim_from (9), got 8"}, field: "claim_to"},
		{name: "verify shard wider than MaxClaimIDs", kind: jobs.KindVerifyNLI, raw: `{"task_id":3,"claim_from":1,"claim_to":10001}`,
			want: []string{`field "claim_to"`, "at most 10000 claim ids"}, field: "claim_to"},
		{name: "verify negative dispatch_from", kind: jobs.KindVerifyNLI, raw: `{"task_id":3,"dispatch_from":-1}`,
			want: []string{`field "dispatch_from"`, "negative"}, field: "dispatch_from"},
		{name: "verify shard with dispatch_from", kind: jobs.KindVerifyNLI, raw: `{"task_id":3,"claim_from":1,"claim_to":8,"dispatch_from":5}`,
			want: []string{`field "dispatch_from"`, "not a dispatch"}, field: "dispatch_from"},
		{name: "verify shard with claim ids", kind: jobs.KindVerifyNLI, raw: `{"task_id":3,"claim_from":1,"claim_to":8,"claim_ids":[2]}`,
			want: []string{`field "claim_ids"`, "takes no claim ids"}, field: "claim_ids"},
		{name: "rerank missing task_id", kind: jobs.KindRerank, raw: `{"query":"x"}`, want: []string{`field "task_id"`, "required"}, field: "task_id"},
		{name: "rerank negative top_k", kind: jobs.KindRerank, raw: `{"task_id":1,"top_k":-1}`, want: []string{`field "top_k"`}, field: "top_k"},
		{name: "rerank huge top_k", kind: jobs.KindRerank, raw: `{"task_id":1,"top_k":1001}`, want: []string{`field "top_k"`}, field: "top_k"},
		{name: "citation missing task_id", kind: jobs.KindCitationGraph, raw: `{"page_id":2}`, want: []string{`field "task_id"`, "required"}, field: "task_id"},
		{name: "citation missing page_id", kind: jobs.KindCitationGraph, raw: `{"task_id":2}`, want: []string{`field "page_id"`, "required"}, field: "page_id"},
		{name: "citation negative page_id", kind: jobs.KindCitationGraph, raw: `{"task_id":2,"page_id":-8}`, want: []string{`field "page_id"`, "-8"}, field: "page_id"},
		{name: "cleanup missing task_id", kind: jobs.KindCleanup, raw: `{"mode":"soft"}`, want: []string{`field "task_id"`, "required"}, field: "task_id"},
		{name: "cleanup negative task_id", kind: jobs.KindCleanup, raw: `{"task_id":-2,"mode":"soft"}`, want: []string{`field "task_id"`}, field: "task_id"},

		// Invalid URLs.
		{name: "url not a url", kind: tq, raw: target("not a url"), want: []string{`field "target.value"`, "invalid URL"}, field: "target.value"},
		{name: "url ftp scheme", kind: tq, raw: target("ftp://x"), want: []string{`field "target.value"`, "invalid URL", "scheme"}, field: "target.value"},
		{name: "url with credentials", kind: tq, raw: target("http://user:pw@host/"), want: []string{`field "target.value"`, "userinfo"}, field: "target.value"},
		{name: "url javascript", kind: tq, raw: target("javascript:alert(1)"), want: []string{`field "target.value"`, "scheme"}, field: "target.value"},
		{name: "url without host", kind: tq, raw: target("https:///path"), want: []string{`field "target.value"`, "host"}, field: "target.value"},
		{name: "url scheme only", kind: tq, raw: target("http:example.com"), want: []string{`field "target.value"`}, field: "target.value"},

		// Target kind and value.
		{name: "unknown target kind", kind: tq, raw: `{"task_id":1,"target":{"kind":"isbn","value":"978-3-16"}}`,
			want: []string{`field "target.kind"`, `"isbn"`}, field: "target.kind"},
		{name: "missing target kind", kind: tq, raw: `{"task_id":1,"target":{"value":"https://e.com/"}}`,
			want: []string{`field "target.kind"`, "required"}, field: "target.kind"},
		{name: "empty target value", kind: tq, raw: `{"task_id":1,"target":{"kind":"url","value":""}}`,
			want: []string{`field "target.value"`, "required"}, field: "target.value"},
		{name: "blank target value", kind: tq, raw: `{"task_id":1,"target":{"kind":"query","value":"   "}}`,
			want: []string{`field "target.value"`, "required"}, field: "target.value"},
		{name: "invalid doi", kind: tq, raw: `{"task_id":1,"target":{"kind":"doi","value":"not-a-doi"}}`,
			want: []string{`field "target.value"`, "DOI"}, field: "target.value"},
		// Values that could never be fetched or stored (issue: NUL and invalid
		// UTF-8 reach Postgres, long values overflow its indexes, ".." reaches
		// another path of the academic API).
		{name: "doi with encoded NUL", kind: tq, raw: `{"task_id":1,"target":{"kind":"doi","value":"10.1234/a%00b"}}`,
			want: []string{`field "target.value"`, "control character U+0000"}, field: "target.value"},
		{name: "doi with encoded invalid UTF-8", kind: tq, raw: `{"task_id":1,"target":{"kind":"doi","value":"10.1234/a%ffb"}}`,
			want: []string{`field "target.value"`, "not valid UTF-8"}, field: "target.value"},
		{name: "doi climbing out of its path", kind: tq, raw: `{"task_id":1,"target":{"kind":"doi","value":"10.1234/../../admin"}}`,
			want: []string{`field "target.value"`, `segment ".."`}, field: "target.value"},
		{name: "doi too long", kind: tq, raw: `{"task_id":1,"target":{"kind":"doi","value":"10.1234/` + strings.Repeat("x", 400) + `"}}`,
			want: []string{`field "target.value"`, "longer than 300 bytes"}, field: "target.value"},
		{name: "url too long", kind: tq, raw: target("https://e.com/" + strings.Repeat("a", 2100)),
			want: []string{`field "target.value"`, "longer than 2048 bytes"}, field: "target.value"},
		{name: "url encoding a NUL", kind: tq, raw: target("https://e.com/a%00b"),
			want: []string{`field "target.value"`, "NUL"}, field: "target.value"},
		{name: "query too long", kind: tq, raw: `{"task_id":1,"target":{"kind":"query","value":"` + strings.Repeat("word ", 200) + `"}}`,
			want: []string{`field "target.value"`, "more than 500"}, field: "target.value"},
		{name: "query with invalid UTF-8", kind: tq, raw: "{\"task_id\":1,\"target\":{\"kind\":\"query\",\"value\":\"sea\xc3ice\"}}",
			want: []string{`field "target.value"`, "invalid UTF-8"}, field: "target.value"},
		{name: "query with a lone surrogate", kind: tq, raw: `{"task_id":1,"target":{"kind":"query","value":"sea\udc00ice"}}`,
			want: []string{`field "target.value"`, "lone surrogate"}, field: "target.value"},
		{name: "rerank query with a lone surrogate", kind: jobs.KindRerank, raw: `{"task_id":1,"query":"\ud83e ice"}`,
			want: []string{`field "query"`, "lone surrogate"}, field: "query"},
		{name: "rerank query with an encoded surrogate", kind: jobs.KindRerank, raw: "{\"task_id\":1,\"query\":\"\xed\xa0\x80 ice\"}",
			want: []string{`field "query"`, "invalid UTF-8"}, field: "query"},
		{name: "key with invalid UTF-8", kind: jobs.KindRerank, raw: "{\"task_id\":1,\"qu\xffery\":\"ice\"}",
			want: []string{`field "a key"`, "invalid UTF-8"}, field: "a key"},
		{name: "query with a NUL", kind: tq, raw: `{"task_id":1,"target":{"kind":"query","value":"sea\u0000ice"}}`,
			want: []string{`field "target.value"`, "control character U+0000"}, field: "target.value"},
		{name: "depth past int32", kind: tq, raw: `{"task_id":1,"target":{"kind":"url","value":"https://e.com/"},"depth":4294967296}`,
			want: []string{`field "depth"`, "outside 0–100"}, field: "depth"},

		// Not one JSON object.
		{name: "trailing object", kind: tq, raw: `{"task_id":1,"target":{"kind":"url","value":"https://e.com/"}}{"task_id":2}`,
			want: []string{"trailing data"}},
		{name: "trailing garbage", kind: jobs.KindVerifyNLI, raw: `{"task_id":1} x`, want: []string{"trailing data"}},
		{name: "array", kind: tq, raw: `[]`, want: []string{"expected a JSON object", "array"}},
		{name: "array of args", kind: jobs.KindVerifyNLI, raw: `[{"task_id":1}]`, want: []string{"expected a JSON object", "array"}},
		{name: "number", kind: jobs.KindCleanup, raw: `42`, want: []string{"expected a JSON object", "number"}},
		{name: "string", kind: jobs.KindEmbed, raw: `"x"`, want: []string{"expected a JSON object", "string"}},
		{name: "null target_queue", kind: tq, raw: `null`, want: []string{"expected a JSON object, got null"}, field: ""},
		{name: "null embed", kind: jobs.KindEmbed, raw: `null`, want: []string{"expected a JSON object, got null"}, field: ""},
		{name: "empty input", kind: jobs.KindVerifyNLI, raw: ``, want: []string{"empty args"}},
		{name: "malformed json", kind: jobs.KindRerank, raw: `{"task_id":1`, want: []string{"invalid rerank args"}},

		// Cleanup mode.
		{name: "cleanup mode missing", kind: jobs.KindCleanup, raw: `{"task_id":1}`, want: []string{`field "mode"`, "required"}, field: "mode"},
		{name: "cleanup mode empty", kind: jobs.KindCleanup, raw: `{"task_id":1,"mode":""}`, want: []string{`field "mode"`, "required"}, field: "mode"},
		{name: "cleanup mode unknown", kind: jobs.KindCleanup, raw: `{"task_id":1,"mode":"nuke"}`, want: []string{`field "mode"`, `"nuke"`}, field: "mode"},
		{name: "cleanup orphans with a task", kind: jobs.KindCleanup, raw: `{"task_id":1,"mode":"orphans"}`, want: []string{`field "task_id"`, "absent"}, field: "task_id"},
		{name: "cleanup mode wrong case", kind: jobs.KindCleanup, raw: `{"task_id":1,"mode":"Soft"}`, want: []string{`field "mode"`}, field: "mode"},

		// Embed: exactly one of fragment_ids and page_version_id.
		{name: "embed neither", kind: jobs.KindEmbed, raw: `{"task_id":1}`, want: []string{`field "fragment_ids"`, "required"}, field: "fragment_ids"},
		{name: "embed empty list", kind: jobs.KindEmbed, raw: `{"fragment_ids":[]}`, want: []string{`field "fragment_ids"`, "required"}, field: "fragment_ids"},
		{name: "embed both", kind: jobs.KindEmbed, raw: `{"fragment_ids":[1],"page_version_id":2}`,
			want: []string{`field "page_version_id"`, "not both"}, field: "page_version_id"},
		{name: "embed too many ids", kind: jobs.KindEmbed, raw: tooManyFragmentIDs(),
			want: []string{`field "fragment_ids"`, "at most"}, field: "fragment_ids"},
	}
	runParseCases(t, cases)
}

func tooManyFragmentIDs() string {
	var b strings.Builder
	b.WriteString(`{"fragment_ids":[`)
	for i := 1; i <= jobs.MaxEmbedFragments+1; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		b.WriteString("1")
	}
	b.WriteString(`]}`)
	return b.String()
}

func runParseCases(t *testing.T, cases []parseCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.kind+"/"+tc.name, func(t *testing.T) {
			t.Parallel()
			problem := checkParse(tc)
			if problem == "" {
				if tc.knownBug != "" {
					t.Errorf("known bug %q seems fixed: remove the knownBug marker", tc.knownBug)
				}
				return
			}
			if tc.knownBug != "" {
				t.Skipf("KNOWN BUG: %s (%s)", tc.knownBug, problem)
			}
			t.Error(problem)
		})
	}
}

// checkParse runs ParseArgs and returns what is wrong with the outcome, or "".
func checkParse(tc parseCase) string {
	v, err := jobs.ParseArgs(tc.kind, []byte(tc.raw))
	if len(tc.want) == 0 {
		if err != nil {
			return "ParseArgs(" + tc.raw + ") = " + err.Error() + ", want no error"
		}
		if v == nil || v.Kind() != tc.kind {
			return "ParseArgs returned args of the wrong kind"
		}
		return ""
	}
	if err == nil {
		return "ParseArgs(" + tc.raw + ") accepted the args, want an error containing " + strings.Join(tc.want, ", ")
	}
	if v != nil {
		return "ParseArgs returned args together with an error"
	}
	var ae *jobs.ArgsError
	if !errors.As(err, &ae) {
		return "error is not a *jobs.ArgsError: " + err.Error()
	}
	if ae.Kind != tc.kind {
		return "ArgsError.Kind = " + ae.Kind + ", want " + tc.kind
	}
	if ae.Field != tc.field {
		return "ArgsError.Field = " + strconvQuote(ae.Field) + ", want " + strconvQuote(tc.field) + " (error: " + err.Error() + ")"
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "invalid "+tc.kind+" args") {
		return "error " + strconvQuote(msg) + " does not start with " + strconvQuote("invalid "+tc.kind+" args")
	}
	for _, w := range tc.want {
		if !strings.Contains(msg, w) {
			return "error " + strconvQuote(msg) + " does not contain " + strconvQuote(w)
		}
	}
	return ""
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestParseArgsRejectsUnknownKind(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"", "bogus", "Target_Queue", "target-queue"} {
		v, err := jobs.ParseArgs(kind, []byte(`{"task_id":1}`))
		if err == nil || v != nil {
			t.Errorf("ParseArgs(%q) = %v, %v; want an error", kind, v, err)
			continue
		}
		if !strings.Contains(err.Error(), "unknown job kind") || !strings.Contains(err.Error(), jobs.KindTargetQueue) {
			t.Errorf("ParseArgs(%q) error %q should say the kind is unknown and list the kinds", kind, err)
		}
	}
}

// TestArgsJSONIsThePublicContract pins the JSON each args type marshals to
// (what River stores in river_job.args and what other services write) and
// checks it parses back to the same value.
func TestArgsJSONIsThePublicContract(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args     jobs.Args
		wantJSON string
	}{
		{jobs.TargetQueueArgs{TaskID: 7, Target: jobs.Target{Kind: jobs.TargetURL, Value: "https://example.com/a"}},
			`{"task_id":7,"target":{"kind":"url","value":"https://example.com/a"}}`},
		{jobs.TargetQueueArgs{TaskID: 7, Target: jobs.Target{Kind: jobs.TargetQuery, Value: "sea ice"}, Depth: 2},
			`{"task_id":7,"target":{"kind":"query","value":"sea ice"},"depth":2}`},
		{jobs.EmbedArgs{TaskID: 3, FragmentIDs: []int64{1, 2, 3}},
			`{"task_id":3,"fragment_ids":[1,2,3]}`},
		{jobs.EmbedArgs{PageVersionID: 11},
			`{"page_version_id":11}`},
		{jobs.VerifyNLIArgs{TaskID: 4},
			`{"task_id":4}`},
		{jobs.VerifyNLIArgs{TaskID: 4, PageID: int64Ptr(9), ClaimIDs: []int64{5, 6}},
			`{"task_id":4,"page_id":9,"claim_ids":[5,6]}`},
		{jobs.VerifyShard(4, 128, 191),
			`{"task_id":4,"claim_from":128,"claim_to":191}`},
		{jobs.RerankArgs{TaskID: 5, Query: "polar bears", TopK: 20},
			`{"task_id":5,"query":"polar bears","top_k":20}`},
		{jobs.RerankArgs{TaskID: 5},
			`{"task_id":5}`},
		{jobs.CitationGraphArgs{TaskID: 6, PageID: 8},
			`{"task_id":6,"page_id":8}`},
		{jobs.CleanupArgs{TaskID: 2, Mode: jobs.CleanupHard},
			`{"task_id":2,"mode":"hard"}`},
		{jobs.RecheckArgs{}, `{}`},
		{jobs.RecheckArgs{TaskID: 3}, `{"task_id":3}`},
		{jobs.RecheckArgs{TaskID: 3, PageID: 12}, `{"task_id":3,"page_id":12}`},
		{jobs.RecheckArgs{TaskID: 3, PageFrom: 12}, `{"task_id":3,"page_from":12}`},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		seen[tc.args.Kind()] = true // here, not in the parallel subtest, which runs after the check below
		t.Run(tc.args.Kind(), func(t *testing.T) {
			t.Parallel()
			if err := tc.args.Validate(); err != nil {
				t.Fatalf("Validate(%+v) = %v", tc.args, err)
			}
			b, err := json.Marshal(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.wantJSON {
				t.Errorf("json.Marshal = %s\nwant           %s", b, tc.wantJSON)
			}
			got, err := jobs.ParseArgs(tc.args.Kind(), b)
			if err != nil {
				t.Fatalf("ParseArgs(%s) = %v", b, err)
			}
			if !reflect.DeepEqual(got, tc.args) {
				t.Errorf("round trip changed the args:\n got %#v\nwant %#v", got, tc.args)
			}
			// River decodes stored args with json.Unmarshal into the worker's
			// args type: that path must give the same value.
			ptr := reflect.New(reflect.TypeOf(tc.args))
			if err := json.Unmarshal(b, ptr.Interface()); err != nil {
				t.Fatalf("json.Unmarshal(%s) = %v", b, err)
			}
			back := ptr.Elem().Interface().(jobs.Args)
			if err := back.Validate(); err != nil {
				t.Errorf("Validate after json.Unmarshal = %v", err)
			}
			if !reflect.DeepEqual(back, tc.args) {
				t.Errorf("json.Unmarshal changed the args:\n got %#v\nwant %#v", back, tc.args)
			}
		})
	}
	for _, k := range allKinds {
		if !seen[k] {
			t.Errorf("kind %s has no contract case", k)
		}
	}
}

// TestWorkerDecodingKeepsTheProblemForValidate checks the path River takes:
// json.Unmarshal into the args type must not fail (or River would retry the
// job), and Validate must report the problem so the worker cancels it.
func TestWorkerDecodingKeepsTheProblemForValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind, raw, want string
	}{
		{jobs.KindTargetQueue, `{"task_id":"1","target":{"kind":"url","value":"https://e.com/"}}`, `field "task_id"`},
		{jobs.KindTargetQueue, `{"task_id":1,"target":{"kind":"url","value":"https://e.com/"},"x":1}`, `field "x"`},
		{jobs.KindTargetQueue, `[]`, "expected a JSON object"},
		{jobs.KindEmbed, `{"fragment_ids":{}}`, `field "fragment_ids"`},
		{jobs.KindVerifyNLI, `42`, "expected a JSON object"},
		{jobs.KindRerank, `{"task_id":1,"q":1}`, `field "q"`},
		{jobs.KindCitationGraph, `{"task_id":1,"page_id":[]}`, `field "page_id"`},
		{jobs.KindCleanup, `{"task_id":1,"mode":1}`, `field "mode"`},
		{jobs.KindRecheck, `{"task_id":1,"page":2}`, `field "page"`},
		{jobs.KindRecheck, `{"page_id":2}`, `field "task_id": required with page_id`},
		{jobs.KindRecheck, `{"task_id":1,"page_id":2,"page_from":3}`, `field "page_from": must be absent`},
		{jobs.KindRecheck, `{"task_id":-1}`, `field "task_id": must be a positive`},
		// encoding/json turns both into U+FFFD before the args type sees a
		// string; the contract refuses them instead.
		{jobs.KindRerank, `{"task_id":1,"query":"sea ice \ud800"}`, `field "query": lone surrogate`},
		{jobs.KindTargetQueue, "{\"task_id\":1,\"target\":{\"kind\":\"query\",\"value\":\"sea \xff ice\"}}", `field "target.value": invalid UTF-8`},
	}
	zero := map[string]func() any{
		jobs.KindTargetQueue:   func() any { return &jobs.TargetQueueArgs{} },
		jobs.KindEmbed:         func() any { return &jobs.EmbedArgs{} },
		jobs.KindVerifyNLI:     func() any { return &jobs.VerifyNLIArgs{} },
		jobs.KindRerank:        func() any { return &jobs.RerankArgs{} },
		jobs.KindCitationGraph: func() any { return &jobs.CitationGraphArgs{} },
		jobs.KindCleanup:       func() any { return &jobs.CleanupArgs{} },
		jobs.KindRecheck:       func() any { return &jobs.RecheckArgs{} },
	}
	for _, tc := range cases {
		t.Run(tc.kind+"/"+tc.raw, func(t *testing.T) {
			t.Parallel()
			p := zero[tc.kind]()
			if err := json.Unmarshal([]byte(tc.raw), p); err != nil {
				t.Fatalf("json.Unmarshal(%s) = %v; want nil so the worker can cancel the job itself", tc.raw, err)
			}
			v := reflect.ValueOf(p).Elem().Interface().(jobs.Args)
			err := v.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestArgsKindsQueuesAndPriorities(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args interface {
			river.JobArgs
			river.JobArgsWithInsertOpts
		}
		kind     string
		queue    string
		priority int
		unique   bool // documented as unique by args
	}{
		{jobs.TargetQueueArgs{}, "target_queue", "target", 1, true},
		{jobs.EmbedArgs{}, "embed", "embed", 1, false},
		{jobs.VerifyNLIArgs{}, "verify_nli", "nli", 2, true},
		{jobs.RerankArgs{}, "rerank", "rerank", 2, true},
		{jobs.CitationGraphArgs{}, "citation_graph", "citation", 4, true},
		{jobs.CleanupArgs{}, "cleanup", "maintenance", 3, true},
		{jobs.RecheckArgs{}, "recheck", "target", 4, true},
	}
	queues := map[string]bool{}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel()
			if got := tc.args.Kind(); got != tc.kind {
				t.Errorf("Kind() = %q, want %q", got, tc.kind)
			}
			opts := tc.args.InsertOpts()
			if opts.Queue != tc.queue {
				t.Errorf("InsertOpts().Queue = %q, want %q", opts.Queue, tc.queue)
			}
			if opts.Priority != tc.priority {
				t.Errorf("InsertOpts().Priority = %d, want %d", opts.Priority, tc.priority)
			}
			if opts.MaxAttempts <= 1 {
				t.Errorf("InsertOpts().MaxAttempts = %d, want retries for transient failures", opts.MaxAttempts)
			}
			if opts.UniqueOpts.ByArgs != tc.unique {
				t.Errorf("InsertOpts().UniqueOpts.ByArgs = %v, want %v", opts.UniqueOpts.ByArgs, tc.unique)
			}
		})
		queues[tc.queue] = true
	}
	for _, q := range jobs.AllQueues {
		if !queues[q] {
			t.Errorf("queue %q of AllQueues has no kind", q)
		}
	}
	if len(queues) != len(jobs.AllQueues) {
		t.Errorf("kinds use %d queues, AllQueues lists %d", len(queues), len(jobs.AllQueues))
	}
}

// TestTaskOfReadsTheTaskOfEveryKind checks that TaskOf finds the task_id of
// every kind's args as River stores them, and no task where there is none
// or the args are refused.
func TestTaskOfReadsTheTaskOfEveryKind(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind, args string
		want       int64
		ok         bool
	}{
		{jobs.KindTargetQueue, `{"task_id":7,"target":{"kind":"url","value":"https://example.com/a"}}`, 7, true},
		{jobs.KindEmbed, `{"task_id":3,"fragment_ids":[1]}`, 3, true},
		{jobs.KindEmbed, `{"page_version_id":11}`, 0, false},
		{jobs.KindVerifyNLI, `{"task_id":4,"claim_from":1,"claim_to":9}`, 4, true},
		{jobs.KindRerank, `{"task_id":5}`, 5, true},
		{jobs.KindCitationGraph, `{"task_id":6,"page_id":8}`, 6, true},
		{jobs.KindCleanup, `{"task_id":2,"mode":"soft"}`, 2, true},
		{jobs.KindCleanup, `{"mode":"orphans"}`, 0, false},
		{jobs.KindRecheck, `{"task_id":3,"page_id":4}`, 3, true},
		{jobs.KindRecheck, `{}`, 0, false},
		{jobs.KindRerank, `{"task_id":5,"bogus":1}`, 0, false},
		{"no_such_kind", `{"task_id":5}`, 0, false},
	}
	kinds := map[string]bool{}
	for _, tc := range cases {
		kinds[tc.kind] = true
		got, ok := jobs.TaskOf(tc.kind, []byte(tc.args))
		if got != tc.want || ok != tc.ok {
			t.Errorf("TaskOf(%s, %s) = %d, %v; want %d, %v", tc.kind, tc.args, got, ok, tc.want, tc.ok)
		}
	}
	for _, k := range jobs.Kinds() {
		if !kinds[k] {
			t.Errorf("kind %s has no case", k)
		}
	}
}
