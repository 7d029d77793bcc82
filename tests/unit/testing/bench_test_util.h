// Running a benchmark unit on the live host with given options, and a temporary directory.
#ifndef YARDSTICK_TESTS_UNIT_TESTING_BENCH_TEST_UTIL_H_
#define YARDSTICK_TESTS_UNIT_TESTING_BENCH_TEST_UTIL_H_

#include <string>
#include <string_view>

#include "bench/benchmark.h"

namespace ys::testing {

// Runs unit `id` on the live host, single process, with `options` (quick profile).
BenchmarkResult RunLiveBenchmark(std::string_view id, bench::BenchOptions options);

// The first measurement named `name`, or nullptr.
const Measurement* FindMeasurement(const BenchmarkResult& r, std::string_view name);

// A fresh directory under $TMPDIR (or /tmp), removed with its content on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Entries of the directory (names), sorted.
  std::vector<std::string> List() const;

 private:
  std::string path_;
};

}  // namespace ys::testing

#endif  // YARDSTICK_TESTS_UNIT_TESTING_BENCH_TEST_UTIL_H_
