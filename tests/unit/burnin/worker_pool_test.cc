#include "burnin/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "burnin/digest.h"
#include "host/busy_core_clock.h"

namespace ys::burnin {
namespace {

TEST(BurninWorkerPool, RunsEveryWorkerAndSurvivesAnException) {
  auto allowed = host::AllowedCpusOfThisProcess();
  ASSERT_TRUE(allowed.ok());
  std::vector<int> cpus(allowed->ids().begin(), allowed->ids().end());
  auto pool = WorkerPool::Start(cpus);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  std::vector<int> ran(cpus.size(), 0);
  for (int round = 0; round < 3; ++round) {
    auto done = (*pool)->Run([&](int i) { ++ran[i]; });
    ASSERT_EQ(done.size(), cpus.size());
    for (const Status& s : done) EXPECT_TRUE(s.ok());
  }
  for (int n : ran) EXPECT_EQ(n, 3);  // the same threads, every round
  auto thrown = (*pool)->Run([&](int i) {
    if (i == 0) throw std::runtime_error("boom");
  });
  EXPECT_EQ(thrown[0].code(), StatusCode::kInternal);
  EXPECT_NE(thrown[0].message().find("boom"), std::string::npos);
  auto again = (*pool)->Run([](int) {});
  EXPECT_TRUE(again[0].ok());  // the worker is still there
}

TEST(BurninWorkerPool, RefusesACpuItCannotPinTo) {
  auto pool = WorkerPool::Start({1 << 20});
  ASSERT_FALSE(pool.ok());
  EXPECT_NE(pool.status().message().find(std::to_string(1 << 20)), std::string::npos)
      << pool.status().message();
  EXPECT_FALSE(WorkerPool::Start({}).ok());
}

TEST(BurninDigest, Sha256) {
  auto abc = Sha256Hex("abc", 3);
  ASSERT_TRUE(abc.ok());
  EXPECT_EQ(*abc, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  double x = 3.5;
  std::vector<double> many(100000, x);
  EXPECT_EQ(*Sha256HexRepeated(&x, sizeof(x), many.size()),
            *Sha256Hex(many.data(), many.size() * sizeof(double)));
  EXPECT_NE(*Sha256HexRepeated(&x, sizeof(x), many.size() - 1),
            *Sha256Hex(many.data(), many.size() * sizeof(double)));
}

}  // namespace
}  // namespace ys::burnin
