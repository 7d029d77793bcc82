#include "checks/check.h"

namespace ys::checks {

const Result<host::Topology>& CheckContext::topology() const {
  std::call_once(topo_once_, [this] {
    topo_ = std::make_unique<Result<host::Topology>>(host::LoadTopology(host_));
  });
  return *topo_;
}

}  // namespace ys::checks
