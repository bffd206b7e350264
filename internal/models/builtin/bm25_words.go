// The words of BM25Reranker: which are stop words, which are kept as
// written, and the irregular forms the stemmer maps to their base.

package builtin

import "strings"

// bm25Stop are the words BM25Reranker ignores: the shared English function
// words and a few vague pronouns and adverbs (bm25StopExtra).
var bm25Stop = wordSet(stopWordList, bm25StopExtra)

// bm25Unstemmed are words BM25Reranker keeps as written: negations, hedges
// and the function words that strengthen a statement ("all", "only",
// "because"), which the shared stop-word list does not hold.
var bm25Unstemmed = wordSet(negationWords, hedgeWords, claimWords)

// wordSet is the set of the words of lists.
func wordSet(lists ...[]string) map[string]bool {
	m := map[string]bool{}
	for _, l := range lists {
		for _, w := range l {
			m[w] = true
		}
	}
	return m
}

// negationWords negate what follows.
var negationWords = []string{
	"not", "no", "never", "none", "nobody", "nothing", "nowhere", "neither", "nor",
	"without", "cannot", "noone", "unable", "hardly", "barely", "scarcely",
	"lack", "lacks", "lacked", "lacking",
}

// hedgeWords weaken a statement.
var hedgeWords = []string{
	"may", "might", "could", "possibly", "perhaps", "probably", "likely", "maybe",
	"suggest", "suggests", "suggested", "appear", "appears", "seem", "seems", "reportedly",
	"allegedly", "potentially", "presumably", "unclear", "uncertain", "apparently",
	"supposedly", "arguably", "conceivably", "rumored", "rumoured",
}

// claimWords are function words that strengthen a statement.
var claimWords = []string{"all", "only", "because"}

// irregularForms maps irregular inflections to their base form; comparatives
// listed with themselves are protected from suffix stripping.
var irregularForms = map[string]string{
	"men": "man", "women": "woman", "children": "child", "people": "person", "feet": "foot",
	"teeth": "tooth", "mice": "mouse", "geese": "goose", "kids": "kid", "gentlemen": "gentleman",
	"firemen": "fireman", "policemen": "policeman", "businessmen": "businessman",
	"fishermen": "fisherman", "wives": "wife", "knives": "knife", "leaves": "leaf",
	"lives": "life", "wolves": "wolf", "shelves": "shelf", "halves": "half", "loaves": "loaf",
	"is": "be", "are": "be", "was": "be", "were": "be", "been": "be", "am": "be", "being": "be",
	"has": "have", "had": "have", "does": "do", "did": "do", "done": "do",
	"sat": "sit", "ran": "run", "ate": "eat", "eaten": "eat", "went": "go",
	"gone": "go", "sang": "sing", "sung": "sing", "wore": "wear", "worn": "wear", "rode": "ride",
	"drove": "drive", "driven": "drive", "took": "take", "taken": "take",
	"gave": "give", "given": "give", "saw": "see", "seen": "see", "bought": "buy", "sold": "sell",
	"won": "win", "lost": "lose", "fell": "fall", "fallen": "fall", "rose": "rise", "risen": "rise",
	"grew": "grow", "grown": "grow", "made": "make", "held": "hold", "found": "find",
	"thought": "think", "brought": "bring", "told": "tell", "said": "say", "kept": "keep",
	"slept": "sleep", "swam": "swim", "swum": "swim", "threw": "throw", "thrown": "throw",
	"wrote": "write", "written": "write", "spoke": "speak", "spoken": "speak", "began": "begin",
	"begun": "begin", "broke": "break", "broken": "break", "chose": "choose", "chosen": "choose",
	"flew": "fly", "flown": "fly", "forgot": "forget", "forgotten": "forget", "taught": "teach",
	"caught": "catch", "fought": "fight", "dug": "dig", "hung": "hang", "led": "lead", "met": "meet",
	"paid": "pay", "sent": "send", "spent": "spend", "built": "build", "felt": "feel", "heard": "hear",
	"knew": "know", "known": "know", "meant": "mean", "understood": "understand", "woke": "wake",
	"woken": "wake", "drew": "draw", "drawn": "draw", "drank": "drink", "drunk": "drunk",
	"lain": "lie", "shook": "shake", "shaken": "shake", "stole": "steal", "stolen": "steal",
	"sank": "sink", "sunk": "sink", "struck": "strike", "swung": "swing", "tore": "tear",
	"torn": "tear", "won't": "will", "got": "get", "gotten": "get", "came": "come", "became": "become",
	"hid": "hide", "hidden": "hide", "bitten": "bite",
	"blew": "blow", "blown": "blow", "bent": "bend", "bled": "bleed", "bred": "breed",
	"dealt": "deal", "dived": "dive", "fed": "feed", "fled": "flee",
	"froze": "freeze", "frozen": "freeze", "ground": "ground", "knelt": "kneel", "kneeled": "kneel",
	"laid": "lay", "leapt": "leap", "leaped": "leap", "lent": "lend", "lit": "light",
	"slid": "slide", "spun": "spin", "stuck": "stick", "stung": "sting", "swept": "sweep",
	"wept": "weep", "wound": "wound", "withdrew": "withdraw", "overcame": "overcome",
	"shot": "shoot", "shut": "shut", "sped": "speed", "stank": "stink", "strode": "stride",
	"sought": "seek", "sewn": "sew", "shone": "shine", "shrank": "shrink", "shrunk": "shrink",
	"sprang": "spring", "sprung": "spring", "underwent": "undergo", "wove": "weave",
	"better": "better", "best": "best", "worse": "worse", "worst": "worst",
	"larger": "larger", "smaller": "smaller", "bigger": "bigger", "higher": "higher", "lower": "lower",
	"warmer": "warmer", "cooler": "cooler", "hotter": "hotter", "colder": "colder",
	"faster": "faster", "slower": "slower", "earlier": "earlier", "later": "later",
	"older": "older", "younger": "younger", "longer": "longer", "shorter": "shorter",
	"taller": "taller", "heavier": "heavier", "lighter": "lighter", "stronger": "stronger",
	"weaker": "weaker", "richer": "richer", "poorer": "poorer", "easier": "easier",
	"harder": "harder", "cheaper": "cheaper", "pricier": "pricier",
	"less": "less", "news": "news", "species": "species", "series": "series", "clothes": "clothes",
	"pants": "pants", "jeans": "jeans", "shorts": "shorts", "glasses": "glasses", "sunglasses": "sunglasses",
	"woods": "woods", "skis": "ski",
	"huge": "huge", "wine": "wine", "wines": "wine", "hate": "hate", "hates": "hate", "hated": "hate",
	"hating": "hate", "lovely": "lovely", "deserted": "deserted", "t-shirt": "tshirt", "outdoors": "outdoors", "indoors": "indoors",
	"always": "always", "sometimes": "sometimes", "during": "during", "nothing": "nothing",
	"everything": "everything", "something": "something", "anything": "anything", "ones": "one",
	"others": "other", "lots": "lot", "things": "thing", "stairs": "stair", "downstairs": "downstairs",
	"upstairs": "upstairs", "alone": "alone", "police": "police", "bus": "bus", "gas": "gas",
	"physics": "physics", "economics": "economics", "politics": "politics", "mathematics": "mathematics",
	"christmas": "christmas", "olympics": "olympics", "riding": "ride", "ridding": "rid",
	"lying": "lie", "dying": "die", "tying": "tie", "wedding": "wedding", "building": "building",
	"clothing": "clothing", "evening": "evening", "morning": "morning", "ceiling": "ceiling",
	"bowling": "bowling", "boxing": "boxing", "wrestling": "wrestling", "spring": "spring", "string": "string", "king": "king",
	"ring": "ring", "wing": "wing", "sing": "sing", "bring": "bring", "sling": "sling", "swing": "swing",
	"ceilings": "ceiling", "buildings": "building", "weddings": "wedding",
	"evenings": "evening", "mornings": "morning",
}

// isNumber reports whether w starts with a digit.
func isNumber(w string) bool { return w != "" && w[0] >= '0' && w[0] <= '9' }

// normaliseNumber drops thousands separators and trailing fraction zeros.
func normaliseNumber(w string) string {
	w = strings.ReplaceAll(w, ",", "")
	if strings.Contains(w, ".") {
		w = strings.TrimRight(w, "0")
		w = strings.TrimSuffix(w, ".")
	}
	return w
}
