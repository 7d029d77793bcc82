// The next step an operator takes for each row of the fleet's ranked list: the fix, or the test
// that narrows the fault down (yardstick bench --pairwise for a suspect NVLink).
#ifndef YARDSTICK_FLEET_ACTIONS_H_
#define YARDSTICK_FLEET_ACTIONS_H_

#include <string>

#include "fleet/key.h"

namespace ys::fleet {

// `entity` is "node" or a device label; `kind` overrides the figure kind for the non-numeric
// kinds ("spread", "check", "missing_units", "incomplete", "version", "hardware", "duplicate",
// "corrupt").
// " -i 3" for "gpu3", " -i <id>" for a PCI bus id or a GPU/MIG UUID: nvidia-smi's -i takes an
// index, a bus id or a UUID (nvidia-smi(1)), never a label; "" for anything else (the node).
std::string NvidiaSmiTarget(const std::string& label);

std::string ActionFor(FigureKind kind, const std::string& entity,
                      const std::string& kind_name = "");

}  // namespace ys::fleet

#endif  // YARDSTICK_FLEET_ACTIONS_H_
