// Helpers for GPU check tests: run a registered check with a recorded NVML state (a fixture under
// tests/fixtures/nvml/) or a snapshot built in the test, against a host fixture tree.
#ifndef YARDSTICK_TESTS_UNIT_TESTING_GPU_TEST_UTIL_H_
#define YARDSTICK_TESTS_UNIT_TESTING_GPU_TEST_UTIL_H_

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "checks/site_expectations.h"
#include "core/run_document.h"
#include "core/status.h"
#include "gpu/gpu_snapshot.h"
#include "host/host.h"

namespace ys::testing {

// <source>/tests/fixtures/nvml/<file>
std::string NvmlFixturePath(std::string_view file);
// The recorded state tests/fixtures/nvml/<name>.json as a document / as a snapshot (a test
// failure, thrown, when it does not load).
nlohmann::json NvmlFixtureJson(std::string_view name);
gpu::GpuSnapshot LoadNvmlFixture(std::string_view name);
// Every Field of the document ({"value": X}) replaced by {"error": why}, loaded.
gpu::GpuSnapshot EveryFieldMissing(std::string_view name, const std::string& why);

struct GpuRun {
  std::string host = "healthy-8gpu";  // host fixture the check reads besides the snapshot
  checks::SiteExpectations expect;
  std::string kernel_log;  // --kernel-log: a file under tests/fixtures/nvml, or absolute
  std::optional<int> pid;  // --pid
};

// Runs check `id` with --nvml-state tests/fixtures/nvml/<nvml_fixture>.json.
CheckResult RunGpuFixture(std::string_view id, std::string_view nvml_fixture,
                          const GpuRun& run = {});
// Runs check `id` with the snapshot (or the status that says why there is none) given directly.
CheckResult RunGpuSnapshot(std::string_view id, Result<gpu::GpuSnapshot> snapshot,
                           const GpuRun& run = {});
// The same on any host (a TempHost).
CheckResult RunGpuSnapshotOnHost(std::string_view id, const host::Host& host,
                                 Result<gpu::GpuSnapshot> snapshot, const GpuRun& run = {});

// What NVML's absence looks like on this machine.
Status NoNvml();

}  // namespace ys::testing

#endif  // YARDSTICK_TESTS_UNIT_TESTING_GPU_TEST_UTIL_H_
