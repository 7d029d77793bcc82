// "Did you mean" for a mistyped name (a command, a flag, a check filter, a suite): the candidate
// nearest by edit distance, compared case-insensitively, when it is near enough to be a typo.
#ifndef YARDSTICK_CORE_DID_YOU_MEAN_H_
#define YARDSTICK_CORE_DID_YOU_MEAN_H_

#include <string>
#include <string_view>
#include <vector>

namespace ys {

// Levenshtein distance (insertions, deletions, substitutions, and a swap of two neighbours
// counted as one edit), ignoring case.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate nearest `word`: at most 1 edit for words of up to 4 characters, 2 up to 8,
// then a quarter of the length; failing that, the same with the separators '.', '-' and '_'
// left out of both ("llama3-70b" is near "llama3.1_70b"). "" when none is that near, or `word`
// is itself a candidate.
std::string NearestName(std::string_view word, const std::vector<std::string>& candidates);

// The candidate that `word` names when case and the separators '.', '-' and '_' are ignored
// ("H100" names "h100", "Llama3.1-8B" names "llama3.1_8b"); "" when none does.
std::string MatchName(std::string_view word, const std::vector<std::string>& candidates);

// "; did you mean 'preflight'?" or "".
std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace ys

#endif  // YARDSTICK_CORE_DID_YOU_MEAN_H_
