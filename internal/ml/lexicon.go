package ml

// Small built-in English lexicon of LexicalNLI. Entries are written as plain
// words; they are stemmed with the same stemmer as the input at package
// initialisation, so inflected forms match too.

// negationWords negate the statement they occur in. "fail", "refuse" and
// "unable" count only when followed by "to" (handled in code for the first
// two).
var negationWords = []string{
	"not", "no", "never", "none", "nobody", "nothing", "nowhere", "neither", "nor",
	"without", "cannot", "noone", "unable",
}

// negationBeforeTo are verbs that negate when followed by "to" ("failed to").
var negationBeforeTo = []string{"fail", "refuse", "decline"}

// hedgeWords weaken a statement; they lower the confidence of a verdict.
var hedgeWords = []string{
	"may", "might", "could", "possibly", "perhaps", "probably", "likely", "maybe",
	"suggest", "suggests", "appear", "appears", "seem", "seems", "reportedly",
	"allegedly", "potentially", "presumably", "unclear", "uncertain",
}

// universalWords and negUniversalWords are quantifiers that conflict.
var (
	universalWords    = []string{"all", "every", "everyone", "everybody", "everything", "always"}
	negUniversalWords = []string{"none", "nobody", "nothing", "never", "noone", "no"}
)

// antonymPairs are words whose joint use (one in the premise, the other in
// the hypothesis) signals a contradiction.
var antonymPairs = [][2]string{
	{"increase", "decrease"}, {"increase", "reduce"}, {"increase", "decline"}, {"rise", "fall"},
	{"rise", "decline"}, {"rise", "drop"}, {"grow", "shrink"}, {"expand", "shrink"},
	{"gain", "loss"}, {"gain", "lose"}, {"profit", "loss"}, {"win", "lose"}, {"winner", "loser"},
	{"more", "less"}, {"more", "fewer"}, {"most", "least"}, {"many", "few"},
	{"higher", "lower"}, {"high", "low"}, {"larger", "smaller"}, {"bigger", "smaller"},
	{"large", "small"}, {"big", "small"}, {"big", "little"}, {"large", "little"}, {"tall", "short"},
	{"long", "short"}, {"wide", "narrow"}, {"thick", "thin"}, {"heavy", "light"},
	{"warm", "cool"}, {"warmer", "cooler"}, {"hot", "cold"}, {"hotter", "colder"}, {"warm", "cold"},
	{"true", "false"}, {"correct", "incorrect"}, {"right", "wrong"}, {"accurate", "inaccurate"},
	{"accept", "reject"}, {"approve", "reject"}, {"support", "oppose"}, {"agree", "disagree"},
	{"allow", "forbid"}, {"allow", "prohibit"}, {"allow", "ban"}, {"legal", "illegal"},
	{"include", "exclude"}, {"present", "absent"}, {"possible", "impossible"},
	{"likely", "unlikely"}, {"able", "unable"}, {"known", "unknown"}, {"visible", "invisible"},
	{"safe", "dangerous"}, {"safe", "unsafe"}, {"cheap", "expensive"}, {"rich", "poor"},
	{"strong", "weak"}, {"easy", "difficult"}, {"easy", "hard"}, {"simple", "complex"},
	{"good", "bad"}, {"better", "worse"}, {"best", "worst"}, {"improve", "worsen"},
	{"success", "failure"}, {"succeed", "fail"}, {"positive", "negative"}, {"benefit", "harm"},
	{"maximum", "minimum"}, {"majority", "minority"}, {"import", "export"}, {"buy", "sell"},
	{"push", "pull"}, {"open", "closed"}, {"open", "shut"}, {"full", "empty"}, {"wet", "dry"},
	{"fast", "slow"}, {"faster", "slower"}, {"quick", "slow"}, {"early", "late"},
	{"earlier", "later"}, {"before", "after"}, {"first", "last"}, {"begin", "end"},
	{"start", "finish"}, {"start", "stop"}, {"start", "end"}, {"enter", "exit"},
	{"arrive", "leave"}, {"arrive", "depart"}, {"remember", "forget"}, {"love", "hate"},
	{"like", "dislike"}, {"happy", "sad"}, {"happy", "unhappy"}, {"calm", "angry"},
	{"clean", "dirty"}, {"quiet", "loud"}, {"quiet", "noisy"}, {"light", "dark"},
	{"day", "night"}, {"summer", "winter"}, {"sunny", "rainy"}, {"young", "old"}, {"new", "old"},
	{"ancient", "modern"}, {"alive", "dead"}, {"live", "die"}, {"asleep", "awake"},
	{"sleep", "awake"}, {"sit", "stand"}, {"inside", "outside"}, {"indoors", "outdoors"},
	{"indoor", "outdoor"}, {"above", "below"}, {"up", "down"}, {"top", "bottom"},
	{"north", "south"}, {"east", "west"}, {"public", "private"}, {"common", "rare"},
	{"same", "different"}, {"man", "woman"}, {"men", "women"}, {"boy", "girl"},
	{"male", "female"}, {"husband", "wife"}, {"father", "mother"}, {"son", "daughter"},
	{"brother", "sister"}, {"king", "queen"}, {"cause", "prevent"}, {"raise", "lower"},
	{"always", "never"}, {"everyone", "nobody"}, {"everything", "nothing"}, {"all", "none"},
	{"guilty", "innocent"}, {"friend", "enemy"}, {"peace", "war"}, {"victory", "defeat"},
	{"present", "past"}, {"future", "past"}, {"land", "sea"}, {"wet", "dry"},
}

// exclusiveGroups are sets of mutually exclusive alternatives (a weaker
// contradiction cue than antonyms: a text can mention several of them).
var exclusiveGroups = [][]string{
	{"red", "blue", "green", "yellow", "black", "white", "orange", "purple", "pink", "brown", "gray", "grey"},
	{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"},
	{"january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december"},
	{"dog", "cat", "horse", "cow", "bird", "fish"},
	{"sit", "stand", "lie", "kneel", "run", "walk", "sleep"},
}

// hypernyms maps a specific word to more general words it implies (premise
// "woman" covers hypothesis "person").
var hypernyms = map[string][]string{
	"man": {"person", "adult", "male", "guy", "human", "someone"}, "woman": {"person", "adult", "female", "lady", "human", "someone"},
	"boy": {"person", "child", "kid", "male", "human", "someone"}, "girl": {"person", "child", "kid", "female", "human", "someone"},
	"child": {"person", "kid", "human", "someone"}, "kid": {"person", "child", "human", "someone"},
	"baby": {"person", "child", "kid", "infant", "human", "someone"}, "toddler": {"person", "child", "kid", "human", "someone"},
	"guy": {"person", "man", "male", "human", "someone"}, "lady": {"person", "woman", "female", "human", "someone"},
	"gentleman": {"person", "man", "male", "human", "someone"}, "teenager": {"person", "teen", "human", "someone"},
	"adult": {"person", "human", "someone"}, "player": {"person", "someone"}, "worker": {"person", "someone"},
	"student": {"person", "someone"}, "teacher": {"person", "someone"}, "doctor": {"person", "someone"},
	"person": {"someone", "human", "individual"}, "individual": {"person", "someone"},
	"dog": {"animal", "pet"}, "puppy": {"dog", "animal", "pet"}, "cat": {"animal", "pet"}, "kitten": {"cat", "animal", "pet"},
	"horse": {"animal"}, "cow": {"animal"}, "sheep": {"animal"}, "bird": {"animal"}, "fish": {"animal"},
	"car": {"vehicle"}, "truck": {"vehicle"}, "bus": {"vehicle"}, "van": {"vehicle"}, "motorcycle": {"vehicle", "bike"},
	"bicycle": {"bike", "vehicle"}, "bike": {"bicycle", "vehicle"}, "boat": {"vessel"}, "ship": {"vessel", "boat"},
	"guitar": {"instrument"}, "piano": {"instrument"}, "violin": {"instrument"}, "drum": {"instrument"},
	"guitarist": {"musician"}, "drummer": {"musician"}, "pianist": {"musician"}, "singer": {"musician", "performer"},
	"street": {"road"}, "road": {"street"}, "shop": {"store"}, "store": {"shop"},
	"photo": {"picture", "photograph"}, "photograph": {"picture", "photo"}, "picture": {"photo", "image"},
	"large": {"big"}, "big": {"large"}, "little": {"small"}, "small": {"little"}, "tiny": {"small", "little"},
	"huge": {"big", "large"}, "outdoors": {"outside"}, "outside": {"outdoors"}, "indoors": {"inside"}, "inside": {"indoors"},
	"sea": {"ocean", "water"}, "ocean": {"sea", "water"}, "lake": {"water"}, "river": {"water"}, "pool": {"water"},
	"begin": {"start"}, "start": {"begin"}, "purchase": {"buy"}, "buy": {"purchase"}, "talk": {"speak"}, "speak": {"talk"},
	"sofa": {"couch"}, "couch": {"sofa"}, "job": {"work"}, "automobile": {"car"}, "glad": {"happy"},
	"sprint": {"run"}, "jog": {"run"}, "stroll": {"walk"}, "nap": {"sleep"}, "shout": {"yell"}, "yell": {"shout"},
	"city": {"town", "place"}, "town": {"place"}, "country": {"nation", "place"}, "nation": {"country"},
	"government": {"state"}, "physician": {"doctor"}, "professor": {"teacher"}, "chef": {"cook"},
	"rise": {"increase"}, "grow": {"increase"}, "fall": {"decrease"}, "drop": {"decrease", "fall"},
	"decline": {"decrease"}, "reduce": {"decrease"},
}

// irregularForms maps irregular inflections to their base form.
var irregularForms = map[string]string{
	"men": "man", "women": "woman", "children": "child", "people": "person", "feet": "foot",
	"teeth": "tooth", "mice": "mouse", "geese": "goose", "kids": "kid",
	"is": "be", "are": "be", "was": "be", "were": "be", "been": "be", "am": "be",
	"has": "have", "had": "have", "does": "do", "did": "do", "done": "do",
	"sat": "sit", "stood": "stand", "ran": "run", "ate": "eat", "eaten": "eat", "went": "go",
	"gone": "go", "sang": "sing", "sung": "sing", "wore": "wear", "worn": "wear", "rode": "ride",
	"ridden": "ride", "drove": "drive", "driven": "drive", "took": "take", "taken": "take",
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
	"drew": "draw", "drawn": "draw", "drank": "drink", "drunk": "drink", "lay": "lie", "lain": "lie",
	"shook": "shake", "shaken": "shake", "stole": "steal", "stolen": "steal", "sank": "sink",
	"struck": "strike", "swung": "swing", "tore": "tear", "torn": "tear", "won't": "will",
	"better": "better", "best": "best", "worse": "worse", "worst": "worst",
	"larger": "larger", "smaller": "smaller", "bigger": "bigger", "higher": "higher", "lower": "lower",
	"warmer": "warmer", "cooler": "cooler", "hotter": "hotter", "colder": "colder",
	"faster": "faster", "slower": "slower", "earlier": "earlier", "later": "later",
	"less": "less", "news": "news", "species": "species", "series": "series",
}

// numberWords maps spelled-out numbers to digits. "one" is left out: it is
// mostly a pronoun ("one of them", "no one").
var numberWords = map[string]string{
	"zero": "0", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
	"seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
	"thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17",
	"eighteen": "18", "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40",
	"fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
	"hundred": "100", "thousand": "1000", "million": "1000000", "billion": "1000000000",
	"dozen": "12",
}
