// What fleet analysis compares: a measurement's comparison key (WHAT was measured) and its entity
// (WHICH device on which node measured it).
//
// The grouping rule. A figure's identity is its name, its unit and its configuration: the params
// that were fixed before the value was measured (backend, dtype, shape, size, ranks, method, the
// GPU model...). Where the measuring benchmark declares its identity params
// (core/figure_spec.h), only those can key a figure; of them, and of every param of an
// undeclared figure, the following describe the figure and stay out of the key:
//   1. params naming who measured: device, gpu, peer, nic, hca, port, rank, local_rank, host,
//      node, hostname, cpus (the entity, see EntityOf);
//   2. params whose value carries a measured quantity: any number with a fractional part or an
//      exponent anywhere in the value ("59.4", "5900.1", "3.5e+09", "1 cores x 4.132 GHz x 32
//      flops", "Open MPI v4.1.4"). Configuration is counts, sizes and words; rates, times,
//      shares, measured clocks and version strings are not (versions are compared on their own:
//      fleet/evidence.h);
//   3. the reference a unit compares its value with: "baseline" and every param whose name
//      starts with "peak" or "pct_" (peak, peak_source, peak_formula, pct_of_peak...).
// So pct_of_peak, hbm_traffic_gb_per_s, STREAM's best rate, the CPU peak built from the measured
// clock and a proxy's time breakdown never split a comparison group, whatever unit writes them;
// a test walks every measurement of the fixture documents against this rule.
#ifndef YARDSTICK_FLEET_KEY_H_
#define YARDSTICK_FLEET_KEY_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/figure_spec.h"
#include "core/run_document.h"

namespace ys::fleet {

enum class EntityKind { kNode, kGpu, kNic, kOther };
const char* EntityKindName(EntityKind kind);  // "node", "gpu", "nic", "device"

struct Entity {
  EntityKind kind = EntityKind::kNode;
  std::string label;  // "gpu3", "mlx5_2/1", "cpu12", "rank5"; empty for the node itself
};

// The kind of figure evidence is pooled by: what the benchmark that measured it declares
// (core/figure_spec.h FindFigure), kOther for a name no benchmark or declared family measures.
using FigureKind = ::ys::FigureKind;
using ::ys::FigureKindName;
FigureKind KindOf(std::string_view measurement_name);

// True for a param that describes the figure rather than identifies it (the rule above, without
// the declaration: the param's name and value alone).
bool IsDescriptionParam(const std::string& param, const std::string& value);
// What the lean reader keeps of a param (fleet/reader.h): the identity, the entity-naming params
// and versions (!IsDescriptionParam || IsEntityNamingParam || IsVersionParam), at one look-up.
bool IsKeptForFleet(const std::string& param, std::string_view value);
// IsKeptForFleet in two steps: what the name alone says (which a caller may remember by name),
// then, for kByValue, the value: kept unless it carries a fractional number.
enum class KeptByName : uint8_t { kKept, kDropped, kByValue };
KeptByName KeptForFleetByName(const std::string& param);
bool IsKeptForFleet(KeptByName by_name, std::string_view value);
// Kept for the callers that only have a name: rule 1 and 3.
bool IsEntityParam(const std::string& param);
// Rule 1 alone: the params EntityOf, PeerOf and NodeOf read.
bool IsEntityNamingParam(const std::string& param);
// A param naming a library, driver or firmware version ("library", "nccl", "cuda", "blas",
// "driver", "firmware", "vbios", "ofed", "version", "*_version", "*_firmware").
bool IsVersionParam(const std::string& param);

// "gemm.gpu.tflops [TFLOPS] dtype=bf16": stable, readable, unique per comparison group.
std::string ComparisonKey(const Measurement& m);
// The params that stay in the key.
std::map<std::string, std::string> KeyParams(const Measurement& m);

// Which entity on its node measured `m`: "device"/"gpu"/"nic"/"hca" name it ("cpu", "node" and a
// bare "gpu" — a one-process document's collectives over all its GPUs — mean the node itself),
// else "rank"; "port" is appended to a NIC ("mlx5_0/1").
Entity EntityOf(const Measurement& m);
// The other end of a figure measured between two devices (copy.d2d's "peer"), if any.
std::optional<Entity> PeerOf(const Measurement& m);
// The device label an operator acts on: a GPU's or NIC's label without the port ("mlx5_0"),
// "node" for the node itself and for everything that is not a GPU or NIC.
std::string BareLabel(const Entity& e);

// The node `m` belongs to: its "host", "node" or "hostname" param (a gathered multi-node
// document), else the document's host name.
std::string NodeOf(const Measurement& m, const std::string& document_host);

}  // namespace ys::fleet

#endif  // YARDSTICK_FLEET_KEY_H_
