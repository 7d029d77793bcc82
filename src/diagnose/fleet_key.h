// What fleet analysis compares: a measurement's comparison key (its name, unit and the params that
// describe WHAT was measured) and its entity (WHICH device on which node measured it).
//
// The entity-naming params ("device", "gpu", "nic", "hca", "port", "rank", "local_rank", "host",
// "node", "hostname") and values derived from the value itself ("pct_of_peak") are left out of
// the key, so a per-GPU figure is compared with every GPU's figure of the same key across the
// fleet, and a per-NIC figure with every NIC's.
#ifndef YARDSTICK_DIAGNOSE_FLEET_KEY_H_
#define YARDSTICK_DIAGNOSE_FLEET_KEY_H_

#include <map>
#include <string>

#include "core/report.h"

namespace ys::diagnose {

enum class EntityKind { kNode, kGpu, kNic, kOther };
const char* EntityKindName(EntityKind kind);  // "node", "gpu", "nic", "device"

struct Entity {
  EntityKind kind = EntityKind::kNode;
  std::string label;  // "gpu3", "mlx5_2", "cpu12", "rank5"; empty for the node itself
};

// True for params that name an entity or derive from the value (left out of the key).
bool IsEntityParam(const std::string& param);

// "gemm.gpu.tflops [TFLOPS] dtype=bf16": stable, readable, unique per comparison group.
std::string ComparisonKey(const Measurement& m);
// The params that stay in the key.
std::map<std::string, std::string> KeyParams(const Measurement& m);

// Which entity on its node measured `m`: "device"/"gpu"/"nic"/"hca" name it ("cpu" and "node"
// mean the node itself), else "rank"; "port" is appended to a NIC ("mlx5_0/1").
Entity EntityOf(const Measurement& m);

// The node `m` belongs to: its "host", "node" or "hostname" param (a gathered multi-node
// document), else the document's host name.
std::string NodeOf(const Measurement& m, const std::string& document_host);

}  // namespace ys::diagnose

#endif  // YARDSTICK_DIAGNOSE_FLEET_KEY_H_
