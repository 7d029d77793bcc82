// The unit registry. A unit (check, benchmark, workload) registers itself in one line at static
// initialisation with a constant description and a factory; nothing runs at start-up. The
// registry is filled before main() and read-only afterwards, so reads need no lock.
#ifndef YARDSTICK_CORE_REGISTRY_H_
#define YARDSTICK_CORE_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ys {

enum class UnitKind { kCheck, kBenchmark, kWorkload };
const char* UnitKindName(UnitKind kind);

// What a unit needs to be meaningful; a unit whose need is not met skips with the reason.
enum class Need { kRoot, kGpu, kMpi, kContainer, kLiveHost, kSlurm, kInfiniband };
const char* NeedName(Need need);

struct UnitInfo {
  std::string_view id;       // stable dotted id: "cpu.cstates"
  std::string_view summary;  // one sentence
  std::vector<Need> needs;
  bool disruptive = false;   // changes system state or loads it heavily
  // Part of `yardstick run`'s quick profile when no --filter narrows the selection (one proxy
  // stands for the seven there; the others run under `yardstick bench`).
  bool in_quick_profile = true;
};

// Base of every unit type; the layer that defines a kind (checks, bench) derives from it.
class Unit {
 public:
  virtual ~Unit() = default;
};

using UnitFactory = std::function<std::unique_ptr<Unit>()>;

struct RegisteredUnit {
  UnitKind kind;
  UnitInfo info;
  UnitFactory factory;
};

class UnitRegistry {
 public:
  static UnitRegistry& Global();

  // Returns true so that it can initialise a namespace-scope bool. Aborts on a duplicate id:
  // two units with one id are a build error that must not reach a user.
  bool Add(UnitKind kind, UnitInfo info, UnitFactory factory);

  // Sorted by id.
  std::vector<const RegisteredUnit*> List(UnitKind kind) const;
  std::vector<const RegisteredUnit*> ListAll() const;
  const RegisteredUnit* Find(std::string_view id) const;

 private:
  std::vector<std::unique_ptr<RegisteredUnit>> units_;
};

}  // namespace ys

#endif  // YARDSTICK_CORE_REGISTRY_H_
