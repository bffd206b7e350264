package verification

import (
	"regexp"
	"strings"
)

// dangerousPatterns are texts that try to instruct a model rather than
// inform a reader, in English and Japanese (the languages of the fleet's
// design documents). Each names what it catches; they are kept narrow
// ("you are now" alone is everyday English) because a match blocks a domain
// nobody vouched for.
//
// Each pattern has words one of which any match holds (lower case): the
// regular expression runs only on a page that has one.
var dangerousPatterns = []struct {
	name  string
	words []string
	re    *regexp.Regexp
}{
	{"ignore previous instructions", []string{"ignore", "disregard", "forget", "override"}, regexp.MustCompile(`(?i)\b(ignore|disregard|forget|override)\s+(all\s+|any\s+|the\s+)?(previous|prior|above|earlier|preceding|your)\s+(instructions|prompts?|directions|rules|guidelines)\b`)},
	{"new instructions for the model", []string{"instructions"}, regexp.MustCompile(`(?i)\b(new|updated|real)\s+instructions\s*:\s*(you|the (assistant|model|ai))\b`)},
	{"you are now a different model", []string{"you are now"}, regexp.MustCompile(`(?i)\byou\s+are\s+now\s+(a|an|in)\s+(\w+\s+){0,3}(ai|assistant|model|chatbot|mode|jailbroken|dan)\b`)},
	{"do anything now", []string{"do anything now"}, regexp.MustCompile(`(?i)\bDAN\b.{0,40}\bdo anything now\b|\bdo anything now\b.{0,40}\bDAN\b`)},
	{"reveal the system prompt", []string{"prompt", "instructions"}, regexp.MustCompile(`(?i)\b(reveal|print|show|output|repeat)\s+(your|the)\s+(system\s+prompt|hidden\s+instructions|initial\s+instructions)\b`)},
	{"chat-template tokens", []string{"<|", "[inst]", "[/inst]", "<<sys>>"}, regexp.MustCompile(`<\|(im_start|im_end|system|endoftext)\|>|\[/?INST\]|<<SYS>>`)},
	{"以前の指示を無視", []string{"無視", "忘れ"}, regexp.MustCompile(`(以前|これまで|前|上記|先ほど)の(すべての|全ての)?(指示|命令|プロンプト|ルール)を(無視|忘れ)`)},
	{"あなたは今から", []string{"あなたは"}, regexp.MustCompile(`あなたは(今から|これから)(.{0,20})(AI|アシスタント|モデル|として振る舞)`)},
	{"システムプロンプトを表示", []string{"システムプロンプト"}, regexp.MustCompile(`システムプロンプトを(表示|出力|教え|見せ)`)},
}

// MaxScan bounds how much of a page DangerousPattern reads.
const MaxScan = 1 << 20

// DangerousPattern reports the first text in s that tries to instruct a
// model, by the pattern's name, reading at most MaxScan bytes.
func DangerousPattern(s string) (name string, found bool) {
	if len(s) > MaxScan {
		s = s[:MaxScan] // a rune cut in two reads as U+FFFD
	}
	s = strings.Join(strings.Fields(s), " ")
	lower := strings.ToLower(s)
	for _, p := range dangerousPatterns {
		if holdsAny(lower, p.words) && p.re.MatchString(s) {
			return p.name, true
		}
	}
	return "", false
}

func holdsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
