// `yardstick topo --expect FILE`: the text of `nvidia-smi topo -m` (or -mp) saved from a machine,
// compared cell by cell with the matrix yardstick reads (report/topo_matrix.h).
//
// The text is read as nvidia-smi prints it, spaces or tabs: a header of column names (GPU0 ...
// NIC0 ..., or the older mlx5_0 ... names) up to "CPU Affinity", one row per device starting
// with its name, "X" on the diagonal, and the optional "NIC Legend:" block ("NIC0: mlx5_0").
// GPUs are matched by index (both number them as NVML does); NICs by RDMA device name where the
// file names them (legend or mlx5_N columns), else by label.
#ifndef YARDSTICK_REPORT_TOPO_EXPECT_H_
#define YARDSTICK_REPORT_TOPO_EXPECT_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "report/topo_matrix.h"

namespace ys::report {

struct SmiTopoRow {
  std::string label;               // "GPU0"
  std::vector<std::string> cells;  // one per column, "X" on the diagonal
  std::string cpu_affinity;        // "0-55,112-167"; "" when not printed
  std::string numa_affinity;       // "0", "N/A"; "" when the header has no NUMA Affinity column
  int64_t line = 0;
};

struct SmiTopo {
  std::vector<std::string> columns;              // "GPU0", ..., "NIC0" or "mlx5_0"
  std::map<std::string, std::string> nic_names;  // "NIC0" -> "mlx5_0" (NIC Legend)
  bool numa_affinity_column = false;             // the header names "NUMA Affinity"
  std::vector<SmiTopoRow> rows;
};

// Invalid naming `name`, the line and what was expected when there is no header or a row has
// fewer cells than the header has columns.
Result<SmiTopo> ParseSmiTopo(std::string_view text, std::string_view name);

struct TopoDifference {
  std::string row, column;  // the file's labels
  std::string expected;     // the file's cell
  std::string here;         // yardstick's cell
};

struct TopoComparison {
  int compared = 0;  // cells found on both sides and compared
  std::vector<TopoDifference> differences;
  std::vector<std::string> only_in_file;  // devices of the file yardstick did not find
  std::vector<std::string> only_here;     // devices yardstick found that the file lacks
};

TopoComparison CompareTopo(const TopoMatrix& here, const SmiTopo& expected);

// "topo --expect FILE: N cells compared, K differ" and one line per difference and missing
// device.
std::string TopoComparisonText(const TopoComparison& c, std::string_view name);

}  // namespace ys::report

#endif  // YARDSTICK_REPORT_TOPO_EXPECT_H_
