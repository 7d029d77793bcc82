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

std::optional<UnitStop> GuardUnit(const UnitInfo& info, const UnitGate& gate,
                                  const std::function<void()>& body,
                                  const std::function<void(const Status&)>& refused) {
  try {
    if (std::optional<Status> why = RefusalOf(info, gate)) {
      if (refused) refused(*why);
      return UnitStop{.status = *why, .refused = true};
    }
    body();
  } catch (const std::exception& e) {
    return UnitStop{.status = EscapedException(&e), .thrown = e.what(), .thrown_std = true};
  } catch (...) {
    return UnitStop{.status = EscapedException(nullptr)};
  }
  return std::nullopt;
}

}  // namespace ys
