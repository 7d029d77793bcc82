#include "core/did_you_mean.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace ys {
namespace {

char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// `name` lower-cased without the separators that names of models and chips vary in.
std::string Folded(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c != '.' && c != '-' && c != '_') out += Lower(c);
  }
  return out;
}

// The candidate nearest `word` within the limit for its length, or "".
std::string NearestWithin(std::string_view word, const std::vector<std::string>& candidates,
                          bool folded) {
  std::string w = folded ? Folded(word) : std::string(word);
  size_t limit = w.size() <= 4 ? 1 : w.size() <= 8 ? 2 : w.size() / 4;
  std::string best;
  size_t best_d = limit + 1;
  for (const std::string& c : candidates) {
    size_t d = EditDistance(w, folded ? Folded(c) : c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

}  // namespace

size_t EditDistance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance over three rows.
  std::vector<size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = Lower(a[i - 1]) == Lower(b[j - 1]) ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && Lower(a[i - 1]) == Lower(b[j - 2]) &&
          Lower(a[i - 2]) == Lower(b[j - 1])) {
        cur[j] = std::min(cur[j], before[j - 2] + 1);
      }
    }
    before.swap(prev);
    prev.swap(cur);
  }
  return prev[b.size()];
}

std::string NearestName(std::string_view word, const std::vector<std::string>& candidates) {
  if (std::find(candidates.begin(), candidates.end(), word) != candidates.end()) return "";
  std::string best = NearestWithin(word, candidates, false);
  return best.empty() ? NearestWithin(word, candidates, true) : best;
}

std::string MatchName(std::string_view word, const std::vector<std::string>& candidates) {
  if (std::find(candidates.begin(), candidates.end(), word) != candidates.end())
    return std::string(word);
  std::string w = Folded(word);
  for (const std::string& c : candidates) {
    if (!w.empty() && Folded(c) == w) return c;
  }
  return "";
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string near = NearestName(word, candidates);
  return near.empty() ? std::string() : "; did you mean '" + near + "'?";
}

}  // namespace ys
