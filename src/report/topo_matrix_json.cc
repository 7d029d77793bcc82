// `yardstick topo --json`: the document TopoMatrixJson writes (schema_version 1) and its
// registered schema (schemas/topo.schema.json): the GPUs and NICs, the link matrices, the NVLink
// counts when NVML answered, the placement flags and the notes. The matrix itself is built in
// topo_matrix.cc.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/document_schemas.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "report/topo_matrix.h"

namespace ys::report {

template <typename V>
void Fields(V& v, TopoFlag& f) {
  v("gpu", f.gpu);
  v("bdf", f.bdf);
  v("nearest_nic", f.nic);
  v("nic_name", f.nic_name);
  v.computed("link", [] { return "SYS"; });
  v("message", f.message);
  v("fix", f.fix);
}

namespace {

std::optional<int> Known(int x) { return x >= 0 ? std::optional<int>(x) : std::nullopt; }
std::optional<std::string> Known(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

struct NearestNic {
  std::string label;
  std::string link;
};

template <typename V>
void Fields(V& v, NearestNic& n) {
  v("label", n.label);
  v("link", n.link);
}

// A GPU or a NIC of the document; the keys differ by kind. Only written.
struct DeviceEntry {
  const TopoDevice& d;
};

template <typename V>
void Fields(V& v, DeviceEntry& e) {
  const TopoDevice& d = e.d;
  const bool gpu = d.kind == TopoDevice::Kind::kGpu;
  v("label", d.label);
  v("bdf", d.bdf);
  v("name", d.name);
  if (gpu) {
    v.computed("nvml_index", [&] { return Known(d.nvml_index); });
    v.computed("uuid", [&] { return Known(d.uuid); });
  } else {
    v("rdma", d.rdma);
  }
  v.computed("numa_node", [&] { return Known(d.numa_node); });
  v.computed("cpu_affinity", [&] { return Known(d.cpu_affinity); });
  if (gpu) {
    v.computed("nearest_nic", [&] {
      return d.nearest_nic.empty()
                 ? std::nullopt
                 : std::optional<NearestNic>(NearestNic{d.nearest_nic, d.nearest_nic_link});
    });
  }
}

// Whether NVML state was read, and from where (or why not).
struct NvmlState {
  bool available;
  const std::string& source;
};

template <typename V>
void Fields(V& v, NvmlState& n) {
  v("available", n.available);
  v(n.available ? "source" : "reason", n.source);
}

// A matrix by row label, then by column label.
template <typename T>
using ByLabel = std::vector<std::pair<std::string, std::vector<std::pair<std::string, T>>>>;

// `topo --json`: schema_version 1. Only written.
struct TopoDocument {
  const TopoMatrix& m;
  std::vector<DeviceEntry> gpus, nics;
  ByLabel<std::string> matrix, pci_matrix;
  std::optional<ByLabel<int>> nvlinks;  // null without NVML; rows with no GPU pair left out
};

template <typename V>
void Fields(V& v, TopoDocument& t) {
  const TopoMatrix& m = t.m;
  v.computed("schema_version", [] { return 1; });
  v.computed("command", [] { return "topo"; });
  v("root", m.root);
  v("topology_source", m.topology_source);
  v.computed("nvml", [&] { return NvmlState{m.nvml, m.nvml_source}; });
  v("gpus", t.gpus);
  v("nics", t.nics);
  v("matrix", t.matrix);
  v("pci_matrix", t.pci_matrix);
  v("nvlinks", t.nvlinks);
  v("nic_scope", m.nic_scope);
  v("flags", m.flags);
  v("notes", m.notes);
}

// The schema walks a GPU and a NIC, and NVML state read and not.
std::vector<DeviceEntry> JsonSchemaSamples(const DeviceEntry*) {
  static const TopoDevice kGpu = [] {
    TopoDevice d;
    d.kind = TopoDevice::Kind::kGpu;
    return d;
  }();
  static const TopoDevice kNic = [] {
    TopoDevice d;
    d.kind = TopoDevice::Kind::kNic;
    return d;
  }();
  return {DeviceEntry{kGpu}, DeviceEntry{kNic}};
}
std::vector<NvmlState> JsonSchemaSamples(const NvmlState*) {
  static const std::string kText;
  return {NvmlState{true, kText}, NvmlState{false, kText}};
}

// What the schema says beyond the field lists: the names a cell of the matrices takes, and that
// NVML state names its source when read and why not otherwise.
void JsonSchemaRefine(const TopoDocument*, nlohmann::ordered_json& schema) {
  for (const char* key : {"matrix", "pci_matrix"}) {
    schema["properties"][key]["additionalProperties"]["additionalProperties"]["pattern"] =
        "^(X|NV[0-9]+|PIX|PXB|PHB|NODE|SYS|\\?)$";
  }
}
void JsonSchemaRefine(const NvmlState*, nlohmann::ordered_json& schema) {
  schema["if"] = {{"properties", {{"available", {{"const", true}}}}}};
  schema["then"] = {{"required", {"source"}}};
  schema["else"] = {{"required", {"reason"}}};
}

YS_DOCUMENT_SCHEMA("topo", TopoDocument, "yardstick topo --json",
                   "The node's GPUs and NICs, the link between every pair (as nvidia-smi topo -m "
                   "names it), NVLink counts when NVML answered, and the placement flags.");

}  // namespace

std::string TopoMatrixJson(const TopoMatrix& m) {
  TopoDocument doc{m};
  for (const auto& d : m.devices)
    (d.kind == TopoDevice::Kind::kGpu ? doc.gpus : doc.nics).push_back(DeviceEntry{d});
  if (m.nvml) doc.nvlinks.emplace();
  for (size_t i = 0; i < m.devices.size(); ++i) {
    auto& row =
        doc.matrix
            .emplace_back(m.devices[i].label, std::vector<std::pair<std::string, std::string>>{})
            .second;
    auto& prow =
        doc.pci_matrix
            .emplace_back(m.devices[i].label, std::vector<std::pair<std::string, std::string>>{})
            .second;
    std::vector<std::pair<std::string, int>> nrow;
    for (size_t k = 0; k < m.devices.size(); ++k) {
      row.emplace_back(m.devices[k].label, m.cells[i][k].link);
      prow.emplace_back(m.devices[k].label, m.cells[i][k].pci);
      if (m.nvml && i != k && m.devices[i].nvml_index >= 0 && m.devices[k].nvml_index >= 0)
        nrow.emplace_back(m.devices[k].label, m.cells[i][k].nvlinks);
    }
    if (!nrow.empty()) doc.nvlinks->emplace_back(m.devices[i].label, std::move(nrow));
  }
  return json_fields::Write(doc).dump(2, ' ', false,
                                      nlohmann::ordered_json::error_handler_t::replace) +
         "\n";
}

}  // namespace ys::report
