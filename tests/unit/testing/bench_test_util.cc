#include "testing/bench_test_util.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>

#include "bench/runner.h"
#include "comm/communicator.h"
#include "host/host.h"

namespace ys::testing {

BenchmarkResult RunLiveBenchmark(std::string_view id, bench::BenchOptions options) {
  host::Host host = host::Host::Live();
  comm::SingleProcessCommunicator comm;
  options.profile = bench::Profile::kQuick;
  bench::BenchContext ctx(host, comm, options);
  return bench::RunBenchmark(ctx, id);
}

const Measurement* FindMeasurement(const BenchmarkResult& r, std::string_view name) {
  for (const auto& m : r.measurements) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/ys-bench-test-XXXXXX";
  if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

std::vector<std::string> TempDir::List() const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(path_, ec))
    out.push_back(e.path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ys::testing
