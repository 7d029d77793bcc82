// fabric.collective_bandwidth: a collective's bus bandwidth far below the fabric's peak at the
// large message sizes a training step's gradient and parameter collectives use (the largest size
// measured, at least 64 MiB: smaller messages are bound by latency, not bandwidth).
//
// The peak: the benchmark's params pct_of_peak where it set one; else, for NCCL on one node, the
// GPU's NVLink bandwidth per direction from specs/ (nccl-tests' busbw approaches it on NVSwitch
// systems). MPI collectives on CPUs state no peak: this rule cannot judge them and stays silent.
// A collective over one rank moves nothing (busbw is 0 by nccl-tests' definition): never a cause.
// What the slow collective costs depends on the step's share of collective time, which these
// figures do not measure: not quantified.
#include <fmt/format.h>

#include <set>

#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

constexpr double kFarBelow = 0.5;  // below half the peak: nccl-tests on healthy NVLink reach 80%+

// One rank: no communication, nothing to judge (its busbw is 0 by definition).
bool OneRank(const Measurement& m) {
  auto it = m.params.find("ranks");
  return it != m.params.end() && it->second == "1";
}

class CollectiveBandwidthRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    std::vector<Diagnosis> out;
    bool several_nodes = in.run != nullptr && in.run->nodes.size() > 1;
    std::set<std::pair<std::string, std::string>> said;  // (entity, cause): each once
    for (const PeakShare& p : CollectivePeakShares(in)) {
      if (p.share >= kFarBelow || OneRank(*p.measurement)) continue;
      const Measurement& m = *p.measurement;
      std::string collective = m.name.substr(0, m.name.size() - std::string(".busbw").size());
      auto param = [&](const char* k) {
        auto it = m.params.find(k);
        return it == m.params.end() ? std::string("?") : it->second;
      };
      Diagnosis d;
      d.rule = "fabric.collective_bandwidth";
      d.layer = "fabric";
      d.entity = several_nodes ? collective + " on " + p.node : collective;
      d.cause = fmt::format(
          "{} reaches {:.1f} GB/s bus bandwidth at {} bytes, {} of the fabric's "
          "peak",
          collective, m.value, param("size"), Percent(p.share));
      d.evidence = {{m.name, fmt::format("{:.2f} {}", m.value, m.unit)},
                    {"size", param("size") + " bytes"},
                    {"ranks", param("ranks")},
                    {"library", param("library")},
                    {"share of peak", Percent(p.share)},
                    {"peak source", p.peak_source}};
      d.fix = "find the slow hop: yardstick bench --filter " + collective +
              " --pairwise (a pair or ring neighbour far below the others), then the links' "
              "preflight (pcie.*, ib.*, gpu.nvlink) and the NCCL environment (env.runtime)";
      d.recovery = NotQuantified(fmt::format(
          "at this size the collective takes {:.1f}x as long as at the peak; what that costs "
          "the step depends on its share of collective time",
          p.share > 0 ? 1 / p.share : 0.0));
      d.confidence = m.params.count("pct_of_peak") ? Confidence::kMedium : Confidence::kLow;
      d.reference = "nccl-tests busbw (PERFORMANCE.md); " + p.peak_source;
      if (!said.insert({d.entity, d.cause}).second) continue;
      out.push_back(std::move(d));
    }
    return out;
  }

  std::vector<std::string> Unjudged(const DiagnosisInput& in) const override {
    std::set<std::string> judged, unjudged;
    for (const PeakShare& p : CollectivePeakShares(in)) judged.insert(p.measurement->name);
    for (const auto& lm : MeasurementsMatching(in, "coll.*.busbw")) {
      const Measurement& m = *lm.measurement;
      if ((judged.count(m.name) && !OneRank(m)) || m.params.count("pair")) continue;
      auto lib = m.params.find("library");
      unjudged.insert(fmt::format("{} ({}): {}", m.name, lib == m.params.end() ? "?" : lib->second,
                                  OneRank(m) ? "one rank: no communication to judge"
                                  : m.params.count("pct_of_peak")
                                      ? "measured below 64 MiB only, where latency bounds busbw"
                                      : "no stated peak to judge its bus bandwidth against"));
    }
    return {unjudged.begin(), unjudged.end()};
  }
};

}  // namespace

YS_REGISTER(CollectiveBandwidthRule,
            {.id = "fabric.collective_bandwidth",
             .summary = "Collective bus bandwidth at large messages below half the fabric's "
                        "stated peak"});

}  // namespace ys::diagnose
