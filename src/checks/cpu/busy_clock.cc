// cpu.busy_clock: the clock a busy core actually sustains, measured (a timed dependent-add chain
// pinned to each sampled CPU in turn) and compared with the rated maximum. It catches what the
// settings alone do not show (C6 disabled in BIOS, power caps, thermal limits) and works where
// there are no cpufreq files, as in a VM (reference: docs/node-checks.md §frequency, "Measuring
// actual busy-core frequency"). On a recorded tree it replays <root>/.yardstick/busy-clock.
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checks/check.h"
#include "host/busy_core_clock.h"
#include "host/cpufreq.h"
#include "host/procfs.h"
#include "host/virt.h"

namespace ys::checks {
namespace {

constexpr const char* kBusyClockReference =
    "docs/node-checks.md §frequency (timed busy loop; turbostat Bzy_MHz is the hardware "
    "equivalent)";
constexpr const char* kExemplarRecovery =
    "about 4% of step time when the cause is C6 disabled (Exemplar case: busy cores held at "
    "3.0 GHz on a 3.8 GHz part; allowing C6 recovered about 4%)";

std::string Fmt(double v, const char* unit) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0f %s", v, unit);
  return buf;
}

std::string Percent(double ratio) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", ratio * 100);
  return buf;
}

struct Rated {
  double mhz = 0;
  std::string source;
};

// cpuinfo_max_freq (the turbo maximum) when cpufreq exists; else the base clock in an x86 model
// name ("... @ 2.40GHz"); else none.
Result<std::optional<Rated>> RatedMaximum(const host::Host& h, const CpuSet& cpus) {
  auto khz = host::ReadRatedMaxKhz(h, cpus);
  if (!khz.ok()) return khz.status();
  if (khz->has_value()) {
    return std::optional<Rated>(
        Rated{static_cast<double>(**khz) / 1000.0, "cpufreq cpuinfo_max_freq (the turbo maximum)"});
  }
  auto text = h.ReadFile("/proc/cpuinfo");
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) return std::optional<Rated>();
    return text.status();
  }
  auto entries = host::ParseCpuInfo(*text);
  if (!entries.ok())
    return Status::Invalid(h.Resolve("/proc/cpuinfo") + ": " + entries.status().message());
  if (entries->empty()) return std::optional<Rated>();
  auto it = entries->front().fields.find("model name");
  if (it == entries->front().fields.end()) return std::optional<Rated>();
  auto mhz = host::ModelNameMhz(it->second);
  if (!mhz) return std::optional<Rated>();
  return std::optional<Rated>(Rated{*mhz, "the base clock in the /proc/cpuinfo model name \"" +
                                              it->second +
                                              "\" (no cpufreq; the turbo maximum is "
                                              "higher, so this comparison is lenient)"});
}

// Measures the busy clock of up to site cpu.busy_clock_cpus CPUs (one thread per core) into
// `mhz`, with the recording that lets `yardstick capture` replay it; or the result to give
// instead.
std::optional<CheckResult> MeasureLive(const CheckContext& ctx, std::map<int, double>& mhz,
                                       std::string& method, CheckResult& r) {
  auto allowed = host::AllowedCpusOfThisProcess();
  if (!allowed.ok()) return CheckResult::Error(allowed.status());
  host::Topology none;
  const auto& topo = ctx.topology();
  const host::Topology& t = topo.ok() ? *topo : none;
  CpuSet usable = topo.ok() ? allowed->Intersect(t.online_cpus) : *allowed;
  CpuSet cpus = host::SelectBusyClockCpus(t, usable, ctx.param<int>("busy_clock_cpus"));
  if (cpus.empty()) return CheckResult::Skip("no online CPU is available to this process");
  const int window_ms = ctx.param<int>("busy_clock_ms");
  auto measured = host::MeasureBusyClockMhz(cpus, window_ms);
  if (!measured.ok()) return CheckResult::Error(measured.status());
  mhz = std::move(*measured);
  r.recordings[host::kBusyClockPath] = host::FormatBusyClock(mhz);  // for `yardstick capture`
  method = "measured live: dependent-add chain pinned to each CPU in turn, fastest of " +
           std::to_string(window_ms) + " 1 ms windows after a 5 ms warm-up, one " +
           "thread per core (" + std::to_string(cpus.size()) + " of " +
           std::to_string(usable.size()) + " allowed CPUs)";
  return std::nullopt;
}

// The busy clock a recorded tree carries (host::kBusyClockPath); or the result to give instead.
std::optional<CheckResult> ReadRecorded(const host::Host& h, std::map<int, double>& mhz,
                                        std::string& method) {
  auto text = h.ReadFile(host::kBusyClockPath);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) {
      return CheckResult::Skip("recorded tree without a busy-clock recording (" +
                               h.Resolve(host::kBusyClockPath) +
                               " absent): the clock can "
                               "only be measured on the live machine");
    }
    return CheckResult::Error(text.status());
  }
  auto parsed = host::ParseBusyClock(*text);
  if (!parsed.ok()) {
    return CheckResult::Error(
        Status::Invalid(h.Resolve(host::kBusyClockPath) + ": " + parsed.status().message()));
  }
  mhz = std::move(*parsed);
  method = std::string("recorded: ") + host::kBusyClockPath;
  return std::nullopt;
}

class BusyClockCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    const host::Host& h = ctx.host();
    if (ctx.param<int>("busy_clock_cpus") == 0) {
      return CheckResult::Skip("turned off by site policy (cpu.busy_clock_cpus = 0)");
    }
    CheckResult r;
    std::map<int, double> mhz;
    std::string method;
    std::optional<CheckResult> stop =
        h.live() ? MeasureLive(ctx, mhz, method, r) : ReadRecorded(h, mhz, method);
    if (stop) return std::move(*stop);
    r.Note("method", method);

    CpuSet cpus;
    std::vector<double> values;
    for (const auto& [cpu, v] : mhz) {
      cpus.Insert(cpu);
      values.push_back(v);
      r.Note("cpu" + std::to_string(cpu), Fmt(v, "MHz"));
    }
    double median = ComputeStats(values).median;
    r.Note("median", Fmt(median, "MHz"));
    if (auto guest = host::VirtualMachineSign(h)) {
      r.Note("caveat", "VM guest (" + *guest + "): hypervisor steal time lowers the result");
    } else if (const auto& topo = ctx.topology(); topo.ok() && topo->ThreadsPerCore() > 1) {
      r.Note("caveat", "load on the SMT siblings of the measured CPUs lowers the result");
    }

    auto rated = RatedMaximum(h, cpus);
    if (!rated.ok()) return CheckResult::Error(rated.status());
    if (!rated->has_value()) {
      r.summary = "median busy-core clock " + Fmt(median, "MHz") + " over " +
                  std::to_string(cpus.size()) +
                  " CPUs; no rated maximum known (no cpufreq, no "
                  "clock in the model name), so not compared";
      return r;
    }
    const Rated& ref = **rated;
    double ratio = median / ref.mhz;
    r.Note("rated maximum", Fmt(ref.mhz, "MHz") + " from " + ref.source);
    const double min_ratio = ctx.param<double>("min_busy_clock_ratio");
    r.Note("ratio", Percent(ratio) + " (site minimum " + Percent(min_ratio) + ")");
    if (ratio < min_ratio) {
      Finding f = MakeFinding("YS-CPU-016", "node",
                              "median busy-core clock " + Fmt(median, "MHz") + " is " +
                                  Percent(ratio) + " of the rated maximum " + Fmt(ref.mhz, "MHz") +
                                  " (site minimum " + Percent(min_ratio) + ")");
      for (int cpu : cpus.ids())
        f.evidence.emplace_back("cpu" + std::to_string(cpu), Fmt(mhz[cpu], "MHz"));
      f.evidence.emplace_back("rated maximum", Fmt(ref.mhz, "MHz") + " from " + ref.source);
      f.evidence.emplace_back("method", method);
      f.fix =
          "see cpu.cstates and cpu.frequency: allow C6 and turbo, use the performance "
          "governor, lift BIOS/BMC power caps; check cooling (thermal throttling), and in a VM "
          "the host's settings and CPU steal";
      f.expected_recovery = kExemplarRecovery;
      f.reference = kBusyClockReference;
      r.Add(std::move(f));
      return r;
    }
    r.summary = "median busy-core clock " + Fmt(median, "MHz") + " = " + Percent(ratio) + " of " +
                Fmt(ref.mhz, "MHz") + " over " + std::to_string(cpus.size()) + " CPUs";
    return r;
  }
};

}  // namespace

YS_REGISTER(BusyClockCheck,
            {.id = "cpu.busy_clock",
             .summary = "Measured busy-core clock (a timed dependent-add loop on each "
                        "sampled core) against the rated maximum.",
             .needs = {},
             .codes = {{"YS-CPU-016", Severity::kFail,
                        "measured busy-core clock below the rated maximum"}},
             .params = {{.name = "min_busy_clock_ratio",
                         .type = ParamType::kDouble,
                         .default_value = 0.90,
                         .lo = 0,
                         .hi = 2,
                         .meaning = "lowest measured busy clock / rated maximum",
                         .site_table = "cpu"},
                        {.name = "busy_clock_cpus",
                         .type = ParamType::kInt,
                         .default_value = 8,
                         .lo = 0,
                         .hi = 4096,
                         .meaning = "CPUs sampled (0 turns the measurement off)",
                         .site_table = "cpu"},
                        {.name = "busy_clock_ms",
                         .type = ParamType::kInt,
                         .default_value = 20,
                         .lo = 1,
                         .hi = 1000,
                         .meaning = "timed window per CPU, in ms",
                         .site_table = "cpu"}}})

}  // namespace ys::checks
