// toy_en_fr_lexicon.cpp — the lexicon of the toy English→French grammar, as tables: nouns with their plurals,
// gender and kind; adjectives with their French forms, their place and the kinds they describe; verbs with their
// six present-tense forms; pronouns, determiners, prepositions; the French words that start with h. Each row
// is one word in both languages; the columns are described in toy_en_fr_lexicon.h. The rules that make
// sentences of these words are in toy_en_fr.cpp. The order of the rows matters: the generator picks by index,
// so reordering a table changes the corpus.
#include "data/synthetic/toy_en_fr_lexicon.h"

#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {
namespace toy_en_fr {

// Irregular plurals sit in the table like regular ones: men, mice, knives; chevaux, oiseaux, journaux.
const std::vector<Noun> nouns = {
    // English      plural          French          plural          gender     kind
    {"man",         "men",          "homme",        "hommes",       masculine, adult},
    {"woman",       "women",        "femme",        "femmes",       feminine,  adult},
    {"boy",         "boys",         "garçon",       "garçons",      masculine, child},
    {"girl",        "girls",        "fille",        "filles",       feminine,  child},
    {"king",        "kings",        "roi",          "rois",         masculine, adult},
    {"queen",       "queens",       "reine",        "reines",       feminine,  adult},
    {"father",      "fathers",      "père",         "pères",        masculine, relative},
    {"mother",      "mothers",      "mère",         "mères",        feminine,  relative},
    {"brother",     "brothers",     "frère",        "frères",       masculine, relative},
    {"sister",      "sisters",      "sœur",         "sœurs",        feminine,  relative},
    {"uncle",       "uncles",       "oncle",        "oncles",       masculine, relative},
    {"aunt",        "aunts",        "tante",        "tantes",       feminine,  relative},
    {"baby",        "babies",       "bébé",         "bébés",        masculine, child},

    {"cat",         "cats",         "chat",         "chats",        masculine, animal},
    {"dog",         "dogs",         "chien",        "chiens",       masculine, animal},
    {"horse",       "horses",       "cheval",       "chevaux",      masculine, animal},
    {"bird",        "birds",        "oiseau",       "oiseaux",      masculine, animal},
    {"mouse",       "mice",         "souris",       "souris",       feminine,  animal},
    {"rabbit",      "rabbits",      "lapin",        "lapins",       masculine, animal},
    {"cow",         "cows",         "vache",        "vaches",       feminine,  animal},
    {"duck",        "ducks",        "canard",       "canards",      masculine, animal},
    {"elephant",    "elephants",    "éléphant",     "éléphants",    masculine, animal},
    {"bear",        "bears",        "ours",         "ours",         masculine, animal},
    {"wolf",        "wolves",       "loup",         "loups",        masculine, animal},
    {"turtle",      "turtles",      "tortue",       "tortues",      feminine,  animal},
    {"spider",      "spiders",      "araignée",     "araignées",    feminine,  animal},
    {"bee",         "bees",         "abeille",      "abeilles",     feminine,  animal},

    {"ball",        "balls",        "ballon",       "ballons",      masculine, object},
    {"bag",         "bags",         "sac",          "sacs",         masculine, object},
    {"box",         "boxes",        "boîte",        "boîtes",       feminine,  object},
    {"key",         "keys",         "clé",          "clés",         feminine,  object},
    {"hat",         "hats",         "chapeau",      "chapeaux",     masculine, object},
    {"pen",         "pens",         "stylo",        "stylos",       masculine, object},
    {"cup",         "cups",         "tasse",        "tasses",       feminine,  object},
    {"plate",       "plates",       "assiette",     "assiettes",    feminine,  object},
    {"umbrella",    "umbrellas",    "parapluie",    "parapluies",   masculine, object},
    {"clock",       "clocks",       "horloge",      "horloges",     feminine,  object},
    {"knife",       "knives",       "couteau",      "couteaux",     masculine, object},
    {"toy",         "toys",         "jouet",        "jouets",       masculine, object},
    {"gift",        "gifts",        "cadeau",       "cadeaux",      masculine, object},
    {"map",         "maps",         "carte",        "cartes",       feminine,  object},
    {"picture",     "pictures",     "image",        "images",       feminine,  object},

    {"book",        "books",        "livre",        "livres",       masculine, text},
    {"letter",      "letters",      "lettre",       "lettres",      feminine,  text},
    {"newspaper",   "newspapers",   "journal",      "journaux",     masculine, text},
    {"story",       "stories",      "histoire",     "histoires",    feminine,  text},

    {"apple",       "apples",       "pomme",        "pommes",       feminine,  food},
    {"orange",      "oranges",      "orange",       "oranges",      feminine,  food},
    {"cake",        "cakes",        "gâteau",       "gâteaux",      masculine, food},
    {"egg",         "eggs",         "œuf",          "œufs",         masculine, food},
    {"banana",      "bananas",      "banane",       "bananes",      feminine,  food},
    {"strawberry",  "strawberries", "fraise",       "fraises",      feminine,  food},
    {"lemon",       "lemons",       "citron",       "citrons",      masculine, food},
    {"onion",       "onions",       "oignon",       "oignons",      masculine, food},
    {"bread",       "",             "pain",         "",             masculine, food | uncountable},
    {"cheese",      "",             "fromage",      "",             masculine, food | uncountable},
    {"soup",        "",             "soupe",        "",             feminine,  food | uncountable},
    {"rice",        "",             "riz",          "",             masculine, food | uncountable},

    {"milk",        "",             "lait",         "",             masculine, drink | uncountable},
    {"coffee",      "",             "café",         "",             masculine, drink | uncountable},
    {"tea",         "",             "thé",          "",             masculine, drink | uncountable},
    {"water",       "",             "eau",          "",             feminine,  drink | uncountable},
    {"juice",       "",             "jus",          "",             masculine, drink | uncountable},

    {"house",       "houses",       "maison",       "maisons",      feminine,  place | destination},
    {"garden",      "gardens",      "jardin",       "jardins",      masculine, place | destination},
    {"park",        "parks",        "parc",         "parcs",        masculine, place | destination},
    {"school",      "schools",      "école",        "écoles",       feminine,  place | destination},
    {"market",      "markets",      "marché",       "marchés",      masculine, place | destination},
    {"church",      "churches",     "église",       "églises",      feminine,  place | destination},
    {"hotel",       "hotels",       "hôtel",        "hôtels",       masculine, place | destination},
    {"station",     "stations",     "gare",         "gares",        feminine,  place | destination},
    {"museum",      "museums",      "musée",        "musées",       masculine, place | destination},
    {"library",     "libraries",    "bibliothèque", "bibliothèques", feminine, place | destination},
    {"hospital",    "hospitals",    "hôpital",      "hôpitaux",     masculine, place | destination},
    {"office",      "offices",      "bureau",       "bureaux",      masculine, place | destination},
    {"forest",      "forests",      "forêt",        "forêts",       feminine,  place},
    {"kitchen",     "kitchens",     "cuisine",      "cuisines",     feminine,  place},

    {"table",       "tables",       "table",        "tables",       feminine,  furniture},
    {"chair",       "chairs",       "chaise",       "chaises",      feminine,  furniture},
    {"bed",         "beds",         "lit",          "lits",         masculine, furniture},
    {"bench",       "benches",      "banc",         "bancs",        masculine, furniture},
    {"sofa",        "sofas",        "canapé",       "canapés",      masculine, furniture},
    {"shelf",       "shelves",      "étagère",      "étagères",     feminine,  furniture},

    {"car",         "cars",         "voiture",      "voitures",     feminine,  vehicle},
    {"boat",        "boats",        "bateau",       "bateaux",      masculine, vehicle},
    {"train",       "trains",       "train",        "trains",       masculine, vehicle},
    {"plane",       "planes",       "avion",        "avions",       masculine, vehicle},
    {"bus",         "buses",        "bus",          "bus",          masculine, vehicle},

    {"tree",        "trees",        "arbre",        "arbres",       masculine, outdoor},
    {"bridge",      "bridges",      "pont",         "ponts",        masculine, outdoor},
};

const std::vector<Adjective> adjectives = {
    // English      masc sg         fem sg          masc pl          fem pl           masc sg before a vowel
    //              position     colour  describes
    {"small",       "petit",        "petite",       "petits",        "petites",       "petit",
                    before_noun, false,  any_kind & ~relative & ~food & ~drink},
    {"big",         "grand",        "grande",       "grands",        "grandes",       "grand",
                    before_noun, false,  animal | object | text | place | furniture | vehicle | outdoor},
    {"fat",         "gros",         "grosse",       "gros",          "grosses",       "gros",
                    before_noun, false,  animal},
    {"beautiful",   "beau",         "belle",        "beaux",         "belles",        "bel",
                    before_noun, false,  adult | animal | object | place | furniture | vehicle | outdoor},
    {"young",       "jeune",        "jeune",        "jeunes",        "jeunes",        "jeune",
                    before_noun, false,  adult | relative | animal},
    {"old",         "vieux",        "vieille",      "vieux",         "vieilles",      "vieil",
                    before_noun, false,  any_kind & ~child & ~food & ~drink},
    {"new",         "nouveau",      "nouvelle",     "nouveaux",      "nouvelles",     "nouvel",
                    before_noun, false,  object | text | place | furniture | vehicle},
    {"good",        "bon",          "bonne",        "bons",          "bonnes",        "bon",
                    before_noun, false,  text | food | drink},

    {"red",         "rouge",        "rouge",        "rouges",        "rouges",        "rouge",
                    after_noun,  true,   object | furniture | vehicle},
    {"green",       "vert",         "verte",        "verts",         "vertes",        "vert",
                    after_noun,  true,   object | furniture | vehicle},
    {"blue",        "bleu",         "bleue",        "bleus",         "bleues",        "bleu",
                    after_noun,  true,   object | furniture | vehicle},
    {"black",       "noir",         "noire",        "noirs",         "noires",        "noir",
                    after_noun,  true,   animal | object | furniture | vehicle},
    {"white",       "blanc",        "blanche",      "blancs",        "blanches",      "blanc",
                    after_noun,  true,   animal | object | furniture | vehicle},
    {"grey",        "gris",         "grise",        "gris",          "grises",        "gris",
                    after_noun,  true,   animal | object | furniture | vehicle},
    {"happy",       "heureux",      "heureuse",     "heureux",       "heureuses",     "heureux",
                    after_noun,  false,  animate},
    {"sad",         "triste",       "triste",       "tristes",       "tristes",       "triste",
                    after_noun,  false,  animate},
    {"tired",       "fatigué",      "fatiguée",     "fatigués",      "fatiguées",     "fatigué",
                    after_noun,  false,  animate},
    {"clever",      "intelligent",  "intelligente", "intelligents",  "intelligentes", "intelligent",
                    after_noun,  false,  animate},
    {"kind",        "gentil",       "gentille",     "gentils",       "gentilles",     "gentil",
                    after_noun,  false,  animate},
    {"fast",        "rapide",       "rapide",       "rapides",       "rapides",       "rapide",
                    after_noun,  false,  animal | vehicle},
    {"heavy",       "lourd",        "lourde",       "lourds",        "lourdes",       "lourd",
                    after_noun,  false,  object | furniture},
    {"expensive",   "cher",         "chère",        "chers",         "chères",        "cher",
                    after_noun,  false,  object | vehicle},
    {"broken",      "cassé",        "cassée",       "cassés",        "cassées",       "cassé",
                    after_noun,  false,  object | furniture | vehicle},
    {"hot",         "chaud",        "chaude",       "chauds",        "chaudes",       "chaud",
                    after_noun,  false,  food | drink},
    {"cold",        "froid",        "froide",       "froids",        "froides",       "froid",
                    after_noun,  false,  food | drink},
    {"delicious",   "délicieux",    "délicieuse",   "délicieux",     "délicieuses",   "délicieux",
                    after_noun,  false,  food | drink},
    {"interesting", "intéressant",  "intéressante", "intéressants",  "intéressantes", "intéressant",
                    after_noun,  false,  text},
};

namespace {

// Regular -er verbs: the stem (infinitive minus -er) plus the endings e, es, e, ons, ez, ent.
// A stem ending in g keeps its soft sound before -ons with an e: nous mangeons, nous nageons.
Conjugation conjugate_er(const std::string& infinitive) {
  std::string stem = infinitive.substr(0, infinitive.size() - 2);
  std::string nous = stem.back() == 'g' ? stem + "eons" : stem + "ons";
  return {stem + "e", stem + "es", stem + "e", nous, stem + "ez", stem + "ent"};
}

struct RegularVerb {
  const char* english;
  const char* english_third;
  const char* infinitive;
  unsigned subjects;
  unsigned objects;
};

const std::vector<RegularVerb> regular_verbs = {
    // English       he/she form     infinitive    subjects  objects
    {"sing",        "sings",        "chanter",    animate,  0},
    {"dance",       "dances",       "danser",     person,   0},
    {"walk",        "walks",        "marcher",    animate,  0},
    {"work",        "works",        "travailler", person,   0},
    {"arrive",      "arrives",      "arriver",    animate,  0},
    {"swim",        "swims",        "nager",      animate,  0},
    {"eat",         "eats",         "manger",     animate,  food},
    {"like",        "likes",        "aimer",      animate,
     person | animal | object | text | food | drink | place | vehicle},
    {"watch",       "watches",      "regarder",   animate,  person | animal | vehicle},
    {"look for",    "looks for",    "chercher",   animate,  person | animal | object | text | place},
    {"find",        "finds",        "trouver",    animate,  person | animal | object | text},
    {"carry",       "carries",      "porter",     person,   object | text | food},
    {"listen to",   "listens to",   "écouter",    animate,  person | animal},
};

struct IrregularVerb {
  const char* english;
  const char* english_third;
  Conjugation french;
  unsigned subjects;
  unsigned objects;
};

const std::vector<IrregularVerb> irregular_verbs = {
    // English     he/she form    je        tu        il/elle   nous        vous        ils/elles
    {"sleep",     "sleeps",     {"dors",   "dors",   "dort",   "dormons",  "dormez",   "dorment"},  animate, 0},
    {"run",       "runs",       {"cours",  "cours",  "court",  "courons",  "courez",   "courent"},  animate, 0},
    {"laugh",     "laughs",     {"ris",    "ris",    "rit",    "rions",    "riez",     "rient"},    person,  0},
    {"read",      "reads",      {"lis",    "lis",    "lit",    "lisons",   "lisez",    "lisent"},   person,  text},
    {"write",     "writes",     {"écris",  "écris",  "écrit",  "écrivons", "écrivez",  "écrivent"}, person,  text},
    {"drink",     "drinks",     {"bois",   "bois",   "boit",   "buvons",   "buvez",    "boivent"},  animate, drink},
    {"see",       "sees",       {"vois",   "vois",   "voit",   "voyons",   "voyez",    "voient"},   animate,
     any_kind & ~drink},
    {"take",      "takes",      {"prends", "prends", "prend",  "prenons",  "prenez",   "prennent"}, person,
     object | text | food},
    {"have",      "has",        {"ai",     "as",     "a",      "avons",    "avez",     "ont"},      animate,
     animal | object | text | food | vehicle},
    {"wait for",  "waits for",  {"attends", "attends", "attend", "attendons", "attendez", "attendent"}, animate,
     person | animal | vehicle},
    {"hear",      "hears",      {"entends", "entends", "entend", "entendons", "entendez", "entendent"}, animate,
     person | animal | vehicle},
};

}  // namespace

// Two verbs have sentences of their own: "go to" + a destination, and "be" + an adjective.
const Verb go = {"go", "goes", {"vais", "vas", "va", "allons", "allez", "vont"}, animate, 0};
const Conjugation etre = {"suis", "es", "est", "sommes", "êtes", "sont"};

const std::vector<Verb>& verbs() {
  static const std::vector<Verb> all = [] {
    std::vector<Verb> list;
    for (const RegularVerb& v : regular_verbs) {
      list.push_back({v.english, v.english_third, conjugate_er(v.infinitive), v.subjects, v.objects});
    }
    for (const IrregularVerb& v : irregular_verbs) {
      list.push_back({v.english, v.english_third, v.french, v.subjects, v.objects});
    }
    return list;
  }();
  return all;
}

const std::vector<Pronoun> pronouns = {
    {"i", "je", 0, false, masculine, singular},      {"you", "tu", 1, false, masculine, singular},
    {"he", "il", 2, true, masculine, singular},      {"she", "elle", 2, true, feminine, singular},
    {"we", "nous", 3, false, masculine, plural},     {"you all", "vous", 4, false, masculine, plural},
    {"they", "ils", 5, true, masculine, plural},
};

const std::vector<Determiner> determiners = {
    // English   plural     masc       fem        plural
    {"the",      "the",     "le",      "la",      "les",    definite},
    {"a",        "",        "un",      "une",     "",       indefinite},
    {"one",      "",        "un",      "une",     "",       one},
    {"",         "some",    "",        "",        "des",    partitive_plural},
    {"",         "two",     "",        "",        "deux",   number_word},
    {"",         "three",   "",        "",        "trois",  number_word},
    {"",         "four",    "",        "",        "quatre", number_word},
    {"",         "five",    "",        "",        "cinq",   number_word},
    {"",         "six",     "",        "",        "six",    number_word},
    {"",         "seven",   "",        "",        "sept",   number_word},
    {"",         "eight",   "",        "",        "huit",   number_word},
    {"",         "nine",    "",        "",        "neuf",   number_word},
    {"",         "ten",     "",        "",        "dix",    number_word},
    {"this",     "these",   "ce",      "cette",   "ces",    demonstrative},
    {"my",       "my",      "mon",     "ma",      "mes",    possessive},
    {"his",      "his",     "son",     "sa",      "ses",    possessive},
    {"her",      "her",     "son",     "sa",      "ses",    possessive},
    {"our",      "our",     "notre",   "notre",   "nos",    possessive},
    {"their",    "their",   "leur",    "leur",    "leurs",  possessive},
};

// How often each kind of determiner is chosen (before the rules of toy_en_fr.cpp rule some out).
const std::map<DeterminerKind, double> determiner_weights = {
    {definite, 40}, {indefinite, 14}, {one, 3}, {partitive_plural, 5}, {number_word, 9}, {demonstrative, 10},
    {possessive, 19}};

const std::vector<Preposition> prepositions = {
    {"in", {"dans"}, place | vehicle},
    {"on", {"sur"}, furniture},
    {"under", {"sous"}, furniture | outdoor},
    {"near", {"près", "de"}, place | furniture | vehicle | outdoor},
    {"with", {"avec"}, animate},
};

// Words that start with a silent h behave as if they started with the vowel: l'homme, l'hôtel, cet hôpital.
// Any other French word starting with h would have an aspirated h (le huit, de huit); check_lexicon() makes
// sure every h-word of the lexicon is listed in one table or the other.
const std::set<std::string> silent_h_words = {"homme",   "hommes",   "hôtel",    "hôtels",    "hôpital",
                                              "hôpitaux", "horloge", "horloges", "histoire", "histoires",
                                              "heureux", "heureuse", "heureuses"};
const std::set<std::string> aspirated_h_words = {"huit"};

// The tables are written by hand, so check the promises the grammar relies on once, before the first sentence:
// no English word names two different things (else one English sentence could have two translations), English
// plurals differ from singulars (else "the bus" would not tell "le bus" from "les bus"), and every French word
// starting with h is known to be silent-h or aspirated-h (else elision could go wrong).
void check_lexicon() {
  std::set<std::string> english_words;
  auto claim = [&](const std::string& word, const std::string& table) {
    if (!word.empty() && !english_words.insert(word).second) {
      throw Error("toy-en-fr lexicon: the English word '" + word + "' appears twice (" + table + ")");
    }
  };
  auto check_h = [](const std::string& word) {
    if (word.starts_with("h") && !silent_h_words.count(word) && !aspirated_h_words.count(word)) {
      throw Error("toy-en-fr lexicon: '" + word + "' starts with h; list it as silent or aspirated");
    }
  };
  for (const Noun& noun : nouns) {
    claim(noun.english, "nouns");
    claim(noun.english_plural, "nouns");
    bool countable = !(noun.kind & uncountable);
    if (countable == (noun.english_plural[0] == '\0') || countable == (noun.french_plural[0] == '\0')) {
      throw Error(std::string("toy-en-fr lexicon: '") + noun.english +
                  "' must have plurals exactly when it is countable");
    }
    check_h(noun.french);
    check_h(noun.french_plural);
  }
  for (const Adjective& adjective : adjectives) {
    claim(adjective.english, "adjectives");
    for (const char* form : {adjective.masculine, adjective.feminine, adjective.masculine_plural,
                             adjective.feminine_plural, adjective.masculine_before_vowel}) {
      check_h(form);
    }
  }
  for (const Verb& verb : verbs()) {
    claim(verb.english, "verbs");
    claim(verb.english_third, "verbs");
    for (const std::string& form : verb.french) check_h(form);
  }
  for (const Determiner& determiner : determiners) check_h(determiner.plural);
}

}  // namespace toy_en_fr
}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
