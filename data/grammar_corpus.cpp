#include "data/grammar_corpus.h"

#include <span>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "core/io/output_file.h"
#include "core/rng.h"
#include "data/random.h"

namespace tg::data {

namespace {

struct Inflected {
  const char* singular;
  const char* plural;  // for verbs: singular = third person ("sees"), plural = base ("see")
};

constexpr Inflected kNouns[] = {
    {"cat", "cats"},         {"dog", "dogs"},     {"bird", "birds"},       {"fox", "foxes"},
    {"mouse", "mice"},       {"horse", "horses"}, {"child", "children"},   {"teacher", "teachers"},
    {"farmer", "farmers"},   {"girl", "girls"},   {"boy", "boys"},         {"owl", "owls"},
    {"elephant", "elephants"}, {"baby", "babies"}, {"wolf", "wolves"},     {"sheep", "sheep"},
};
constexpr Inflected kTransitive[] = {
    {"sees", "see"},     {"likes", "like"},   {"chases", "chase"},   {"finds", "find"},
    {"follows", "follow"}, {"watches", "watch"}, {"helps", "help"},   {"carries", "carry"},
    {"knows", "know"},   {"feeds", "feed"},
};
constexpr Inflected kIntransitive[] = {
    {"sleeps", "sleep"}, {"runs", "run"},   {"sings", "sing"},     {"waits", "wait"},
    {"laughs", "laugh"}, {"jumps", "jump"}, {"hides", "hide"},     {"cries", "cry"},
};
constexpr Inflected kBe = {"is", "are"};
constexpr Inflected kDo = {"does", "do"};
constexpr const char* kSingularDets[] = {"the", "a", "every", "this", "my", "one"};
constexpr const char* kPluralDets[] = {"the", "some", "many", "two", "these", "my"};
constexpr const char* kAdjectives[] = {"red", "small", "big", "old", "happy", "green", "quick", "lazy",
                                       "angry", "little", "brown", "young", "upset", "clever"};
constexpr const char* kNames[] = {"anna", "tom", "maria", "omar", "lena", "ivan"};
constexpr const char* kPreps[] = {"near", "under", "with", "behind", "beside"};
constexpr const char* kAdverbs[] = {"quickly", "slowly", "today", "often", "again", "quietly"};

constexpr int kMaxDepth = 2;  // nesting of PPs and relative clauses

class Sentence {
 public:
  explicit Sentence(Generator& gen) : gen_(gen) {}

  std::string generate() {
    if (random_chance(gen_, 0.1)) {  // a yes/no question
      bool plural = random_chance(gen_, 0.4);
      word(form(kDo, plural));
      noun_phrase(plural, 0);
      word(pick(kTransitive).plural);
      noun_phrase(random_chance(gen_, 0.4), 0);
      word("?");
    } else {
      clause();
      if (random_chance(gen_, 0.15)) {
        word("and");
        clause();
      }
      word(".");
    }
    return fmt::format("{}", fmt::join(words_, " "));
  }

 private:
  template <class T> const T& pick(std::span<const T> items) { return items[random_below(gen_, items.size())]; }
  template <class T, size_t N> const T& pick(const T (&items)[N]) { return pick(std::span<const T>(items)); }
  static const char* form(const Inflected& w, bool plural) { return plural ? w.plural : w.singular; }
  void word(std::string w) { words_.push_back(std::move(w)); }

  void clause() {
    bool plural = random_chance(gen_, 0.4);
    noun_phrase(plural, 0);
    verb_phrase(plural, 0);
  }

  void noun_phrase(bool plural, int depth) {
    if (!plural && random_chance(gen_, 0.1)) return word(pick(kNames));
    const size_t det_at = words_.size();
    word(plural ? pick(kPluralDets) : pick(kSingularDets));
    for (int k = 0; k < 2 && random_chance(gen_, 0.35); ++k) word(pick(kAdjectives));
    word(form(pick(kNouns), plural));
    if (words_[det_at] == "a" && std::string("aeiou").find(words_[det_at + 1][0]) != std::string::npos)
      words_[det_at] = "an";
    if (depth < kMaxDepth && random_chance(gen_, 0.15)) {
      word(pick(kPreps));
      noun_phrase(random_chance(gen_, 0.4), depth + 1);
    }
    if (depth < kMaxDepth && random_chance(gen_, 0.12)) {
      word("that");
      verb_phrase(plural, depth + 1);
    }
  }

  void verb_phrase(bool plural, int depth) {
    const uint64_t kind = random_below(gen_, 20);
    if (kind < 10) {  // transitive
      word(form(pick(kTransitive), plural));
      noun_phrase(random_chance(gen_, 0.4), depth);
    } else if (kind < 17) {
      word(form(pick(kIntransitive), plural));
    } else {
      word(form(kBe, plural));
      word(pick(kAdjectives));
      return;
    }
    if (random_chance(gen_, 0.2)) word(pick(kAdverbs));
  }

  Generator& gen_;
  std::vector<std::string> words_;
};

}  // namespace

std::string grammar_corpus(int64_t sentences, uint64_t seed) {
  if (sentences < 0) throw Error("grammar_corpus", fmt::format("sentences must be >= 0, got {}", sentences));
  Generator gen(seed);
  std::string text;
  for (int64_t i = 0; i < sentences; ++i) text += Sentence(gen).generate() + "\n";
  return text;
}

void write_grammar_corpus(const std::string& path, int64_t sentences, uint64_t seed) {
  write_file_atomically("write_grammar_corpus", path, grammar_corpus(sentences, seed));
}

}  // namespace tg::data
