#include "core/unit_runner.h"

namespace ys {

std::optional<Status> RefusalOf(const UnitInfo& info, const UnitGate& gate) {
  if (info.disruptive && !gate.allow_disruptive) {
    return Status::Unsupported(
        "disruptive (changes system state or loads the node heavily): runs only when asked");
  }
  for (Need need : info.needs) {
    Status s = gate.provides ? gate.provides(need)
                             : Status::Unsupported(std::string("needs ") + NeedName(need) +
                                                   ", which this run cannot judge");
    if (!s.ok()) return s;
  }
  return std::nullopt;
}

Status EscapedException(const std::exception* e) {
  return Status::Internal(e != nullptr ? std::string("unexpected exception: ") + e->what()
                                       : std::string("unexpected exception"));
}

}  // namespace ys
