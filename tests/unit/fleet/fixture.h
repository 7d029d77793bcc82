// An in-memory fleet for the fleet analysis tests: 8 GPUs and 8 NICs per node with the figures
// and params the real units write (GEMM with peak and pct_of_peak, HBM copies with their traffic,
// GPU-to-GPU copies with a peer, host copies, NIC bandwidth and latency, node collectives,
// STREAM with its best rate, CPU GEMM with a peak from the measured clock), persistent
// per-device offsets, 0.3-2% noise and rare one-off dips; faults planted by factor.
#ifndef YARDSTICK_TESTS_UNIT_DIAGNOSE_FLEET_FIXTURE_H_
#define YARDSTICK_TESTS_UNIT_DIAGNOSE_FLEET_FIXTURE_H_

#include <fmt/format.h>

#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>

#include "core/run_document.h"

namespace ys::fleet::testing {

struct FleetPlan {
  int nodes = 200;
  uint64_t seed = 1;
  std::string gpu_name = "NVIDIA H100 80GB HBM3";
  // Factors below 1: that much of the performance left (0.9 = 10% worse).
  std::map<std::string, double> gemm_node, net_node;
  std::map<std::pair<std::string, std::string>, double> gemm_gpu, hbm_gpu, nvlink_gpu, pcie_gpu,
      nic;
  std::map<std::string, double> stream_node;
  // Realistic variation (off unless set): a persistent offset per node and per device on each
  // unit's figures, N(0, sd); a GPU planted in gemm_gpu has no GEMM offset of its own (it is that
  // factor of its peers). `launch`: 3 launch latencies per GPU, launch_node their factor.
  double node_offset_sd = 0, device_offset_sd = 0;
  bool launch = false;
  std::map<std::string, double> launch_node;
  std::function<void(int, RunDocument&)> edit;  // a last change to node i's document
};

inline std::string NodeName(int i) { return fmt::format("node{:04d}", i); }

inline RunDocument FleetNode(int index, const FleetPlan& p, std::mt19937_64& rng) {
  std::normal_distribution<double> unit(0, 1);
  std::uniform_real_distribution<double> u01(0, 1);
  RunDocument d;
  d.command = "run";
  d.started_at = "2026-11-29T16:40:03Z";
  d.host.hostname = NodeName(index);
  d.host.kernel = "6.1.0-28-amd64";
  d.host.arch = "x86_64";
  d.host.root = "/";
  d.host.gpu_driver = "550.127.05";
  d.tool.version = "0.1.0";
  const std::string& node = d.host.hostname;
  std::map<std::string, double> offset;
  auto varied = [&](const std::string& unit_id, const std::string& entity) {
    if (p.node_offset_sd <= 0 && p.device_offset_sd <= 0) return 0.0;
    double sd = entity == "node" ? p.node_offset_sd : p.device_offset_sd;
    bool exact = unit_id == "gemm.gpu" && p.gemm_gpu.count({node, entity}) > 0;
    double draw = sd * unit(rng);
    return offset.try_emplace(unit_id + "/" + entity, exact ? 0.0 : draw).first->second;
  };
  auto figure = [&](BenchmarkResult& b, const std::string& name, const std::string& unit_name,
                    Better better, std::map<std::string, std::string> params, double base,
                    double sd, double factor, const std::string& entity) {
    double& o = offset.try_emplace(entity, 0.003 * unit(rng)).first->second;
    if (p.node_offset_sd > 0 || p.device_offset_sd > 0) {
      factor *= (1 + varied(b.unit_id, "node")) *
                (1 + (entity == "node" ? 0.0 : varied(b.unit_id, entity)));
    }
    double v = base * (1 + o) * (1 + sd * unit(rng));
    if (u01(rng) < 0.002) v *= 0.96;  // a one-off dip
    v = better == Better::kHigher ? v * factor : v / factor;
    Measurement m;
    m.name = name;
    m.unit = unit_name;
    m.better = better;
    m.value = v;
    m.params = std::move(params);
    m.stats = {
        .n = 5, .min = v * 0.995, .median = v, .max = v * 1.005, .mean = v, .stdev = v * 0.004};
    b.measurements.push_back(std::move(m));
  };
  auto f = [](const auto& map, const auto& key) {
    auto it = map.find(key);
    return it == map.end() ? 1.0 : it->second;
  };
  BenchmarkResult gemm{}, mem{}, d2d{}, h2d{}, net{}, coll{}, stream{}, cpu{}, launch{};
  launch.unit_id = "host.launch_latency";
  gemm.unit_id = "gemm.gpu", mem.unit_id = "mem.gpu", d2d.unit_id = "copy.d2d",
  h2d.unit_id = "copy.h2d";
  net.unit_id = "net.ib_write", coll.unit_id = "coll.all_reduce", stream.unit_id = "mem.stream";
  cpu.unit_id = "gemm.cpu";
  for (int g = 0; g < 8; ++g) {
    std::string gpu = "gpu" + std::to_string(g);
    for (auto [dtype, base, peak] :
         {std::tuple{"bf16", 740.0, 989.0}, std::tuple{"fp8", 1390.0, 1979.0}}) {
      for (const char* m : {"4096", "8192"}) {
        double fac = f(p.gemm_node, node) * f(p.gemm_gpu, std::pair{node, gpu});
        figure(gemm, "gemm.gpu.tflops", "TFLOPS", Better::kHigher,
               {{"backend", "cuda"},
                {"device", gpu},
                {"gpu_name", p.gpu_name},
                {"dtype", dtype},
                {"m", m},
                {"peak", fmt::format("{:g}", peak)},
                {"pct_of_peak", fmt::format("{:.1f}", 100 * base / peak)}},
               base, 0.01, fac, gpu);
      }
    }
    figure(mem, "mem.gpu.copy_ce", "GB/s", Better::kHigher,
           {{"backend", "cuda"},
            {"device", gpu},
            {"gpu_name", p.gpu_name},
            {"size", "1073741824"},
            {"method", "ce"},
            {"hbm_traffic_gb_per_s", fmt::format("{:.1f}", 2 * 1450.0)}},
           1450, 0.005, f(p.hbm_gpu, std::pair{node, gpu}), gpu);
    for (const char* name : {"copy.h2d.ce", "copy.d2h.ce"}) {
      figure(
          h2d, name, "GB/s", Better::kHigher,
          {{"backend", "cuda"}, {"device", gpu}, {"gpu_name", p.gpu_name}, {"size", "268435456"}},
          53.5, 0.01, f(p.pcie_gpu, std::pair{node, gpu}), gpu);
    }
    for (auto [what, base] : {std::pair{"launch", 4.5}, {"gpu", 2.1}, {"sync", 6.0}}) {
      if (!p.launch) break;
      figure(launch, std::string("host.launch_latency.") + what, "us", Better::kLower,
             {{"backend", "cuda"}, {"device", gpu}, {"gpu_name", p.gpu_name}}, base, 0.02,
             f(p.launch_node, node), gpu);
    }
    for (int h = 0; h < 8; ++h) {
      if (h == g) continue;
      std::string peer = "gpu" + std::to_string(h);
      double fac =
          std::min(f(p.nvlink_gpu, std::pair{node, gpu}), f(p.nvlink_gpu, std::pair{node, peer}));
      figure(d2d, "copy.d2d.ce", "GB/s", Better::kHigher,
             {{"backend", "cuda"},
              {"device", gpu},
              {"peer", peer},
              {"gpu_name", p.gpu_name},
              {"size", "268435456"},
              {"method", "ce"},
              {"pct_of_peak", "82.1"}},
             370, 0.01, fac, gpu);
    }
  }
  for (int n = 0; n < 8; ++n) {
    std::string nic = "mlx5_" + std::to_string(n);
    double fac = f(p.nic, std::pair{node, nic}) * f(p.net_node, node);
    figure(net, "net.ib_write.bw", "Gb/s", Better::kHigher, {{"device", nic}, {"size", "1048576"}},
           392, 0.003, fac, nic);
    figure(net, "net.ib_write.latency", "us", Better::kLower, {{"device", nic}, {"size", "8"}},
           1.92, 0.015, fac, nic);
  }
  for (const char* size : {"67108864", "1073741824"}) {
    figure(coll, "coll.all_reduce.busbw", "GB/s", Better::kHigher,
           {{"backend", "nccl"},
            {"device", "gpu"},
            {"size", size},
            {"ranks", "8"},
            {"library", "NCCL 2.21.5"}},
           470, 0.01, 1, "node");
  }
  for (const char* kernel : {"copy", "scale", "add", "triad"}) {
    double v = 498;
    figure(stream, std::string("mem.stream.") + kernel, "GB/s", Better::kHigher,
           {{"backend", "cpu"},
            {"device", "cpu"},
            {"threads", "112"},
            {"best", fmt::format("{:.2f}", v * 1.01)}},
           v, 0.01, f(p.stream_node, node), "node");
  }
  double ghz = 2.0 + 0.01 * unit(rng);
  figure(cpu, "gemm.cpu.sgemm", "GFLOPS", Better::kHigher,
         {{"backend", "cpu"},
          {"device", "cpu"},
          {"dtype", "fp32"},
          {"n", "4096"},
          {"peak", fmt::format("{:.1f}", 112 * ghz * 64)},
          {"peak_formula", fmt::format("112 cores x {:.3f} GHz x 64 flops", ghz)}},
         9000, 0.01, 1, "node");
  for (BenchmarkResult* b : {&gemm, &mem, &d2d, &h2d, &net, &coll, &stream, &cpu})
    d.benchmarks.push_back(*b);
  if (p.launch) d.benchmarks.push_back(launch);
  CheckResult check;
  check.unit_id = "cpu.governor";
  check.summary = "performance";
  d.checks.push_back(check);
  if (p.edit) p.edit(index, d);
  return d;
}

inline std::vector<RunDocument> MakeFleetDocuments(const FleetPlan& p) {
  std::mt19937_64 rng(p.seed);
  std::vector<RunDocument> docs;
  for (int i = 0; i < p.nodes; ++i) docs.push_back(FleetNode(i, p, rng));
  return docs;
}

}  // namespace ys::fleet::testing

#endif  // YARDSTICK_TESTS_UNIT_DIAGNOSE_FLEET_FIXTURE_H_
