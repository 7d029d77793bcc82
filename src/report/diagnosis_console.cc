#include "report/diagnosis_console.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/repeated_findings.h"

namespace ys::report {
namespace {

const char* ConfidenceColor(Confidence c) {
  switch (c) {
    case Confidence::kHigh:
      return "\033[31m";  // the surest causes stand out
    case Confidence::kMedium:
      return "\033[33m";
    case Confidence::kLow:
      return "\033[2m";
  }
  return "";
}

std::string Painted(const std::string& text, const char* color, bool on) {
  return on ? std::string(color) + text + "\033[0m" : text;
}

// Diagnoses that print alike apart from their entity (one rule firing the same way on many
// workloads) print once with their count and entities (core/repeated_findings.h).
std::vector<RepeatKey> DiagnosisKeys(const std::vector<Diagnosis>& ranked) {
  std::vector<RepeatKey> keys;
  for (const Diagnosis& d : ranked) {
    std::string codes;
    for (const auto& c : d.finding_codes) codes += c + ",";
    keys.push_back({d.rule, d.entity,
                    fmt::format("{}\n{}\n{}\n{}\n{}\n{}\n{}", FormatRecovery(d.recovery),
                                ConfidenceName(d.confidence), d.layer, d.cause, d.fix,
                                d.recovery.basis, codes)});
  }
  return keys;
}

void WriteDiagnosisEvidence(const Diagnosis& d, std::ostream& out) {
  for (size_t i = 0; i < d.evidence.size() && i < kConsoleEvidenceLines; ++i) {
    out << "     evidence: " << d.evidence[i].first << " = " << d.evidence[i].second << "\n";
  }
  if (d.evidence.size() > kConsoleEvidenceLines) {
    out << fmt::format("     evidence: ... {} more (--json)\n",
                       d.evidence.size() - kConsoleEvidenceLines);
  }
}

}  // namespace

void WriteDiagnosis(const std::vector<Diagnosis>& ranked,
                    const std::vector<std::string>& not_evaluated, bool color, std::ostream& out) {
  if (ranked.empty()) {
    out << "diagnosis: no cause found\n";
  } else {
    out << fmt::format(
        "diagnosis: {} cause{}, ranked by expected recovery (throughput gained once fixed{})\n",
        ranked.size(), ranked.size() == 1 ? "" : "s",
        ranked.size() == 1 ? "" : "; each alone: the recoveries do not add up");
  }
  int rank = 0;
  for (const RepeatGroup& g : GroupRepeats(DiagnosisKeys(ranked))) {
    const Diagnosis& d = ranked[g.members.front()];
    std::string confidence = fmt::format("{:<6}", ConfidenceName(d.confidence));
    out << fmt::format("{:>3}. {:<18} {} {:<14} {}  {}\n", ++rank, FormatRecovery(d.recovery),
                       Painted(confidence, ConfidenceColor(d.confidence), color), d.layer, d.rule,
                       g.entities);
    out << "     cause:    " << d.cause << "\n";
    out << "     fix:      " << d.fix << "\n";
    out << "     recovery: " << d.recovery.basis << "\n";
    if (!d.recovery.estimate.empty()) out << "     estimate: " << d.recovery.estimate << "\n";
    WriteDiagnosisEvidence(d, out);
    bool same = std::all_of(g.members.begin(), g.members.end(),
                            [&](size_t i) { return ranked[i].evidence == d.evidence; });
    if (!same) out << "     evidence: as for " << d.entity << "; --json lists each\n";
    if (!d.finding_codes.empty()) {
      std::string codes;
      for (const auto& c : d.finding_codes) codes += (codes.empty() ? "" : ", ") + c;
      out << "     rests on: " << codes << "\n";
    }
  }
  for (const auto& n : not_evaluated) out << "not evaluated: " << n << "\n";
}

}  // namespace ys::report
