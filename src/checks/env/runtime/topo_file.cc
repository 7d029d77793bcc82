// env.runtime.topo_file: NCCL_TOPO_FILE names a file the process can read (inside its container,
// with --pid in its mount namespace) and that is an NCCL topology XML; otherwise NCCL falls back to
// detection without an error.
#include "checks/check.h"
#include "checks/env/internal/runtime_facts.h"
#include "core/text.h"

namespace ys::checks::runtime {
namespace {

// NCCL wants an XML document whose root element is <system>.
bool LooksLikeNcclTopology(std::string_view text) {
  if (StartsWith(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
  text = Trim(text);
  return !text.empty() && text.front() == '<' && text.find("<system") != std::string_view::npos;
}

// What is wrong with the file NCCL_TOPO_FILE names ("" for nothing); an error for a file that
// cannot be read for another reason.
Result<std::string> TopologyProblem(const host::Host& h, const std::string& read_path) {
  auto text = h.ReadFile(read_path);
  if (text.ok()) {
    if (!LooksLikeNcclTopology(*text))
      return std::string("is not an NCCL topology XML (no <system> root element)");
    return std::string();
  }
  if (text.status().code() == StatusCode::kNotFound) return std::string("does not exist");
  if (text.status().code() == StatusCode::kPermissionDenied) {
    return std::string("is not readable (permission denied)");
  }
  if (h.IsDirectory(read_path)) return std::string("is a directory");
  return text.status();
}

Status CheckTopologyFile(const CheckContext& ctx, const Setting& s, const std::string& runtime,
                         CheckResult& r) {
  std::string path(Trim(s.value));
  if (path.empty()) {
    r.Note("nccl.topo_file", "set but empty: NCCL ignores it");
    return Status::Ok();
  }
  if (path.front() != '/') {
    r.Note("nccl.topo_file", path + ": relative to each rank's working directory, not verified");
    return Status::Ok();
  }
  std::string read_path = ctx.pid() ? ctx.ProcDir() + "/root" + path : path;
  auto problem = TopologyProblem(ctx.host(), read_path);
  if (!problem.ok()) return problem.status();
  if (problem->empty()) {
    r.Note("nccl.topo_file", path + " (readable XML)");
    return Status::Ok();
  }
  std::string where = runtime.empty() ? "on this node" : "inside the " + runtime + " container";
  Finding f = EnvFinding(
      "YS-ENV-001",
      "NCCL_TOPO_FILE " + path + " " + *problem + " " + where +
          ": NCCL falls back to detection without an error",
      "NCCL_TOPO_FILE", s,
      "mount the topology file into the container (pyxis: --container-mounts=" + path + ":" + path +
          ", docker: -v " + path + ":" + path + ":ro), or unset NCCL_TOPO_FILE");
  f.evidence.emplace_back(read_path, *problem);
  f.expected_recovery = "collectives 2-4x slower, a 13-53% gap to the reference (Exemplar case)";
  r.Add(std::move(f));
  return Status::Ok();
}

class TopoFileCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult early;
    auto q = ReadRuntime(ctx, early);
    if (q == nullptr) return early;
    CheckResult r = StartResult(*q);
    if (const Setting* s = q->Get("NCCL_TOPO_FILE")) {
      Status st = CheckTopologyFile(ctx, *s, q->container.runtime, r);
      if (!st.ok()) return CheckResult::Error(st);
    }
    Conclude(*q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(
    TopoFileCheck,
    {.id = "env.runtime.topo_file",
     .summary =
         "NCCL_TOPO_FILE, when set, names a readable NCCL topology XML inside the container.",
     .needs = {},
     .codes = {{"YS-ENV-001", Severity::kFail, "NCCL_TOPO_FILE set but absent or unreadable"}}})

}  // namespace ys::checks::runtime
