// Fuzz target: the reader of a saved `nvidia-smi topo -m` (report/topo_expect.cc ParseSmiTopo)
// and the comparison `yardstick topo --expect` makes with it, here against the file's own
// matrix.
#include "fuzz_target.h"
#include "fuzz_util.h"
#include "report/topo_expect.h"

YS_FUZZ_TARGET(topo_expect) {
  using namespace ys::report;
  std::string_view text = ys::fuzz::AsText(data, size);
  auto t = ParseSmiTopo(text, "fuzz.txt");
  if (!t.ok()) return 0;
  TopoMatrix m;
  for (const std::string& c : t->columns) {
    m.devices.push_back(
        {.kind = c.rfind("GPU", 0) == 0 ? TopoDevice::Kind::kGpu : TopoDevice::Kind::kNic,
         .label = c,
         .name = c});
  }
  m.cells.assign(m.devices.size(), std::vector<TopoCell>(m.devices.size(), {.link = "SYS"}));
  (void)TopoComparisonText(CompareTopo(m, *t), "fuzz.txt");
  return 0;
}
