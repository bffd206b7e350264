package builtin

// Built-in English lexicon of LexicalNLI. Entries are written as plain words;
// they are stemmed with the same stemmer as the input at package
// initialisation, so inflected forms match too. The lists are general
// English (common antonyms, everyday categories of the world, frequent words)
// written for this package, but not blind to data: many relational entries
// (antonyms, exclusive alternatives, synonyms, hypernyms such as
// guitarist → musician or kitchen → indoors) were added while reading
// LexicalNLI's errors on an SNLI sample, so they hold that sample's
// vocabulary. That sample is now split by a content-blind rule
// (testdata/nli/ATTRIBUTION.md), and TestLexiconNotDerivedFromReportSplit
// checks that no relational entry fires on a row of its report part without
// firing on a row of its tuning part. The entries that did were removed
// (TestLexiconAuditRemovalsHold lists them); new entries may be drawn from
// the tuning part only.

import "github.com/evidencefleet/evidencefleet/internal/antonyms"

// negationWords negate the clause that follows them. "fail", "refuse", …
// count only when followed by "to" (negationBeforeTo).
var negationWords = []string{
	"not", "no", "never", "none", "nobody", "nothing", "nowhere", "neither", "nor",
	"without", "cannot", "noone", "unable", "hardly", "barely", "scarcely",
	"lack", "lacks", "lacked", "lacking",
}

// negationBeforeTo are verb forms that negate when followed by "to"
// ("failed to").
var negationBeforeTo = []string{
	"fail", "fails", "failed", "failing", "refuse", "refuses", "refused", "refusing",
	"decline", "declines", "declined", "declining", "neglect", "neglects", "neglected", "neglecting",
}

// negationCancelledBy lists words that, right after "not"/"no"/"without",
// mean the phrase is not a negation of what follows ("not only", "no doubt",
// "no more than 5" is a number bound).
var negationCancelledBy = []string{"only", "just", "merely", "doubt", "more", "less", "fewer"}

// hedgeWords weaken a statement; they lower the confidence of a verdict.
var hedgeWords = []string{
	"may", "might", "could", "possibly", "perhaps", "probably", "likely", "maybe",
	"suggest", "suggests", "suggested", "appear", "appears", "seem", "seems", "reportedly",
	"allegedly", "potentially", "presumably", "unclear", "uncertain", "apparently",
	"supposedly", "arguably", "conceivably", "rumored", "rumoured",
}

// universalWords and negUniversalWords are quantifiers that conflict.
var (
	universalWords    = []string{"all", "every", "everyone", "everybody", "everything", "always", "everywhere"}
	negUniversalWords = []string{"none", "nobody", "nothing", "never", "noone", "no", "nowhere"}
)

// claimWords are function words that strengthen a hypothesis ("all",
// "only"): a hypothesis using them says more than a premise without them,
// so LexicalNLI counts them as content words (the shared stop-word list
// ignores them).
var claimWords = []string{"all", "only", "because"}

// clauseWords end the scope of a negation: they start another clause.
var clauseWords = []string{
	"but", "while", "although", "though", "whereas", "because", "since", "which", "who",
	"whom", "whose", "that", "when", "where", "if", "unless", "so", "yet", "however",
}

// clauseAfterAnd are words that, following "and"/"or", start a new clause
// ("… not running and the woman …").
var clauseAfterAnd = []string{
	"a", "an", "the", "he", "she", "they", "it", "we", "i", "you", "his", "her", "their",
	"this", "these", "those", "there", "its", "our", "my",
}

// malePronouns and femalePronouns give a hypothesis subject a gender.
var (
	malePronouns   = []string{"he", "him", "his", "himself"}
	femalePronouns = []string{"she", "her", "hers", "herself"}
)

// The antonym lists live in package antonyms, shared with the learned NLI.
var (
	antonymPairs          = antonyms.General
	personAntonymPairs    = antonyms.Person
	adjectiveAntonymPairs = antonyms.Adjective
)

// lexGroup is a set of mutually exclusive alternatives: one thing is not
// two of them at once (a weaker cue than an antonym, because a text can
// mention several of them about different things). Modifier groups conflict
// only when they describe the same head noun.
type lexGroup struct {
	modifier bool
	words    []string
}

// exclusiveGroups are mutually exclusive alternatives of everyday categories.
var exclusiveGroups = []lexGroup{
	{true, []string{"red", "blue", "green", "yellow", "black", "white", "orange", "purple", "pink", "brown", "gray", "tan", "gold", "silver", "beige", "maroon", "violet", "turquoise"}},
	{false, []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}},
	{false, []string{"january", "february", "april", "june", "july", "august", "september", "october", "november", "december"}},
	{false, []string{"summer", "winter", "autumn"}},
	{false, []string{"morning", "afternoon", "evening", "night", "midnight", "noon"}},
	{false, []string{"breakfast", "lunch", "dinner", "brunch"}},
	{false, []string{"sunny", "rainy", "snowy", "stormy", "foggy"}},
	{false, []string{"sun", "rain", "snow", "storm"}},
	// kinds of animal
	{false, []string{"dog", "cat", "horse", "cow", "bird", "sheep", "goat", "pig", "bear", "lion", "tiger", "elephant", "monkey", "deer", "rabbit", "mouse", "rat", "snake", "camel", "donkey", "duck", "frog", "turtle", "wolf", "fox", "squirrel", "giraffe", "zebra"}},
	// sports and games
	{false, []string{"soccer", "basketball", "baseball", "tennis", "volleyball", "golf", "hockey", "rugby", "cricket", "softball", "lacrosse", "badminton", "bowling", "boxing", "chess", "poker", "frisbee"}},
	{false, []string{"football", "basketball", "baseball", "tennis", "volleyball", "golf", "hockey", "cricket", "softball", "lacrosse", "badminton", "bowling", "boxing", "chess", "poker", "frisbee"}},
	// musical instruments
	{false, []string{"guitar", "piano", "violin", "cello", "drum", "flute", "trumpet", "saxophone", "clarinet", "harp", "accordion", "banjo", "trombone", "tuba", "harmonica", "ukulele", "bagpipe"}},
	// vehicles
	{false, []string{"car", "truck", "bus", "bicycle", "motorcycle", "boat", "airplane", "helicopter", "scooter", "tractor", "skateboard", "horse"}},
	// venues a person is in at one time
	{false, []string{"kitchen", "bedroom", "bathroom", "restaurant", "office", "classroom", "library", "church", "mall", "gym", "hospital", "theater", "museum", "garage", "school", "airport", "prison", "jail", "supermarket", "laundromat", "bakery", "beach", "desert", "jungle", "stadium", "zoo", "farm", "circus", "concert", "wedding", "funeral"}},
	// postures
	{false, []string{"sit", "stand", "lie", "kneel", "squat", "crouch"}},
	// ways of moving one does not combine
	{false, []string{"walk", "run", "jog", "swim", "climb", "ski", "surf", "skate", "crawl", "drive", "ride", "sleep", "dance", "hike"}},
	// meals of a day / states of matter / faiths
	{false, []string{"solid", "liquid", "gas"}},
	{false, []string{"blond", "brunette", "redhead"}},
	{false, []string{"telescope", "microscope", "binoculars"}},
	{false, []string{"christian", "muslim", "jewish", "hindu", "buddhist", "atheist"}},
	{false, []string{"democrat", "republican"}},
}

// exclusiveApart are pairs of members of one exclusive group that do not
// conflict, although the rest of their group does: the audit
// (TestLexiconNotDerivedFromReportSplit) removed each of these relations,
// as it fires on rows of the report part of the SNLI sample and on none of
// its tuning part. Taking a pair apart removes exactly that relation; the
// other members of its group keep theirs.
var exclusiveApart = [][2]string{
	{"red", "black"}, {"blue", "black"}, {"green", "white"}, {"yellow", "white"}, {"white", "brown"},
	{"golf", "bowling"}, {"piano", "clarinet"}, {"car", "truck"}, {"car", "boat"},
	{"bathroom", "school"}, {"walk", "ride"}, {"blond", "redhead"}, {"telescope", "microscope"},
}

// exclusiveOppositions are pairs of word sets whose members conflict across
// the sets: being still (sitting, lying, sleeping) against moving about.
// Some are split in two so that a pair the audit removed
// (TestLexiconNotDerivedFromReportSplit; marked "audit") shares no
// opposition.
var exclusiveOppositions = [][2][]string{
	{{"sit", "lie", "kneel", "sleep", "lay", "squat"}, {"walk", "run", "jog", "jump", "dance", "climb", "swim", "skate", "surf", "sprint", "race", "chase"}},
	{{"lie", "kneel", "sleep", "lay", "squat"}, {"ski", "hike"}},         // not "sit" (audit)
	{{"stand"}, {"walk", "jog", "swim", "sleep", "dance", "lie", "sit"}}, // not "run" (audit)
	{{"sleep", "nap"}, {"eat", "drink", "read", "write", "talk", "sing", "cook", "throw", "catch", "fight", "laugh", "shout", "yell", "push", "carry", "paint", "clean", "wash", "build", "dig", "shop", "play", "drive", "ride", "perform", "speak"}},
	{{"sleep"}, {"pull", "look", "watch"}}, // not "nap" (audit)
	{{"nap"}, {"work", "kick"}},            // not "sleep" (audit)
}

// compatiblePairs are members of one group that can name the same thing
// (soccer is football in most of the world; one rides or drives a car).
var compatiblePairs = [][2]string{
	{"ride", "drive"}, {"swim", "surf"}, {"walk", "hike"}, {"sun", "snow"},
	{"lie", "lay"}, {"school", "classroom"}, {"school", "library"}, {"school", "gym"},
	{"prison", "jail"}, {"church", "wedding"}, {"church", "funeral"}, {"restaurant", "kitchen"}, {"gold", "yellow"},
	{"tan", "brown"}, {"violet", "purple"}, {"maroon", "red"}, {"silver", "gray"},
	{"bakery", "supermarket"}, {"gym", "school"}, {"farm", "horse"},
	{"stadium", "concert"}, {"evening", "night"}, {"midnight", "night"},
}

// synonymGroups are words that cover each other.
var synonymGroups = [][]string{
	{"big", "large"}, {"small", "little"}, {"happy", "glad", "joyful", "cheerful"},
	{"sad", "unhappy"}, {"angry", "mad", "furious"}, {"scared", "afraid", "frightened", "fearful"},
	{"tired", "exhausted", "weary"}, {"smart", "intelligent", "clever"}, {"rich", "wealthy"},
	{"quick", "fast", "rapid", "speedy"}, {"begin", "start", "commence"}, {"end", "finish"},
	{"buy", "purchase"}, {"talk", "speak", "chat"}, {"shout", "scream"},
	{"look", "watch", "observe", "view"}, {"see", "notice", "spot"}, {"help", "assist", "aid"},
	{"fix", "repair"}, {"correct", "right"}, {"wrong", "incorrect"}, {"sick", "ill"},
	{"difficult", "hard"}, {"easy", "simple"}, {"movie", "film"}, {"car", "automobile"},
	{"couch", "sofa"}, {"child", "kid"}, {"photo", "picture", "photograph"}, {"street", "road"},
	{"shop", "store"}, {"rock", "stone"}, {"jump", "leap", "hop"},
	{"jacket", "coat"}, {"pants", "trousers"}, {"clothes", "clothing", "outfit", "attire"},
	{"beach", "shore", "seashore"}, {"sea", "ocean"}, {"woods", "forest"}, {"gift", "present"},
	{"job", "work", "occupation"}, {"mom", "mother", "mum"}, {"dad", "father"},
	{"baby", "infant"}, {"teen", "teenager", "adolescent"}, {"doctor", "physician"},
	{"airplane", "plane", "aircraft"}, {"motorcycle", "motorbike"},
	{"path", "trail"}, {"throw", "toss", "hurl"}, {"pretty", "beautiful", "lovely"},
	{"choose", "pick", "select"}, {"cry", "weep", "sob"}, {"rest", "relax"},
	{"dinner", "supper"}, {"lie", "lay"}, {"stare", "gaze"}, {"grin", "smile"}, {"fight", "battle"},
	{"hold", "grip", "grasp"}, {"road", "roadway"}, {"sidewalk", "pavement"},
	{"tv", "television"}, {"phone", "telephone", "cellphone"},
	{"cop", "policeman"}, {"police", "cop"}, {"ill", "unwell"}, {"quiet", "silent"},
	{"outside", "outdoors", "outdoor"}, {"inside", "indoors", "indoor"}, {"near", "beside"},
	{"sea", "seaside"}, {"hill", "slope"}, {"trash", "garbage", "rubbish"},
	// formal and plain words for the same thing
	{"require", "need"}, {"obtain", "acquire"}, {"utilize", "use"}, {"attempt", "try"},
	{"demonstrate", "show"}, {"indicate", "show"}, {"significant", "important"}, {"crucial", "vital", "essential"},
	{"sufficient", "enough"}, {"commence", "begin"}, {"terminate", "end"}, {"conclude", "finish"},
	{"reside", "live"}, {"inform", "notify"}, {"locate", "find"}, {"construct", "build"},
	{"modify", "alter", "change"}, {"employment", "job"}, {"residence", "home"}, {"vacation", "holiday"},
	{"previous", "prior", "former"}, {"additional", "extra"}, {"approximately", "roughly"},
	{"reply", "respond", "answer"}, {"inquire", "ask"}, {"permit", "allow", "let"}, {"desire", "wish"},
	{"believe", "think"}, {"select", "choose"}, {"region", "area", "zone"}, {"mistake", "error"},
	{"journey", "trip", "voyage"}, {"regulation", "rule"}, {"goal", "aim", "objective"}, {"cost", "price"},
	{"famous", "renowned", "celebrated"}, {"remain", "stay"}, {"injure", "hurt", "wound"}, {"guard", "protect"},
	{"possess", "own"}, {"depart", "leave"}, {"method", "technique", "approach"}, {"assist", "help"},
	{"purchase", "buy"}, {"provide", "supply"}, {"contain", "include"}, {"create", "make"},
	{"retain", "keep"}, {"frequently", "often"}, {"rapidly", "quickly"}, {"immediately", "instantly"},
	{"enormous", "huge", "vast", "immense"}, {"minor", "small"}, {"ancient", "old"}, {"wealthy", "rich"},
	{"unhappy", "sad"}, {"silent", "quiet"}, {"difficult", "tough"}, {"correct", "accurate"},
	{"finish", "complete"}, {"idea", "notion", "concept"}, {"problem", "issue", "difficulty"},
	{"result", "outcome", "consequence"}, {"chance", "opportunity"},
	{"money", "cash", "funds"}, {"salary", "wage"}, {"firm", "company", "business"},
	{"worker", "employee"}, {"boss", "manager", "supervisor"}, {"law", "legislation"},
	{"aid", "assistance"}, {"talk", "discussion"}, {"discuss", "debate"},
	{"study", "research"}, {"examine", "inspect", "investigate"}, {"reveal", "disclose"},
	{"suppose", "assume"}, {"imagine", "envision"}, {"recall", "remember"}, {"understand", "comprehend"},
	{"explain", "clarify"}, {"claim", "assert"}, {"announce", "proclaim"},
	{"agree", "concur"}, {"refuse", "decline"}, {"forbid", "prohibit", "ban"}, {"battle", "combat"},
	{"victory", "triumph", "win"}, {"defeat", "beat"}, {"die", "perish"}, {"kill", "slay"},
	{"murder", "homicide"}, {"steal", "rob"}, {"thief", "robber"}, {"shout", "holler"},
	{"hurry", "rush", "hasten"}, {"rest", "repose"}, {"road", "route"},
	{"city", "municipality"}, {"country", "nation"}, {"sea", "ocean"},
	{"center", "centre", "middle"}, {"color", "colour"}, {"gray", "grey"}, {"theater", "theatre"},
	{"neighbor", "neighbour"}, {"favorite", "favourite"}, {"honor", "honour"}, {"labor", "labour"},
	{"organize", "organise"}, {"realize", "realise"}, {"recognize", "recognise"}, {"apologize", "apologise"},
	{"analyze", "analyse"}, {"program", "programme"}, {"defense", "defence"}, {"license", "licence"},
	{"tv", "telly"}, {"movie", "cinema"}, {"automobile", "motorcar"}, {"kid", "youngster"}, {"man", "gentleman"}, {"woman", "lady"}, {"elderly", "aged"},
	{"wed", "marry"}, {"stop", "halt"}, {"many", "numerous"},
}

// hypernyms maps a specific word to more general words it implies (premise
// "woman" covers hypothesis "person"; premise "kitchen" covers "indoors").
// Implications are followed transitively.
var hypernyms = map[string][]string{
	// people: gender, age, person
	"man": {"person", "adult", "male", "guy"}, "woman": {"person", "adult", "female"},
	"boy": {"person", "child", "male", "young"}, "girl": {"person", "child", "young"},
	"child": {"person", "young"}, "baby": {"child", "young"}, "toddler": {"child", "young", "baby"},
	"guy": {"man"}, "lady": {"woman"}, "gentleman": {"man"}, "teenager": {"person", "young"},
	"adult": {"person"}, "person": {"someone", "somebody", "human", "individual", "people"},
	"individual": {"person"}, "father": {"man", "parent"}, "mother": {"woman", "parent"}, "parent": {"adult", "person"},
	"husband": {"man", "spouse"}, "wife": {"woman", "spouse"}, "spouse": {"adult", "person"},
	"son": {"male", "person", "child"}, "daughter": {"female", "person", "child"},
	"brother": {"male", "person", "sibling"}, "sister": {"female", "person", "sibling"},
	"uncle": {"man", "relative"}, "aunt": {"woman", "relative"}, "grandfather": {"man", "old", "elderly"},
	"grandmother": {"woman", "old", "elderly"}, "grandpa": {"grandfather"}, "grandma": {"grandmother"},
	"boyfriend": {"man", "partner"}, "girlfriend": {"woman", "partner"}, "bride": {"woman", "wedding"},
	"groom": {"man", "wedding"}, "king": {"man", "royal"}, "queen": {"woman", "royal"},
	"prince": {"man", "royal"}, "princess": {"woman", "royal"}, "actress": {"woman", "actor"},
	"waitress": {"woman", "waiter"}, "policeman": {"man", "police"},
	"policewoman": {"woman", "police", "officer"}, "fireman": {"man", "firefighter"},
	"businessman": {"man", "worker"}, "businesswoman": {"woman", "worker"}, "fisherman": {"man", "fish"},
	"nun": {"woman"}, "monk": {"man"}, "priest": {"person"}, "elderly": {"old"}, "senior": {"old", "person"},
	"family": {"people", "group"}, "couple": {"people", "group"}, "crowd": {"people", "group"},
	"team": {"group"}, "audience": {"people", "crowd"},
	"player": {"person"}, "student": {"person"}, "teacher": {"person", "adult"},
	"doctor": {"person", "adult"}, "nurse": {"person"}, "officer": {"person"}, "police": {"person"},
	"soldier": {"person"}, "chef": {"cook", "person"}, "cook": {"person"}, "waiter": {"person"},
	"artist": {"person"}, "musician": {"person"}, "singer": {"musician", "performer"},
	"dancer": {"performer", "person"}, "performer": {"person"}, "athlete": {"person"},
	"cyclist": {"person"}, "biker": {"person", "bike"}, "rider": {"person"},
	"surfer": {"person", "surf"}, "skier": {"person", "ski", "snow"}, "skater": {"person", "skate"},
	"swimmer": {"person", "water"}, "runner": {"person", "run"}, "climber": {"person", "climb"},
	"driver": {"person", "drive"}, "pilot": {"person"}, "farmer": {"person", "farm"},
	"firefighter": {"person"}, "tourist": {"person"}, "vendor": {"person", "seller"},
	"customer": {"person"}, "shopper": {"person", "shop"}, "spectator": {"person"},
	"fan": {"person"}, "pedestrian": {"person", "walk"}, "passenger": {"person"},
	"clown": {"performer", "person"}, "mime": {"performer", "person"}, "magician": {"performer", "person"},
	"actor": {"performer", "person"}, "gymnast": {"athlete"}, "skateboarder": {"person", "skateboard"},
	"snowboarder": {"person", "snowboard", "snow"}, "hiker": {"person", "hike"}, "boxer": {"athlete"},
	"wrestler": {"athlete"}, "golfer": {"athlete"}, "guitarist": {"musician", "guitar"},
	"drummer": {"musician", "drum"}, "pianist": {"musician", "piano"}, "violinist": {"musician", "violin"},
	"band": {"musician", "group", "music"}, "choir": {"singer", "group"}, "orchestra": {"musician", "group"},
	"professor": {"teacher"}, "physician": {"doctor"}, "surgeon": {"doctor"}, "scientist": {"person"},
	"engineer": {"person"}, "lawyer": {"person"}, "judge": {"person"}, "president": {"person", "leader"},
	"leader": {"person"}, "employee": {"worker"}, "staff": {"worker"},
	"volunteer": {"person"}, "resident": {"person"}, "citizen": {"person"}, "neighbor": {"person"},
	"stranger": {"person"}, "visitor": {"person"}, "guest": {"person"}, "owner": {"person"},
	// animals
	"dog": {"animal", "pet"}, "puppy": {"dog", "young"}, "pup": {"dog"}, "poodle": {"dog"},
	"retriever": {"dog"}, "terrier": {"dog"}, "collie": {"dog"}, "beagle": {"dog"},
	"bulldog": {"dog"}, "labrador": {"dog"}, "hound": {"dog"}, "pug": {"dog"},
	"dachshund": {"dog"}, "husky": {"dog"}, "chihuahua": {"dog"}, "pitbull": {"dog"}, "rottweiler": {"dog"},
	"spaniel": {"dog"}, "corgi": {"dog"}, "dalmatian": {"dog"}, "doberman": {"dog"},
	"kitten": {"cat", "young"}, "kitty": {"cat"}, "horse": {"animal"}, "pony": {"horse"},
	"cow": {"animal", "cattle"}, "bull": {"cattle", "animal"}, "calf": {"cow", "young"},
	"cattle": {"animal"}, "sheep": {"animal"}, "lamb": {"sheep", "young"}, "goat": {"animal"},
	"pig": {"animal"}, "bird": {"animal"}, "duck": {"bird"}, "chicken": {"bird"}, "parrot": {"bird"},
	"pigeon": {"bird"}, "seagull": {"bird"}, "gull": {"bird"}, "eagle": {"bird"}, "owl": {"bird"},
	"fish": {"animal"}, "shark": {"fish"}, "salmon": {"fish"}, "whale": {"animal"},
	"dolphin": {"animal"}, "bear": {"animal"}, "lion": {"animal"}, "tiger": {"animal"},
	"elephant": {"animal"}, "monkey": {"animal"}, "deer": {"animal"}, "rabbit": {"animal"},
	"bunny": {"rabbit"}, "mouse": {"animal"}, "rat": {"animal"}, "snake": {"animal"},
	"camel": {"animal"}, "donkey": {"animal"}, "frog": {"animal"}, "turtle": {"animal"},
	"wolf": {"animal"}, "fox": {"animal"}, "squirrel": {"animal"}, "giraffe": {"animal"},
	"zebra": {"animal"}, "insect": {"animal"}, "pet": {"animal"},
	// vehicles and things
	"car": {"vehicle"}, "truck": {"vehicle"}, "bus": {"vehicle"}, "van": {"vehicle"},
	"taxi": {"car"}, "cab": {"car"}, "jeep": {"car"}, "suv": {"car"}, "train": {"vehicle"},
	"subway": {"train"}, "tram": {"vehicle"}, "motorcycle": {"bike", "vehicle"},
	"bicycle": {"bike", "vehicle"}, "bike": {"vehicle"}, "unicycle": {"cycle"},
	"scooter": {"vehicle"}, "tractor": {"vehicle"}, "boat": {"vehicle", "water"},
	"ship": {"boat"}, "kayak": {"boat"}, "yacht": {"boat"}, "sailboat": {"boat"},
	"raft": {"boat"}, "airplane": {"vehicle"}, "jet": {"airplane"}, "helicopter": {"vehicle"},
	"piano": {"instrument"}, "violin": {"instrument"}, "cello": {"instrument"},
	"drum": {"instrument"}, "flute": {"instrument"}, "trumpet": {"instrument"}, "saxophone": {"instrument"},
	"clarinet": {"instrument"}, "harp": {"instrument"}, "accordion": {"instrument"}, "banjo": {"instrument"},
	"trombone": {"instrument"}, "tuba": {"instrument"}, "harmonica": {"instrument"}, "ukulele": {"instrument"},
	"instrument": {"music"}, "song": {"music"}, "sing": {"music", "perform"}, "dance": {"perform"}, "huge": {"big", "large"}, "enormous": {"big", "large"}, "giant": {"big", "large"}, "massive": {"big", "large"}, "tiny": {"small", "little"},
	"soccer": {"sport", "game", "ball"}, "football": {"sport", "game", "ball"}, "basketball": {"game", "ball"},
	"baseball": {"sport", "game", "ball"}, "tennis": {"sport", "game", "ball"}, "volleyball": {"sport", "game", "ball"},
	"golf": {"sport", "game"}, "hockey": {"sport", "game"}, "rugby": {"sport", "game", "ball"},
	"cricket": {"sport", "game"}, "softball": {"sport", "game", "ball"}, "lacrosse": {"sport", "game"},
	"badminton": {"sport", "game"}, "bowling": {"sport", "game"}, "boxing": {"sport", "fight"},
	"wrestling": {"sport", "fight"}, "chess": {"game"}, "poker": {"game"}, "frisbee": {"game"},
	"hat": {"clothing"}, "shirt": {"clothing"}, "blouse": {"shirt"}, "tshirt": {"shirt"},
	"jacket": {"clothing"}, "dress": {"clothing", "wear"}, "skirt": {"clothing"}, "pants": {"clothing"},
	"jeans": {"pants"}, "shorts": {"clothing"}, "sweater": {"clothing"}, "hoodie": {"sweater"},
	"sweatshirt": {"sweater"}, "uniform": {"clothing"}, "costume": {"clothing"}, "suit": {"clothing"},
	"coat": {"clothing"}, "scarf": {"clothing"}, "helmet": {"hat"}, "shoe": {"clothing"},
	"sneaker": {"shoe"}, "boot": {"shoe"}, "sandal": {"shoe"}, "glove": {"clothing"},
	"apple": {"fruit", "food"}, "banana": {"fruit", "food"}, "fruit": {"food"},
	"vegetable": {"food"}, "bread": {"food"}, "sandwich": {"food"}, "pizza": {"food"}, "burger": {"food"},
	"hamburger": {"food"}, "meat": {"food"}, "soup": {"food"}, "rice": {"food"},
	"meal": {"food"}, "breakfast": {"meal"}, "lunch": {"meal"}, "dinner": {"meal"}, "snack": {"food"},
	"coffee": {"drink"}, "tea": {"drink"}, "beer": {"drink", "alcohol"}, "wine": {"drink", "alcohol"},
	"juice": {"drink"}, "soda": {"drink"}, "milk": {"drink"},
	"house": {"building", "home"}, "home": {"house"}, "church": {"building"}, "school": {"building"},
	"hospital": {"building"}, "tower": {"building"}, "skyscraper": {"building"}, "apartment": {"building", "home", "indoors"},
	"novel": {"book"}, "magazine": {"literature"}, "newspaper": {"paper"},
	"laptop": {"computer"}, "cellphone": {"phone"}, "smartphone": {"phone"}, "camera": {"device"},
	"tulip": {"flower"}, "flower": {"plant"}, "bush": {"plant"},
	"oak": {"tree"}, "pine": {"tree"},
	// places: venues imply being inside or outside
	"kitchen": {"room", "indoors"}, "bedroom": {"room", "indoors"}, "bathroom": {"room", "indoors"},
	"classroom": {"room", "indoors"}, "office": {"indoors"}, "room": {"indoors"},
	"restaurant": {"indoors"}, "library": {"indoors"}, "mall": {"indoors"}, "gym": {"indoors"},
	"theater": {"indoors"}, "museum": {"indoors"}, "garage": {"indoors"}, "hallway": {"indoors"},
	"lobby": {"indoors"}, "cafe": {"indoors"}, "cafeteria": {"indoors"}, "studio": {"indoors"},
	"warehouse": {"indoors"}, "factory": {"indoors"}, "basement": {"indoors"}, "attic": {"indoors"},
	"elevator": {"indoors"}, "supermarket": {"store", "indoors"}, "laboratory": {"indoors"},
	"lab": {"indoors"}, "auditorium": {"indoors"},
	"diner": {"restaurant"}, "bakery": {"store"}, "ceiling": {"indoors"}, "couch": {"furniture"},
	"bed": {"furniture"}, "table": {"furniture"}, "chair": {"furniture"}, "desk": {"furniture"},
	"street": {"outdoors"}, "road": {"outdoors"}, "sidewalk": {"outdoors"}, "park": {"outdoors"},
	"beach": {"outdoors"}, "field": {"outdoors"}, "grass": {"outdoors"}, "lawn": {"grass", "outdoors"},
	"yard": {"outdoors"}, "backyard": {"yard"}, "garden": {"outdoors"}, "forest": {"outdoors"},
	"woods": {"outdoors"}, "mountain": {"outdoors"}, "hill": {"outdoors"}, "lake": {"water", "outdoors"},
	"river": {"water", "outdoors"}, "ocean": {"water", "outdoors"}, "sea": {"water", "outdoors"},
	"pond": {"water", "outdoors"}, "stream": {"water", "outdoors"}, "creek": {"stream"},
	"waterfall": {"water", "outdoors"}, "pool": {"water"},
	"snow": {"outdoors", "winter"}, "desert": {"outdoors"}, "trail": {"outdoors"}, "sky": {"outdoors"},
	"farm": {"outdoors"}, "playground": {"outdoors"}, "meadow": {"field"}, "jungle": {"outdoors"},
	"cliff": {"outdoors"}, "coast": {"outdoors"}, "shore": {"outdoors"}, "island": {"outdoors"},
	"valley": {"outdoors"}, "canyon": {"outdoors"}, "courtyard": {"outdoors"}, "plaza": {"outdoors"},
	"campsite": {"outdoors"}, "dock": {"outdoors"}, "pier": {"outdoors"}, "bridge": {"outdoors"},
	"porch": {"outdoors"}, "rooftop": {"outdoors"}, "patio": {"outdoors"}, "boardwalk": {"outdoors"},
	"harbor": {"outdoors"}, "highway": {"road", "outdoors"}, "intersection": {"outdoors"}, "crosswalk": {"street"},
	"alley": {"outdoors"}, "pasture": {"field"}, "tree": {"plant", "outdoors"}, "sunlight": {"sun", "outdoors"}, "mountainside": {"mountain"}, "hillside": {"hill"}, "riverbank": {"river"},
	"rain": {"outdoors", "weather"}, "sunshine": {"sun", "outdoors"},
	"city": {"place"}, "town": {"place"}, "village": {"town"}, "country": {"place"}, "nation": {"country"},
	// activities imply their general kind
	"sprint": {"run"}, "jog": {"run"}, "race": {"compete"}, "stroll": {"walk"}, "hike": {"outdoors"},
	"wander": {"walk"}, "march": {"walk"}, "doze": {"sleep"}, "slumber": {"sleep"},
	"giggle": {"laugh"}, "chuckle": {"laugh"}, "whisper": {"speak"}, "shout": {"speak"},
	"say": {"speak"}, "sob": {"cry"}, "devour": {"eat"}, "munch": {"eat"}, "dine": {"eat"},
	"sip": {"drink"}, "gulp": {"drink"}, "grab": {"hold"}, "clutch": {"hold"}, "carry": {"hold"},
	"punch": {"hit"}, "slap": {"hit"}, "wrestle": {"fight"},
	"surf": {"water"}, "swim": {"water"}, "dive": {"water"}, "ski": {"snow"}, "snowboard": {"snow"},
	"sail":     {"boat", "water"},
	"sunbathe": {"sun", "outdoors"}, "daytime": {"day"}, "nighttime": {"night"}, "snowy": {"snow"}, "rainy": {"rain"}, "sunny": {"sun"}, "rise": {"increase"}, "grow": {"increase"}, "fall": {"decrease"},
	"drop": {"decrease", "fall"}, "decline": {"decrease"}, "reduce": {"decrease"},
	"purchase": {"buy"}, "converse": {"talk"}, "discuss": {"talk"},
	"hug": {"embrace"}, "kiss": {"touch"},
	"laugh":     {"happy"},
	"celebrate": {"happy"}, "cheer": {"happy"}, "weep": {"cry", "sad"}, "cry": {"sad"},
	"frown": {"unhappy"}, "delighted": {"happy"}, "pleased": {"happy"}, "thrilled": {"happy", "excited"},
	"joyful": {"happy"}, "upset": {"unhappy"}, "miserable": {"sad"}, "seat": {"sit"},
}

// lightWords are frequent, general words (generic persons and things, light
// verbs, vague adjectives). They weigh less than other content words when
// LexicalNLI measures how much of a hypothesis the premise covers — a
// built-in stand-in for inverse document frequency.
var lightWords = []string{
	// generic persons and things, vague quantities
	"person", "people", "someone", "somebody", "thing", "stuff", "human", "individual", "group",
	"way", "place", "area", "part", "side", "piece", "kind", "type", "sort", "bit", "number",
	"couple", "bunch", "set", "certain", "various", "several", "many", "some", "own", "real",
	// the most frequent English nouns
	"time", "year", "day", "man", "woman", "world", "life", "hand", "child", "eye", "week",
	"case", "point", "fact",
	// the most frequent English verbs
	"be", "have", "do", "say", "get", "make", "go", "know", "take", "see", "come", "think",
	"look", "want", "give", "use", "find", "tell", "ask", "seem", "feel", "try", "call",
	"put", "keep", "let", "mean",
	// the most frequent English adjectives and adverbs
	"good", "new", "first", "last", "great", "little", "other", "big", "different", "next",
	"important", "same", "able", "well", "very", "just", "also", "today", "now", "there", "here",
	"around", "near", "front", "top", "away", "back", "together", "each", "every", "any", "like",
}

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

// numberWords maps spelled-out numbers to their value. "one" is handled in
// code: it counts only right before a content word ("one man", not "one of
// them" or "no one").
var numberWords = map[string]float64{
	"zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
	"thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
	"eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
	"fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
	"hundred": 100, "thousand": 1000, "million": 1e6, "billion": 1e9, "trillion": 1e12,
	"dozen": 12, "both": 2, "pair": 2,
}

// Comparators before a number bound it ("more than 5", "at most 3");
// approximators widen it ("about 100" is 90–110).
var (
	numAbove       = []string{"over", "above", "exceeding", "beyond", "upwards"}
	numAboveThan   = []string{"more", "greater", "higher", "larger", "bigger", "older"}
	numBelow       = []string{"under", "below", "beneath"}
	numBelowThan   = []string{"less", "fewer", "lower", "smaller", "younger"}
	numApprox      = []string{"about", "around", "approximately", "roughly", "nearly", "almost", "circa", "some", "approx", "estimated", "close"}
	numMultipliers = []string{"hundred", "thousand", "million", "billion", "trillion", "dozen"}
)
