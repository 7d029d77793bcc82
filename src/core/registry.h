// The unit registry. Every unit - check, benchmark (proxy workloads are benchmarks), diagnosis
// rule, subcommand - registers itself in one line at static initialisation with a constant
// description and a factory; nothing runs at start-up:
//
//   YS_REGISTER(GpuPowerCheck, {.id = "gpu.power", .summary = "...", .needs = {Need::kGpu}});
//
// The class derives from its kind's base class (checks::Check, bench::Benchmark,
// diagnose::Rule, cli::Command), which derives from Unit and names the kind in `kKind`. The
// registry is filled before main() and read-only afterwards, so reads need no lock.
#ifndef YARDSTICK_CORE_REGISTRY_H_
#define YARDSTICK_CORE_REGISTRY_H_

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/figure_spec.h"
#include "core/finding_codes.h"
#include "core/unit_params.h"

namespace ys {

enum class UnitKind { kCheck, kBenchmark, kRule, kCommand };
const char* UnitKindName(UnitKind kind);

// What a unit needs to be meaningful. The runner (core/unit_runner.h) weighs a unit's `needs`
// against what the run's context provides and skips the unit with the reason, without calling
// it, when one is not met.
// kGpu: the node's GPU state with at least one GPU; kGpuState: the GPU state, even one that lists
// no GPU (a unit that judges a count of zero).
enum class Need { kRoot, kGpu, kMpi, kContainer, kLiveHost, kSlurm, kInfiniband, kGpuState };
const char* NeedName(Need need);

struct UnitInfo {
  std::string_view id;       // stable dotted id: "cpu.cstates"; a subcommand's name: "list"
  std::string_view summary;  // one sentence
  std::vector<Need> needs;   // enforced by the runner
  // Read when the context has it, judged by the unit itself when it does not (gpu.xid reads the
  // kernel log without NVML; a collective runs over one process's GPUs without MPI). Listed
  // after `needs` by `yardstick list`, never enforced.
  std::vector<Need> uses;
  // The finding codes this unit can raise, with their default severity and title
  // (core/finding_codes.h): every code it raises, also those its area's helpers raise for it. A
  // code several units raise is declared by each, alike.
  std::vector<FindingCodeInfo> codes;
  bool disruptive = false;  // changes system state or loads it heavily: runs only when asked
  // Part of `yardstick run`'s quick profile when no --filter narrows the selection (one proxy
  // stands for the seven there; the others run under `yardstick bench`).
  bool in_quick_profile = true;
  // Tunables the unit reads through its context, set by a site file's [unit."<id>"] table
  // (core/unit_params.h); shown by `yardstick list --params`.
  std::vector<ParamSpec> params;
  // A benchmark's declaration of what it measures (core/figure_spec.h): the kind of figure, each
  // figure's unit, better direction and peak, and which params identify a figure. Required of
  // every benchmark (a test walks the registry); empty for the other kinds.
  Measures measures;
};

// Base of every unit type; the layer that defines a kind derives from it and declares
//   static constexpr UnitKind kKind = UnitKind::k...;
class Unit {
 public:
  virtual ~Unit() = default;
};

using UnitFactory = std::function<std::unique_ptr<Unit>()>;

struct RegisteredUnit {
  UnitKind kind;
  UnitInfo info;
  UnitFactory factory;
  std::string_view file;  // where it registers, from the repository: "src/checks/cpu/smt.cc"
};

class UnitRegistry {
 public:
  static UnitRegistry& Global();

  // Returns true so that it can initialise a namespace-scope bool. Aborts on an id registered
  // twice for one kind: two units with one id are a build error that must not reach a user.
  // `file` is the registering source file (__FILE__).
  bool Add(UnitKind kind, UnitInfo info, UnitFactory factory, std::string_view file = {});

  // Sorted by id.
  std::vector<const RegisteredUnit*> List(UnitKind kind) const;
  std::vector<const RegisteredUnit*> List(std::initializer_list<UnitKind> kinds) const;
  std::vector<const RegisteredUnit*> ListAll() const;
  // The unit of this kind with this id, or nullptr.
  const RegisteredUnit* Find(UnitKind kind, std::string_view id) const;

 private:
  std::vector<std::unique_ptr<RegisteredUnit>> units_;
};

}  // namespace ys

#define YS_CONCAT_INNER_(a, b) a##b
#define YS_CONCAT_(a, b) YS_CONCAT_INNER_(a, b)

// Registers `Class` (a default-constructible unit class; its base names the kind) with its
// UnitInfo, given as designated initialisers. The registrar's name is numbered by __COUNTER__,
// not __LINE__: in a unity build (CMake UNITY_BUILD) several units share one translation unit.
#define YS_REGISTER(Class, ...)                                                             \
  namespace {                                                                               \
  [[maybe_unused]] const bool YS_CONCAT_(ys_registered_, __COUNTER__) =                     \
      ::ys::UnitRegistry::Global().Add(                                                     \
          Class::kKind, ::ys::UnitInfo __VA_ARGS__,                                         \
          [] { return std::unique_ptr<::ys::Unit>(std::make_unique<Class>()); }, __FILE__); \
  }

#endif  // YARDSTICK_CORE_REGISTRY_H_
