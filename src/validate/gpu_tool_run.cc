#include "validate/gpu_tool_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "core/document_file.h"
#include "core/finding_codes.h"
#include "core/text.h"
#include "gpu/gpu_product.h"

namespace ys::validate {

// What the ingested tool outputs raise: dcgmi diag's results (sealed as gpu.dcgm_diag) and
// nvidia-smi nvlink's link states and counters (sealed as gpu.nvlink).
YS_FINDING_CODES("validate.dcgm_diag",
                 {{"YS-GPU-070", Severity::kFail, "DCGM diagnostic (dcgmi diag) test failed"},
                  {"YS-GPU-071", Severity::kWarn, "DCGM diagnostic (dcgmi diag) test warned"}})
YS_FINDING_CODES("validate.nvlink",
                 {{"YS-GPU-045", Severity::kFail, "NVLink link inactive"},
                  {"YS-GPU-046", Severity::kWarn, "NVLink replay errors"},
                  {"YS-GPU-047", Severity::kFail, "NVLink recovery errors"},
                  {"YS-GPU-048", Severity::kWarn, "NVLink link slower than the GPU's other links"}})

// Named, not anonymous: the library is built in unity batches.
namespace gpu_tool_run_impl {

std::string Entity(std::optional<int> gpu) {
  return gpu ? "gpu" + std::to_string(*gpu) : std::string("node");
}

std::string Clip(std::string s) {
  if (s.size() > 300) s = s.substr(0, 297) + "...";
  return s;
}

std::string DcgmFix(const DcgmResult& r, const std::string& message) {
  std::string gpu = r.gpu ? " -i " + std::to_string(*r.gpu) : "";
  std::string fix = "Rerun dcgmi diag -r 3" + gpu + " and read nvvs.log (/var/log/nvidia-dcgm); ";
  if (message.find("system not yet initialized") != std::string::npos) {
    return fix +
           "CUDA could not initialise: on NVSwitch systems (HGX/DGX) the NVIDIA Fabric Manager "
           "is not running (systemctl enable --now nvidia-fabricmanager; its version must match "
           "the driver's), then rerun";
  }
  if (message.find("internal error during the test") != std::string::npos) {
    return fix +
           "DCGM's own test process failed, which says nothing about the GPU: rerun on the node "
           "itself or in an exclusive allocation (a job's restricted cpuset breaks the PCIe "
           "helper, NVIDIA/DCGM issue #253); do not RMA on this result";
  }
  return fix +
         "follow DCGM's message above; drain the node and reset the GPU, and RMA it if the "
         "test fails again";
}

// One finding per GPU the result concerns: the warnings that name a GPU go to that GPU; a result
// for every GPU with no warning naming one is on "node".
void AddDcgmFindings(CheckResult& c, const DcgmDiag& d, const DcgmResult& r) {
  const char* code = r.status == DcgmStatus::kFail ? "YS-GPU-070" : "YS-GPU-071";
  const char* verb = r.status == DcgmStatus::kFail ? "failed" : "warned";
  std::map<std::optional<int>, std::vector<std::string>> by_gpu;
  for (const std::string& w : r.warnings) {
    std::optional<int> gpu = r.gpu;
    if (!gpu && StartsWith(w, "GPU")) {
      std::string_view rest = std::string_view(w).substr(3);  // a view: `w` outlives it
      auto t = SplitWhitespace(rest);
      if (!t.empty()) {
        if (auto v = ParseInt(Trim(t[0]))) gpu = static_cast<int>(*v);
      }
    }
    by_gpu[gpu].push_back(w);
  }
  if (by_gpu.empty()) by_gpu[r.gpu] = {};
  for (const auto& [gpu, warnings] : by_gpu) {
    std::string why = warnings.empty() ? r.status_text : Join(warnings, " ");
    std::string where = gpu ? fmt::format("on GPU {}", *gpu) : "(DCGM names no GPU)";
    Finding f = MakeFinding(
        code, Entity(gpu), Clip(fmt::format("dcgmi diag: {} {} {}: {}", r.test, verb, where, why)));
    f.evidence = {{"category", r.category},
                  {"test", r.test},
                  {"status", r.status_text},
                  {"line", std::to_string(r.line)}};
    if (!d.dcgm_version.empty()) f.evidence.emplace_back("dcgm_version", d.dcgm_version);
    if (!d.driver_version.empty()) f.evidence.emplace_back("driver_version", d.driver_version);
    f.fix = DcgmFix(r, why);
    f.reference = "NVIDIA DCGM diagnostics (dcgmi diag), https://docs.nvidia.com/datacenter/dcgm/";
    c.Add(std::move(f));
  }
}

RunDocument Start(std::string_view name, std::string source) {
  RunDocument doc = StartRunDocument("ingest");
  doc.warnings.clear();  // read from a file: nothing of this build's timing is in it
  doc.host.gpu_source = "recorded: " + std::string(name) + " (" + source + ")";
  doc.host.root = std::string(name);  // what the document was read from
  return doc;
}

std::string Links(const std::vector<int>& links) {
  std::vector<std::string> s;
  for (int l : links) s.push_back(std::to_string(l));
  return Join(s, ", ");
}

constexpr const char* kNvlinkReference =
    "DCGM health watch (NVLink: link down, any replay or recovery increase); nvidia-smi nvlink";

// The YS-GPU-045 message of one GPU, or nullopt when its links are as its product has them.
std::optional<std::string> LinksDownMessage(const NvlinkGpu& g, const gpu::NvlinkExpectation& e,
                                            const std::vector<int>& inactive) {
  const int known = static_cast<int>(std::count_if(
      g.links.begin(), g.links.end(), [](const NvlinkLink& l) { return l.active.has_value(); }));
  const int active = known - static_cast<int>(inactive.size());
  if (g.all_inactive && g.links.empty()) {
    // The count of links is not printed: only a product with links connected by design fails.
    if (e.kind != gpu::NvlinkExpectation::Kind::kCount) return std::nullopt;
    return fmt::format("every NVLink is inactive (nvidia-smi: all links are inActive); {}",
                       e.basis);
  }
  // A link not printed (an abridged copy, or -e alone) is one whose state is not known.
  const int unknown = std::max(0, e.count - known);
  auto shortfall = gpu::NvlinkShortfall(e, known, active, unknown);
  if (!shortfall) return std::nullopt;
  if (inactive.empty() || e.kind == gpu::NvlinkExpectation::Kind::kBridge) return shortfall;
  return fmt::format("NVLink {} {} inactive ({} of {} printed links active)",
                     inactive.size() > 1 ? "links" : "link", Links(inactive), active,
                     g.links.size());
}

// What the GPU's link state says in a note: "12 of 18 links active (H100 PCIe: ...)".
std::string LinkStateNote(const NvlinkGpu& g, const gpu::NvlinkExpectation& e, int inactive) {
  if (g.all_inactive && g.links.empty()) {
    return g.name +
           ", all links inactive (nvidia-smi: all links are inActive); expected: " + e.basis;
  }
  if (g.links.empty()) return g.name + ", no link printed";
  const int known = static_cast<int>(std::count_if(
      g.links.begin(), g.links.end(), [](const NvlinkLink& l) { return l.active.has_value(); }));
  if (known == 0) return fmt::format("{}, {} link(s) printed", g.name, g.links.size());
  return g.name + ", " + gpu::DescribeNvlinkState(e, known, known - inactive);
}

// What one GPU's links say, as findings on that GPU.
void JudgeGpuLinks(CheckResult& c, const NvlinkGpu& g) {
  const std::string e = "gpu" + std::to_string(g.index);
  const gpu::NvlinkExpectation expect =
      gpu::ExpectNvlinks(gpu::IdentifyGpuProduct(g.name), std::nullopt);
  std::vector<int> inactive, slow;
  double fastest = 0;
  std::map<std::string, std::vector<std::string>> nonzero;  // counter -> "link 3: 12"
  std::map<std::string, uint64_t> totals;
  for (const NvlinkLink& l : g.links) fastest = std::max(fastest, l.speed_gbps.value_or(0));
  for (const NvlinkLink& l : g.links) {
    if (l.active == false) inactive.push_back(l.link);
    if (l.speed_gbps && fastest > 0 && *l.speed_gbps < 0.99 * fastest) slow.push_back(l.link);
    for (const auto& [counter, v] : l.counters) {
      if (v == 0) continue;
      totals[counter] += v;
      nonzero[counter].push_back(fmt::format("link {}: {}", l.link, v));
    }
  }
  c.Note(e, LinkStateNote(g, expect, static_cast<int>(inactive.size())));
  Evidence id = {{e + ".name", g.name}, {e + ".uuid", g.uuid}};
  auto add = [&](const char* code, std::string msg, std::string fix) {
    Finding f = MakeFinding(code, e, std::move(msg));
    f.evidence = id;
    for (const auto& [counter, where] : nonzero)
      f.evidence.emplace_back(counter, Join(where, ", "));
    f.fix = std::move(fix);
    f.reference = kNvlinkReference;
    c.Add(std::move(f));
  };
  const std::string i = std::to_string(g.index);
  if (auto down = LinksDownMessage(g, expect, inactive)) {
    id.emplace_back("expected", expect.basis);
    add("YS-GPU-045", *down,
        expect.kind == gpu::NvlinkExpectation::Kind::kBridge
            ? "nvidia-smi nvlink -s -i " + i +
                  "; power the node off and reseat every NVLink bridge of the pair; replace the "
                  "bridge if the links stay down"
            : "nvidia-smi nvlink -s -i " + i +
                  "; check the fabric manager (systemctl status nvidia-fabricmanager) and "
                  "NVSwitch SXIDs in the kernel log; drain the node and reset the GPUs or "
                  "reboot; RMA the baseboard if the link stays down");
    id.pop_back();
  }
  if (!slow.empty()) {
    add("YS-GPU-048",
        fmt::format("NVLink {} {} slower than the GPU's fastest link ({:g} GB/s)",
                    slow.size() > 1 ? "links" : "link", Links(slow), fastest),
        "nvidia-smi nvlink -s -i " + i + " again after a GPU reset; reseat or RMA if it stays");
  }
  for (const auto& [counter, total] : totals) {
    std::string lower = ToLower(counter);
    bool replay = lower.find("replay") != std::string::npos;
    bool recovery = lower.find("recovery") != std::string::npos;
    if (!replay && !recovery) continue;
    add(replay ? "YS-GPU-046" : "YS-GPU-047",
        fmt::format("{} NVLink {} ({})", total, ToLower(counter), Join(nonzero[counter], ", ")),
        "watch nvidia-smi nvlink -e -i " + i +
            ": counts that keep rising mark a bad link; run dcgmi diag -r 2; reset the GPUs and "
            "RMA the baseboard if they do");
  }
}

}  // namespace gpu_tool_run_impl

RunDocument DcgmDiagRunDocument(const DcgmDiag& d, std::string_view name) {
  using namespace gpu_tool_run_impl;
  RunDocument doc = Start(name, "dcgmi diag");
  doc.host.gpu_driver = d.driver_version;
  CheckResult c;
  std::map<DcgmStatus, int> counts;
  std::set<std::string> skipped, info, per_gpu;
  for (const DcgmResult& r : d.results) {
    if (r.gpu) per_gpu.insert(r.category + "/" + r.test);
  }
  for (const DcgmResult& r : d.results) {
    // DCGM 4 prints a test's overall status, then one line per GPU: the GPUs' lines judge.
    if (!r.gpu && per_gpu.count(r.category + "/" + r.test)) continue;
    counts[r.status]++;
    if (r.status == DcgmStatus::kSkip) skipped.insert(r.test);
    for (const std::string& i : r.info) info.insert(r.test + ": " + Clip(i));
    if (r.status == DcgmStatus::kFail || r.status == DcgmStatus::kWarn) AddDcgmFindings(c, d, r);
  }
  if (!d.dcgm_version.empty()) c.Note("dcgm_version", d.dcgm_version);
  if (!d.driver_version.empty()) c.Note("driver_version", d.driver_version);
  if (!d.device_ids.empty()) c.Note("gpu_device_ids", d.device_ids);
  if (!skipped.empty()) c.Note("skipped", Join({skipped.begin(), skipped.end()}, ", "));
  for (const std::string& i : info) c.Note("info", i);
  c.summary = fmt::format("dcgmi diag {} ({}): {} pass, {} fail, {} warn, {} skip", d.dcgm_version,
                          name, counts[DcgmStatus::kPass], counts[DcgmStatus::kFail],
                          counts[DcgmStatus::kWarn], counts[DcgmStatus::kSkip]);
  if (!d.missing.empty()) {
    // A fragment: what failed in it stands; a pass of the rows shown cannot stand for the tests
    // that are not shown.
    c.Note("missing", Join(d.missing, "; "));
    if (d.elided_lines > 0) c.Note("elided_lines", std::to_string(d.elided_lines));
    c.summary = fmt::format(
        "a fragment of dcgmi diag ({}): {} pass, {} fail, {} warn, {} skip "
        "in the rows shown; not present: {}",
        name, counts[DcgmStatus::kPass], counts[DcgmStatus::kFail], counts[DcgmStatus::kWarn],
        counts[DcgmStatus::kSkip], Join(d.missing, "; "));
    if (c.findings.empty()) {
      c.outcome = Outcome::kError;
      c.summary +=
          "; the rows shown cannot stand for the whole diagnostic (INCONCLUSIVE: give "
          "the whole dcgmi diag output)";
    }
  }
  c.Seal("gpu.dcgm_diag");
  doc.checks.push_back(std::move(c));
  return doc;
}

RunDocument NvlinkRunDocument(const std::vector<NvlinkGpu>& gpus, std::string_view name) {
  using namespace gpu_tool_run_impl;
  RunDocument doc = Start(name, "nvidia-smi nvlink");
  CheckResult c;
  size_t links = 0, shown = 0;
  for (const NvlinkGpu& g : gpus) {
    links += g.links.size();
    if (!g.links.empty() || g.all_inactive) ++shown;
    JudgeGpuLinks(c, g);
  }
  c.summary = fmt::format("nvidia-smi nvlink ({}): {} GPU(s), {} link(s) printed", name,
                          gpus.size(), links);
  if (shown == 0) {
    // GPU lines and nothing under them: nvidia-smi showed no link state to judge.
    CheckResult skip = CheckResult::Skip(fmt::format(
        "nvidia-smi nvlink ({}) printed no link state for its {} GPU(s)", name, gpus.size()));
    skip.evidence = std::move(c.evidence);
    c = std::move(skip);
  }
  c.Seal("gpu.nvlink");
  doc.checks.push_back(std::move(c));
  return doc;
}

Result<std::optional<RunDocument>> IngestGpuToolText(std::string_view text, std::string_view name,
                                                     GpuToolOutput forced) {
  GpuToolOutput kind = forced != GpuToolOutput::kNone ? forced : DetectGpuToolOutput(text);
  if (forced == GpuToolOutput::kDcgmDiagTable &&
      DetectGpuToolOutput(text) == GpuToolOutput::kDcgmDiagJson) {
    kind = GpuToolOutput::kDcgmDiagJson;
  }
  switch (kind) {
    case GpuToolOutput::kDcgmDiagTable:
    case GpuToolOutput::kDcgmDiagJson: {
      auto d = ParseDcgmDiag(text, name);
      if (!d.ok()) return d.status();
      return std::optional<RunDocument>(DcgmDiagRunDocument(*d, name));
    }
    case GpuToolOutput::kNvlink: {
      auto g = ParseNvlinkOutput(text, name);
      if (!g.ok()) return g.status();
      return std::optional<RunDocument>(NvlinkRunDocument(*g, name));
    }
    case GpuToolOutput::kNone:
      break;
  }
  return std::optional<RunDocument>();
}

Result<std::optional<RunDocument>> IngestGpuToolFile(const std::string& path,
                                                     GpuToolOutput forced) {
  if (forced == GpuToolOutput::kNone) {
    auto f = OpenDocumentStream(path, "a dcgmi diag or nvidia-smi nvlink output");
    if (!f.ok()) return std::optional<RunDocument>();
    std::string head(size_t{64} << 10, '\0');
    head.resize(std::fread(head.data(), 1, head.size(), f->get()));
    if (DetectGpuToolOutput(head) == GpuToolOutput::kNone) return std::optional<RunDocument>();
  }
  auto text =
      ReadDocumentFile(path, kMaxGpuToolOutputBytes, "a dcgmi diag or nvidia-smi nvlink output");
  if (!text.ok()) return text.status();
  auto doc = IngestGpuToolText(*text, path, forced);
  if (doc.ok() && !doc->has_value()) {
    return Status::Invalid(path + ": not a dcgmi diag or nvidia-smi nvlink output");
  }
  return doc;
}

}  // namespace ys::validate
