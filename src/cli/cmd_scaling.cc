// `yardstick scaling --unit UNIT [--ranks 1,2,4 | --max-ranks N] [--launcher mpirun|srun]
// [--oversubscribe] [--size BYTES] [--iters N] [--target 0.99] [--timeout S] [--json]`: the same
// proxy or collective at 1, 2, 4 ... N ranks, each count a real job started through the launcher
// (`mpirun -np K yardstick bench --filter UNIT --json` or `srun -n K --mpi=pmix ...`), and the
// efficiency at each step (workloads/scaling.h: a proxy's tokens/s per GPU, a collective's busbw
// at --size). Exit 0 when every count stays at or above the target, 1 when one falls below, 2
// when a job fails or its document lacks the figure (the command, its exit and its stderr named).
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "bench/benchmark.h"
#include "cli/command.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "core/report_json.h"
#include "core/text.h"
#include "host/subprocess.h"
#include "workloads/scaling.h"

namespace ys::cli {
namespace {

struct ScalingArgs {
  std::string unit, ranks, launcher = "mpirun", size = "16M";
  int max_ranks = 4;
  int iters = -1;
  double target = 0.99;
  double timeout_s = 600;
  bool oversubscribe = false, json = false;
};

bool IsCollective(const std::string& unit) { return StartsWith(unit, "coll."); }

// The figure a job's document gives for `unit`: a proxy's tokens/s per GPU, or a collective's
// out-of-place busbw at `size` bytes.
Result<double> FigureOf(const RunDocument& doc, const std::string& unit, uint64_t size) {
  std::vector<const BenchmarkResult*> results;
  for (const auto& b : doc.benchmarks) results.push_back(&b);
  for (const auto& n : doc.nodes) {
    for (const auto& b : n.benchmarks) results.push_back(&b);
  }
  for (const BenchmarkResult* b : results) {
    if (b->unit_id != unit) continue;
    if (b->outcome == Outcome::kSkip || b->outcome == Outcome::kError) {
      return Status::Invalid(fmt::format("{} {}: {}", unit, OutcomeName(b->outcome), b->summary));
    }
    for (const Measurement& m : b->measurements) {
      if (IsCollective(unit)) {
        auto s = m.params.find("size");
        auto inplace = m.params.find("inplace");
        if (m.name == unit + ".busbw" && s != m.params.end() && s->second == std::to_string(size) &&
            inplace != m.params.end() && inplace->second == "0") {
          return m.value;
        }
      } else if (m.name == unit + ".tokens_per_s_per_gpu") {
        return m.value;
      }
    }
  }
  return Status::Invalid(fmt::format(
      "the document has no {} figure for {}",
      IsCollective(unit) ? "busbw at " + std::to_string(size) + " B" : "tokens_per_s_per_gpu",
      unit));
}

std::vector<std::string> JobArgv(const ScalingArgs& a, int ranks, const std::string& self) {
  std::vector<std::string> argv;
  if (a.launcher == "srun") {
    argv = {"srun", "-n", std::to_string(ranks), "--mpi=pmix"};
  } else {
    argv = {"mpirun", "-np", std::to_string(ranks)};
    if (::geteuid() == 0) argv.push_back("--allow-run-as-root");
    if (a.oversubscribe) argv.push_back("--oversubscribe");
  }
  for (std::string s : {self, std::string("bench"), std::string("--filter"), a.unit,
                        std::string("--json"), std::string("--no-history")}) {
    argv.push_back(std::move(s));
  }
  if (IsCollective(a.unit)) argv.insert(argv.end(), {"--sizes", a.size});
  if (a.iters > 0) argv.insert(argv.end(), {"--iters", std::to_string(a.iters)});
  return argv;
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<ScalingArgs>();
  sub.add_option("--unit", a->unit, "A proxy (proxy.llama3.1_8b) or collective (coll.all_reduce)")
      ->required();
  sub.add_option("--ranks", a->ranks,
                 "Rank counts, comma-separated (default 1, 2, 4 ... --max-ranks)");
  sub.add_option("--max-ranks", a->max_ranks, "Largest rank count of the default series")
      ->check(CLI::Range(1, 1 << 20));
  sub.add_option("--launcher", a->launcher, "How each job starts")
      ->check(CLI::IsMember({"mpirun", "srun"}));
  sub.add_flag("--oversubscribe", a->oversubscribe, "mpirun: more ranks than cores");
  sub.add_option("--size", a->size, "Collectives: the message size judged (default 16M)");
  sub.add_option("--iters", a->iters, "Timed iterations (steps) per job");
  sub.add_option("--target", a->target, "Efficiency each count must keep (default 0.99)")
      ->check(CLI::Range(0.01, 1.0));
  sub.add_option("--timeout", a->timeout_s, "Seconds each job may take");
  sub.add_flag("--json", a->json, "Print the points and efficiencies as JSON");
  return [a]() -> int {
    if (int rc = RefuseOutOfRange(
            {CheckRange(a->timeout_s, 0, kMaxTimeoutSeconds, "--timeout", LowerBound::kExclusive)}))
      return rc;
    if (!StartsWith(a->unit, "proxy.") && !IsCollective(a->unit)) {
      Log(LogLevel::kError, "--unit {}: expected a proxy (proxy.*) or a collective (coll.*)",
          a->unit);
      return kExitUsage;
    }
    auto size = bench::ParseByteSize(a->size);
    if (!size.ok()) {
      Log(LogLevel::kError, "--size: {}", size.status().message());
      return kExitUsage;
    }
    std::vector<int> counts;
    if (a->ranks.empty()) {
      counts = workloads::PowersOfTwoUpTo(a->max_ranks);
    } else {
      for (std::string_view part : Split(a->ranks, ',')) {
        auto k = ParseInt(part);
        if (!k || *k < 1) {
          Log(LogLevel::kError, "--ranks {}: \"{}\" is not a rank count of 1 or more", a->ranks,
              part);
          return kExitUsage;
        }
        counts.push_back(static_cast<int>(*k));
      }
    }
    std::error_code ec;
    std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (ec) {
      Log(LogLevel::kError, "/proc/self/exe: {}", ec.message());
      return kExitCannotRun;
    }
    std::vector<workloads::ScalingPoint> points;
    for (int k : counts) {
      if (IsCollective(a->unit) && k == 1) continue;  // one rank moves no data
      std::vector<std::string> argv = JobArgv(*a, k, self);
      if (!a->json) fmt::print(stderr, "scaling: {} ranks: {}\n", k, Join(argv, " "));
      auto run = host::RunSubprocess(
          {.argv = argv,
           .timeout = std::chrono::milliseconds(static_cast<int64_t>(a->timeout_s * 1000))});
      if (!run.ok()) {
        Log(LogLevel::kError, "{}", run.status().message());
        return kExitCannotRun;
      }
      auto doc = [&]() -> Result<RunDocument> {
        try {
          return RunDocumentFromJson(nlohmann::json::parse(run->out));
        } catch (const nlohmann::json::exception& e) {
          return Status::Invalid(std::string("not a run document: ") + e.what());
        }
      }();
      auto figure = doc.ok() ? FigureOf(*doc, a->unit, *size) : Result<double>(doc.status());
      if (!figure.ok()) {
        Log(LogLevel::kError, "{} ranks ({}): {}; {}", k, run->Describe(),
            figure.status().message(), run->Explain(argv[0]));
        return kExitCannotRun;
      }
      points.push_back({.ranks = k, .value = *figure});
    }
    auto kind = IsCollective(a->unit) ? workloads::ScalingKind::kBusBandwidth
                                      : workloads::ScalingKind::kPerRankThroughput;
    auto report = workloads::AnalyseScaling(points, kind, a->target);
    if (!report.ok()) {
      Log(LogLevel::kError, "{}", report.status().message());
      return kExitCannotRun;
    }
    const char* what = IsCollective(a->unit) ? "busbw GB/s" : "tokens/s/GPU";
    if (a->json) {
      nlohmann::ordered_json j = {{"unit", a->unit},
                                  {"figure", what},
                                  {"base_ranks", report->base_ranks},
                                  {"target", report->target},
                                  {"worst_efficiency", report->worst_efficiency},
                                  {"linear", report->linear},
                                  {"points", nlohmann::ordered_json::array()}};
      for (const auto& r : report->rows) {
        nlohmann::ordered_json p = {{"ranks", r.ranks},
                                    {"value", r.value},
                                    {"efficiency", r.efficiency},
                                    {"below_target", r.below_target}};
        if (r.speedup) p["speedup"] = *r.speedup;
        j["points"].push_back(p);
      }
      std::cout << DumpJson(j) << "\n";
    } else {
      std::vector<std::string> shown;
      for (const auto& r : report->rows) shown.push_back(std::to_string(r.ranks));
      fmt::print("# {} scaling over {} ranks: {}; efficiency = value / value at {} ranks{}\n",
                 a->unit, Join(shown, ", "), what, report->base_ranks,
                 kind == workloads::ScalingKind::kPerRankThroughput
                     ? "; speed-up = ranks / base x efficiency"
                     : "");
      fmt::print("# {:>6} {:>14} {:>10} {:>9}\n", "ranks", what, "efficiency", "speed-up");
      for (const auto& r : report->rows) {
        fmt::print("  {:>6} {:>14.6g} {:>9.1f}% {:>9}{}\n", r.ranks, r.value, r.efficiency * 100,
                   r.speedup ? fmt::format("{:.2f}", *r.speedup) : "-",
                   r.below_target ? "  below target" : "");
      }
      fmt::print("scaling: worst efficiency {:.1f}% against a target of {:.1f}%: {}\n",
                 report->worst_efficiency * 100, report->target * 100,
                 report->linear ? "LINEAR" : "BELOW TARGET");
    }
    return report->linear ? kExitPass : kExitFail;
  };
}

}  // namespace

YS_REGISTER_COMMAND(
    "scaling", "Run a proxy or collective at 1, 2, 4 ... N ranks and report the scaling efficiency",
    Setup)

}  // namespace ys::cli
