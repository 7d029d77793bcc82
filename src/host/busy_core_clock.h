// The busy-core clock: the frequency a core actually sustains while one thread keeps it busy,
// measured with a timed chain of dependent integer adds (one add per cycle: each add needs the
// previous result, so the chain runs at one add per clock). It works without privileges, MSRs,
// perf counters or cpufreq files, so it answers inside VMs and containers too.
//
// What lowers the result, besides the clock itself: load on the SMT sibling of the measured
// thread, hypervisor steal time, other threads and interrupts on the core. Each CPU's value is
// its fastest 1 ms window, which discards the windows that lost the core to others; a sibling's
// load lowers every window and stays in the result.
//
// Recorded form: `yardstick capture` writes the live result to <root>/.yardstick/busy-clock with
// FormatBusyClock; a replay (a host that is not live) reads it back with ParseBusyClock.
//   # comment lines
//   cpu0 3751.2
//   cpu4 3748.9
#ifndef YARDSTICK_HOST_BUSY_CORE_CLOCK_H_
#define YARDSTICK_HOST_BUSY_CORE_CLOCK_H_

#include <map>
#include <string>
#include <string_view>

#include "core/cpu_set.h"
#include "core/status.h"
#include "host/host.h"
#include "host/topology.h"

namespace ys::host {

inline constexpr const char* kBusyClockPath = "/.yardstick/busy-clock";

// Measures each CPU of `cpus` in turn, one at a time (so idle neighbours leave the package its
// turbo headroom, which is what deep C-states decide), from a thread pinned to that CPU: a short
// warm-up (5 ms), then `ms_per_cpu` timed 1 ms windows. Returns MHz per CPU. Fails naming the
// CPU when the thread cannot be pinned there (not allowed, offline) or not started.
// Thread safety: safe to call from any thread; it creates and joins its own threads.
Result<std::map<int, double>> MeasureBusyClockMhz(const CpuSet& cpus, int ms_per_cpu);

// The CPUs this process may run on (sched_getaffinity).
Result<CpuSet> AllowedCpusOfThisProcess();

// Which CPUs to sample: one thread per physical core (the first allowed one), packages taken in
// turn so that a two-socket node is sampled on both, at most `max_cpus`. Cores with no allowed
// thread are left out. Without core information (`topo` has no cores), the allowed CPUs in order.
CpuSet SelectBusyClockCpus(const Topology& topo, const CpuSet& allowed, int max_cpus);

// "cpu<N> <MHz>" lines; blank lines and '#' comments ignored. Invalid names the line when it is
// malformed, the MHz is not a positive number below 100000, a CPU repeats, or there is no line.
Result<std::map<int, double>> ParseBusyClock(std::string_view text);

// The recorded form, with a comment header; ParseBusyClock(FormatBusyClock(m)) == m to 0.1 MHz.
std::string FormatBusyClock(const std::map<int, double>& mhz);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_BUSY_CORE_CLOCK_H_
