// The identity text of a figure (see the header): comparing a figure's parts with one, reading
// its flat params back, and the shape derived from them.
#include "fleet/figure_identity.h"

#include "fleet/key.h"

namespace ys::fleet {

bool HasIdentityHead(std::string_view identity, std::string_view name, std::string_view unit,
                     char direction, size_t flat_size) {
  if (identity.size() != 2 * sizeof(uint32_t) + name.size() + unit.size() + 1 + flat_size)
    return false;
  // A size that does not match fails the comparison before the next part is read.
  auto same = [](std::string_view a, std::string_view b) {
    return a.size() == b.size() && SameBytes(a.data(), b.data(), a.size());
  };
  return same(TakeSized(identity), name) && same(TakeSized(identity), unit) &&
         identity.front() == direction;
}

std::string_view FlatOfIdentity(std::string_view identity) {
  TakeSized(identity);  // the name
  TakeSized(identity);  // the unit
  return identity.substr(1);
}

FigureShape MakeShape(std::string_view name, std::string_view unit, std::string_view flat,
                      Better better) {
  FigureShape sh;
  sh.proto.name = std::string(name);
  sh.proto.unit = std::string(unit);
  sh.proto.better = better;
  while (!flat.empty()) {
    std::string_view k = TakeSized(flat);
    sh.proto.params[std::string(k)] = std::string(TakeSized(flat));  // the last of a repeated param
  }
  sh.key = ComparisonKey(sh.proto);
  if (auto it = sh.proto.params.find("gpu_name"); it != sh.proto.params.end()) {
    sh.names_gpu_model = true;
    sh.gpu_name = it->second;
  }
  sh.node = NodeOf(sh.proto, std::string());
  sh.entity = EntityOf(sh.proto);
  sh.peer = PeerOf(sh.proto);
  for (const auto& [k, v] : sh.proto.params) {
    if (!v.empty() && IsVersionParam(k)) sh.versions.emplace_back(k, v);
  }
  return sh;
}

}  // namespace ys::fleet
