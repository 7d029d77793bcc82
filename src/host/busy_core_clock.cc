#include "host/busy_core_clock.h"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <thread>
#include <vector>

#include "core/text.h"
#include "host/thread_affinity.h"

namespace ys::host {
namespace {

using Clock = std::chrono::steady_clock;

// Adds per call of AddChain. Each add needs the previous result, so the chain retires one add per
// clock on every core with a one-cycle integer add (all current x86_64 and Arm server cores). The
// adds are register + register: some cores (Intel Golden Cove and later) fold add-immediate
// chains at rename and would run them faster than one per clock.
constexpr uint64_t kAddsPerChain = 1000;
// Chains between clock reads: about 25 us at 4 GHz, so reading the clock costs well under 0.1%.
constexpr int kChainsPerCheck = 100;
constexpr int kWarmupMs = 5;
// Timed windows of 1 ms each; a CPU's result is its fastest window. Preemption, steal and
// interrupts can only make a window slower, so the fastest one is the clock the core sustains;
// what lowers every window alike (an SMT sibling's load, a power or thermal limit) stays in.
constexpr int kWindowMs = 1;

// The ".rept 1000" below must match kAddsPerChain.
inline uint64_t AddChain(uint64_t x, uint64_t step) {
  static_assert(kAddsPerChain == 1000);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  asm volatile(".rept 1000\n\taddq %1, %0\n\t.endr" : "+r"(x) : "r"(step));
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
  asm volatile(".rept 1000\n\tadd %0, %0, %1\n\t.endr" : "+r"(x) : "r"(step));
#elif defined(__GNUC__) || defined(__clang__)
  // Any other GCC/Clang target: an empty asm that claims to change x keeps each add in a
  // register and stops the compiler from folding the chain.
  for (uint64_t i = 0; i < kAddsPerChain; ++i) {
    x += step;
    asm volatile("" : "+r"(x));
  }
#else
  // Portable fallback: a volatile accumulator. Each add then goes through memory, so the chain
  // is several cycles per add and the result reads low; only the architectures above are exact.
  volatile uint64_t v = x;
  for (uint64_t i = 0; i < kAddsPerChain; ++i) v = v + step;
  x = v;
#endif
  return x;
}

// Runs the chain for `duration` and returns the adds per microsecond (= MHz at one add per clock).
double TimedWindow(std::chrono::microseconds duration, uint64_t* sink) {
  uint64_t x = *sink;
  uint64_t adds = 0;
  auto t0 = Clock::now();
  auto deadline = t0 + duration;
  Clock::time_point now;
  do {
    for (int i = 0; i < kChainsPerCheck; ++i) x = AddChain(x, 1);
    adds += kAddsPerChain * kChainsPerCheck;
    now = Clock::now();
  } while (now < deadline);
  *sink = x;
  double us = std::chrono::duration<double, std::micro>(now - t0).count();
  return static_cast<double>(adds) / us;
}

// The body of one measuring thread.
Result<double> MeasureOnThisThread(int cpu, int ms) {
  YS_RETURN_IF_ERROR(PinThisThread(cpu));
  uint64_t sink = static_cast<uint64_t>(cpu);
  TimedWindow(std::chrono::milliseconds(kWarmupMs), &sink);
  double best = 0;
  for (int i = 0; i < std::max(1, ms / kWindowMs); ++i) {
    best = std::max(best, TimedWindow(std::chrono::milliseconds(kWindowMs), &sink));
  }
  return best;
}

}  // namespace

Result<std::map<int, double>> MeasureBusyClockMhz(const CpuSet& cpus, int ms_per_cpu) {
  if (ms_per_cpu < 1) return Status::Invalid("busy-clock window must be at least 1 ms");
  std::map<int, double> out;
  for (int cpu : cpus.ids()) {
    std::optional<Result<double>> result;
    try {
      std::thread worker([&] { result.emplace(MeasureOnThisThread(cpu, ms_per_cpu)); });
      worker.join();
    } catch (const std::exception& e) {
      return Status::Internal("cannot start the busy-clock thread for cpu" + std::to_string(cpu) +
                              ": " + e.what());
    }
    if (!result || !result->ok()) {
      return result ? result->status() : Status::Internal("busy-clock thread gave no result");
    }
    out[cpu] = **result;
  }
  return out;
}

Result<CpuSet> AllowedCpusOfThisProcess() {
  for (size_t ncpu = 1024; ncpu <= (1u << 20); ncpu *= 4) {
    cpu_set_t* set = CPU_ALLOC(ncpu);
    if (set == nullptr) return Status::Internal("CPU_ALLOC failed");
    size_t bytes = CPU_ALLOC_SIZE(ncpu);
    CPU_ZERO_S(bytes, set);
    if (sched_getaffinity(0, bytes, set) == 0) {
      CpuSet out;
      for (size_t i = 0; i < ncpu; ++i) {
        if (CPU_ISSET_S(i, bytes, set)) out.Insert(static_cast<int>(i));
      }
      CPU_FREE(set);
      return out;
    }
    int err = errno;
    CPU_FREE(set);
    if (err != EINVAL) return Status::Io(std::string("sched_getaffinity: ") + std::strerror(err));
  }
  return Status::Internal("sched_getaffinity: CPU mask larger than 1M CPUs");
}

CpuSet SelectBusyClockCpus(const Topology& topo, const CpuSet& allowed, int max_cpus) {
  CpuSet out;
  if (max_cpus <= 0) return out;
  if (topo.cores.empty()) {
    for (int cpu : allowed.ids()) {
      if (static_cast<int>(out.size()) >= max_cpus) break;
      out.Insert(cpu);
    }
    return out;
  }
  // Per package, the first allowed thread of each core, in (package, core) order.
  std::vector<const CpuCore*> cores;
  for (const auto& c : topo.cores) cores.push_back(&c);
  std::sort(cores.begin(), cores.end(), [](const CpuCore* a, const CpuCore* b) {
    return std::pair(a->package, a->core) < std::pair(b->package, b->core);
  });
  std::map<int, std::vector<int>> per_package;
  for (const CpuCore* c : cores) {
    CpuSet usable = c->threads.Intersect(allowed);
    if (!usable.empty()) per_package[c->package].push_back(*usable.ids().begin());
  }
  for (size_t round = 0; static_cast<int>(out.size()) < max_cpus; ++round) {
    bool any = false;
    for (const auto& [pkg, firsts] : per_package) {
      if (round >= firsts.size()) continue;
      any = true;
      if (static_cast<int>(out.size()) < max_cpus) out.Insert(firsts[round]);
    }
    if (!any) break;
  }
  return out;
}

Result<std::map<int, double>> ParseBusyClock(std::string_view text) {
  std::map<int, double> out;
  int line_no = 0;
  for (std::string_view raw : SplitLines(text)) {
    ++line_no;
    std::string_view line = Trim(raw);
    if (line.empty() || line.front() == '#') continue;
    auto fields = SplitWhitespace(line);
    auto bad = [&](const std::string& why) {
      return Status::Invalid("line " + std::to_string(line_no) + ": " + why + ", got \"" +
                             std::string(line.substr(0, 60)) + "\"");
    };
    if (fields.size() != 2 || !StartsWith(fields[0], "cpu")) {
      return bad("expected \"cpu<N> <MHz>\"");
    }
    auto cpu = ParseInt(fields[0].substr(3));
    if (!cpu || *cpu < 0 || *cpu > 1'000'000) return bad("expected a CPU number after \"cpu\"");
    auto mhz = ParseDouble(fields[1]);
    if (!mhz || !std::isfinite(*mhz) || *mhz <= 0 || *mhz >= 100000) {
      return bad("expected a clock in MHz above 0 and below 100000");
    }
    if (!out.emplace(static_cast<int>(*cpu), *mhz).second) {
      return bad("cpu" + std::to_string(*cpu) + " appears twice");
    }
  }
  if (out.empty())
    return Status::Invalid("expected at least one \"cpu<N> <MHz>\" line, found none");
  return out;
}

std::string FormatBusyClock(const std::map<int, double>& mhz) {
  std::string out =
      "# yardstick busy-core clock: cpu<N> <MHz>, dependent-add chain, one CPU at a time\n";
  char buf[64];
  for (const auto& [cpu, v] : mhz) {
    std::snprintf(buf, sizeof buf, "cpu%d %.1f\n", cpu, v);
    out += buf;
  }
  return out;
}

}  // namespace ys::host
