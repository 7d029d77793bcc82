#include "testing/gpu_test_util.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "checks/check.h"
#include "checks/runner.h"
#include "gpu/gpu_snapshot_json.h"
#include "testing/check_test_util.h"

namespace ys::testing {

std::string NvmlFixturePath(std::string_view file) {
  return std::string(YS_FIXTURES_DIR) + "/nvml/" + std::string(file);
}

nlohmann::json NvmlFixtureJson(std::string_view name) {
  std::ifstream in(NvmlFixturePath(std::string(name) + ".json"), std::ios::binary);
  if (!in) throw std::runtime_error("no NVML fixture " + std::string(name));
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

gpu::GpuSnapshot LoadNvmlFixture(std::string_view name) {
  auto s = gpu::LoadGpuSnapshot(NvmlFixturePath(std::string(name) + ".json"));
  if (!s.ok()) throw std::runtime_error(s.status().ToString());
  return *s;
}

namespace {
void ReplaceValues(nlohmann::json& j, const std::string& why) {
  if (j.is_object()) {
    if (j.size() == 1 && j.contains("value")) {
      j = {{"error", why}};
      return;
    }
    for (auto& [k, v] : j.items()) ReplaceValues(v, why);
  } else if (j.is_array()) {
    for (auto& v : j) ReplaceValues(v, why);
  }
}
}  // namespace

gpu::GpuSnapshot EveryFieldMissing(std::string_view name, const std::string& why) {
  nlohmann::json j = NvmlFixtureJson(name);
  ReplaceValues(j, why);
  auto s = gpu::GpuSnapshotFromJson(j);
  if (!s.ok()) throw std::runtime_error(s.status().ToString());
  return *s;
}

CheckResult RunGpuSnapshotOnHost(std::string_view id, const host::Host& host,
                                 Result<gpu::GpuSnapshot> snapshot, const GpuRun& run) {
  checks::CheckContext ctx(host, run.expect, run.pid);
  ctx.set_gpu(std::move(snapshot));
  if (!run.kernel_log.empty()) {
    ctx.set_kernel_log_path(run.kernel_log.front() == '/' ? run.kernel_log
                                                          : NvmlFixturePath(run.kernel_log));
  }
  return checks::RunCheck(ctx, id);
}

CheckResult RunGpuSnapshot(std::string_view id, Result<gpu::GpuSnapshot> snapshot,
                           const GpuRun& run) {
  auto host = host::Host::AtRoot(FixturePath(run.host));
  if (!host.ok()) throw std::runtime_error(host.status().ToString());
  return RunGpuSnapshotOnHost(id, *host, std::move(snapshot), run);
}

CheckResult RunGpuFixture(std::string_view id, std::string_view nvml_fixture, const GpuRun& run) {
  auto host = host::Host::AtRoot(FixturePath(run.host));
  if (!host.ok()) throw std::runtime_error(host.status().ToString());
  checks::CheckContext ctx(*host, run.expect, run.pid);
  ctx.set_nvml_state_path(NvmlFixturePath(std::string(nvml_fixture) + ".json"));
  if (!run.kernel_log.empty()) {
    ctx.set_kernel_log_path(run.kernel_log.front() == '/' ? run.kernel_log
                                                          : NvmlFixturePath(run.kernel_log));
  }
  return checks::RunCheck(ctx, id);
}

Status NoNvml() {
  return Status::NotFound(
      "NVML not found: libnvidia-ml.so.1: cannot open shared object file: No such file or "
      "directory");
}

}  // namespace ys::testing
