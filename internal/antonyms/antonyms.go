// Package antonyms holds the project's hand-written list of English word
// pairs of opposite meaning, as plain unstemmed words: the learned NLI reads
// them as one cue feature whose weight it learns (internal/nlimodel). The
// lists were written for this project; some entries were added while
// reading the errors of the earlier hand-fitted lexical NLI (removed in
// issue 44) on the tuning part of the bundled SNLI sample, and its audit
// removed every entry that fired on the report part only
// (testdata/nli/ATTRIBUTION.md). New entries may be drawn from the tuning
// part only.
package antonyms

// General are words whose joint use (one in the premise, the other in
// the hypothesis) signals a contradiction wherever they occur: verbs, nouns,
// adverbs and the few function words with an opposite (before/after).
var General = [][2]string{
	// change and quantity
	{"increase", "decrease"}, {"increase", "reduce"}, {"increase", "decline"}, {"rise", "fall"},
	{"rise", "decline"}, {"rise", "drop"}, {"grow", "shrink"}, {"expand", "shrink"}, {"expand", "contract"},
	{"gain", "loss"}, {"gain", "lose"}, {"profit", "loss"}, {"win", "lose"}, {"winner", "loser"},
	{"more", "less"}, {"more", "fewer"}, {"most", "least"}, {"many", "few"}, {"majority", "minority"},
	{"maximum", "minimum"}, {"add", "remove"}, {"add", "subtract"}, {"fill", "empty"},
	{"raise", "lower"}, {"lift", "lower"}, {"lift", "drop"}, {"import", "export"},
	{"plus", "minus"}, {"surplus", "deficit"}, {"inflation", "deflation"},
	// attitudes and speech acts
	{"accept", "reject"}, {"accept", "refuse"}, {"accept", "decline"}, {"approve", "reject"},
	{"approve", "disapprove"}, {"support", "oppose"}, {"agree", "disagree"}, {"admit", "deny"},
	{"confirm", "deny"}, {"allow", "forbid"}, {"allow", "prohibit"}, {"allow", "ban"},
	{"allow", "prevent"}, {"permit", "forbid"}, {"permit", "prohibit"}, {"include", "exclude"},
	{"obey", "disobey"}, {"praise", "criticize"}, {"praise", "blame"}, {"reward", "punish"},
	{"love", "hate"}, {"like", "dislike"}, {"remember", "forget"}, {"trust", "distrust"},
	{"win", "fail"},
	{"succeed", "fail"}, {"success", "failure"}, {"victory", "defeat"}, {"win", "defeat"},
	{"benefit", "harm"}, {"help", "hinder"}, {"help", "harm"}, {"improve", "worsen"},
	{"improve", "deteriorate"}, {"cause", "prevent"}, {"protect", "attack"}, {"defend", "attack"},
	{"reveal", "hide"}, {"reveal", "conceal"}, {"appear", "disappear"},
	{"find", "lose"}, {"save", "spend"}, {"save", "waste"},
	{"buy", "sell"},
	{"employ", "dismiss"}, {"employed", "unemployed"}, {"marry", "divorce"},
	{"married", "divorced"}, {"build", "destroy"}, {"create", "destroy"},
	{"construct", "demolish"}, {"attach", "detach"},
	{"connect", "disconnect"}, {"tie", "untie"}, {"lock", "unlock"}, {"pack", "unpack"},
	{"load", "unload"}, {"dress", "undress"}, {"cover", "uncover"}, {"capture", "release"},
	{"arrest", "release"}, {"push", "pull"},
	// motion, time and order
	{"enter", "exit"}, {"entrance", "exit"}, {"enter", "leave"}, {"arrive", "leave"},
	{"arrive", "depart"}, {"arrival", "departure"}, {"stay", "leave"},
	{"join", "leave"}, {"advance", "retreat"}, {"forward", "backward"}, {"ascend", "descend"},
	{"before", "after"}, {"early", "late"}, {"earlier", "later"}, {"first", "last"},
	{"begin", "end"}, {"begin", "finish"}, {"start", "finish"}, {"start", "stop"},
	{"start", "end"}, {"beginning", "end"}, {"continue", "stop"}, {"always", "never"},
	{"sometimes", "never"}, {"often", "never"}, {"often", "rarely"}, {"often", "seldom"},
	{"ancient", "modern"}, {"past", "future"}, {"yesterday", "tomorrow"},
	{"day", "night"}, {"daytime", "nighttime"}, {"sunrise", "sunset"}, {"dawn", "dusk"},
	{"morning", "evening"}, {"summer", "winter"}, {"birth", "death"}, {"born", "die"},
	{"live", "die"}, {"alive", "dead"}, {"life", "death"}, {"sleep", "wake"},
	{"asleep", "awake"}, {"sleep", "awake"}, {"asleep", "wake"},
	// place and direction
	{"inside", "outside"}, {"indoors", "outdoors"}, {"indoor", "outdoor"}, {"inside", "outdoors"},
	{"indoors", "outside"}, {"above", "below"}, {"above", "beneath"},
	{"upstairs", "downstairs"}, {"uphill", "downhill"}, {"upward", "downward"},
	{"top", "bottom"}, {"front", "behind"}, {"ahead", "behind"},
	{"north", "south"}, {"east", "west"}, {"northern", "southern"}, {"eastern", "western"},
	{"near", "far"}, {"nearby", "distant"}, {"land", "sea"},
	{"urban", "rural"}, {"city", "countryside"}, {"domestic", "foreign"}, {"domestic", "international"},
	{"local", "foreign"}, {"local", "global"}, {"national", "international"},
	{"public", "private"}, {"vertical", "horizontal"}, {"input", "output"},
	// social roles
	{"friend", "enemy"}, {"ally", "enemy"},
	{"friend", "stranger"}, {"peace", "war"}, {"guilty", "innocent"}, {"winner", "loser"},
	{"alone", "together"}, {"alone", "group"}, {"alone", "crowd"}, {"alone", "team"},
	{"alone", "friend"}, {"alone", "family"}, {"alone", "couple"},
	// qualities (when not tied to a noun) and states
	{"true", "false"}, {"fact", "fiction"}, {"real", "fake"},
	{"correct", "incorrect"}, {"right", "wrong"}, {"accurate", "inaccurate"},
	{"possible", "impossible"}, {"likely", "unlikely"}, {"able", "unable"},
	{"known", "unknown"}, {"visible", "invisible"}, {"legal", "illegal"}, {"present", "absent"},
	{"presence", "absence"}, {"same", "different"}, {"similar", "different"},
	{"positive", "negative"}, {"optimistic", "pessimistic"}, {"good", "bad"}, {"better", "worse"},
	{"best", "worst"}, {"safe", "dangerous"}, {"safe", "unsafe"}, {"safety", "danger"},
	{"healthy", "sick"}, {"healthy", "ill"}, {"health", "illness"},
	{"happy", "sad"}, {"happy", "unhappy"}, {"happy", "angry"}, {"happy", "upset"},
	{"glad", "sad"}, {"joy", "sorrow"}, {"laugh", "cry"}, {"smile", "frown"}, {"smile", "cry"}, {"whisper", "shout"}, {"whisper", "scream"},
	{"calm", "angry"}, {"calm", "nervous"}, {"calm", "excited"}, {"relaxed", "tense"},
	{"relaxed", "stressed"}, {"brave", "afraid"}, {"brave", "scared"}, {"brave", "cowardly"},
	{"bored", "excited"}, {"boring", "exciting"}, {"boring", "interesting"}, {"tired", "energetic"},
	{"busy", "idle"}, {"easy", "difficult"},
	{"simple", "complex"}, {"simple", "complicated"}, {"rich", "poor"}, {"wealthy", "poor"},
	{"wealth", "poverty"}, {"cheap", "expensive"}, {"strong", "weak"}, {"strength", "weakness"},
	{"powerful", "weak"}, {"success", "fail"}, {"polite", "rude"},
	{"generous", "stingy"}, {"honest", "dishonest"}, {"wise", "foolish"}, {"smart", "stupid"},
	{"clever", "stupid"}, {"intelligent", "stupid"}, {"common", "rare"}, {"usual", "unusual"},
	{"normal", "abnormal"}, {"natural", "artificial"}, {"permanent", "temporary"},
	{"major", "minor"}, {"maximum", "minimum"}, {"win", "loss"}, {"sober", "drunk"},
	{"naked", "clothed"}, {"naked", "dressed"}, {"nude", "clothed"},
	{"barefoot", "sneaker"}, {"barefoot", "boot"}, {"shirtless", "shirt"}, {"empty", "crowded"},
	{"deserted", "crowded"}, {"silent", "noisy"}, {"silence", "noise"},
	{"quiet", "loud"}, {"quiet", "noisy"}, {"sunny", "cloudy"}, {"sunny", "rainy"},
	{"dry", "rainy"}, {"hotter", "colder"},
	{"warmer", "cooler"}, {"quick", "slow"},
	{"quickly", "slowly"}, {"faster", "slower"}, {"war", "peace"},

	{"awake", "unconscious"}, {"conscious", "unconscious"}, {"alive", "extinct"},
	{"sweet", "sour"}, {"sweet", "bitter"}, {"fresh", "stale"}, {"fresh", "rotten"},
	{"raw", "cooked"}, {"solid", "liquid"}, {"smooth", "rough"}, {"loose", "tight"}, {"sharp", "blunt"}, {"sharp", "dull"}, {"higher", "lower"}, {"larger", "smaller"}, {"bigger", "smaller"},
	{"older", "younger"}, {"longer", "shorter"}, {"taller", "shorter"}, {"heavier", "lighter"},
	{"stronger", "weaker"}, {"richer", "poorer"}, {"cheaper", "pricier"}, {"easier", "harder"},
	{"everyone", "nobody"}, {"everything", "nothing"}, {"all", "none"}, {"everywhere", "nowhere"},
}

// Person are opposite kinds of person (or person and animal).
// They conflict only about the subject of the hypothesis (its first noun
// naming a person or an animal): "a man and
// his wife" adds a person rather than contradicting "a man".
var Person = [][2]string{
	{"man", "woman"}, {"boy", "girl"}, {"male", "female"}, {"gentleman", "lady"}, {"guy", "lady"},
	{"child", "adult"}, {"kid", "adult"}, {"teenager", "adult"}, {"baby", "adult"},
	{"person", "animal"},
}

// Adjective are opposite qualities. They conflict when they
// describe the same head noun ("a young man" / "an old man"); with no head
// noun on one side the cue is halved.
var Adjective = [][2]string{
	{"young", "old"}, {"new", "old"}, {"large", "small"}, {"big", "small"},
	{"huge", "tiny"}, {"giant", "tiny"}, {"tall", "short"}, {"long", "short"},
	{"wide", "narrow"}, {"broad", "narrow"}, {"thick", "thin"}, {"fat", "thin"}, {"fat", "skinny"},
	{"heavy", "light"}, {"high", "low"}, {"deep", "shallow"}, {"full", "empty"}, {"wet", "dry"},
	{"hot", "cold"}, {"clean", "dirty"}, {"open", "closed"}, {"beautiful", "ugly"},
	{"pretty", "ugly"}, {"modern", "old"}, {"light", "dark"}, {"wide", "thin"},
	{"curly", "straight"}, {"blond", "dark"}, {"bald", "hairy"}, {"fast", "slow"},
	{"bright", "dark"}, {"bright", "dim"}, {"warm", "cold"}, {"warm", "cool"}, {"young", "older"}, {"old", "younger"},
	{"hot", "cool"}, {"soft", "hard"}, {"sweet", "salty"}, {"straight", "crooked"},
}
