// serving.kv_transfer: in a disaggregated phase (prefill workers and decode workers) TTFT fails
// while TPOT is within its reference: decode is fine, so the time is lost in the prefill workers
// or in moving the KV cache from prefill to decode. Quoted from the phase's folder: the transfer
// settings the logs print (UCX_TLS, UCX_NET_DEVICES, NIXL_*), and, where the workers' logs give
// their rates, the slowest prefill or decode worker (under 85% of its role's median).
// A UCX_TLS without an RDMA transport (rc, dc, ud, ib, all) sends the KV cache over TCP.
//
// Not quantified. Confidence low on the symptom alone, medium with a slow worker or a TCP-only
// transport. Not evaluated, and said so: TTFT failing in a disaggregated phase with TPOT not
// compared.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/text.h"
#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

constexpr double kSlowWorker = 0.85;

// A UCX_TLS list that names no RDMA transport ("tcp", "tcp,cuda_copy").
bool TcpOnly(std::string_view tls) {
  if (StartsWith(tls, "^")) return false;  // an exclusion list keeps the others
  for (std::string_view t : Split(tls, ',')) {
    std::string_view base = Trim(t).substr(0, Trim(t).find('_'));
    if (base == "rc" || base == "dc" || base == "ud" || base == "ib" || base == "all") return false;
  }
  return tls.find("tcp") != std::string_view::npos;
}

// The slowest worker of each role, when it runs under kSlowWorker of its role's median.
std::vector<std::pair<const ServingWorkerRate*, double>> SlowWorkers(
    const ServingPhaseEvidence& e) {
  std::vector<std::pair<const ServingWorkerRate*, double>> out;
  for (bool prefill : {true, false}) {
    std::vector<const ServingWorkerRate*> role;
    for (const ServingWorkerRate& w : e.workers) {
      if (w.prefill == prefill) role.push_back(&w);
    }
    if (role.size() < 2) continue;
    std::vector<double> rates;
    for (const ServingWorkerRate* w : role) rates.push_back(w->tokens_per_s);
    double median = MedianOf(rates);
    auto slowest = *std::min_element(role.begin(), role.end(), [](auto* a, auto* b) {
      return a->tokens_per_s < b->tokens_per_s;
    });
    if (median > 0 && slowest->tokens_per_s < kSlowWorker * median) {
      out.emplace_back(slowest, slowest->tokens_per_s / median);
    }
  }
  return out;
}

Diagnosis TransferDiagnosis(const ServingPhaseEvidence& e, const ValidationPhaseMetric& ttft,
                            const ValidationPhaseMetric& tpot) {
  Diagnosis d;
  d.rule = "serving.kv_transfer";
  d.layer = "fabric";
  d.entity = PhaseEntity(e);
  d.evidence.emplace_back(ttft.name, DescribeMetric(ttft));
  d.evidence.emplace_back(tpot.name, DescribeMetric(tpot));
  d.evidence.emplace_back(
      "workers", fmt::format("{} prefill x TP {}, {} decode x TP {}", e.row.prefill_workers,
                             e.row.prefill_tp, e.row.decode_workers, e.row.decode_tp));
  bool tcp = false;
  for (const ServingTransferSetting& t : e.transfer) {
    d.evidence.emplace_back(t.name, t.value + " (" + t.file + ")");
    tcp = tcp || (t.name == "UCX_TLS" && TcpOnly(t.value));
  }
  auto slow = SlowWorkers(e);
  for (const ServingWorkerRate& w : e.workers) {
    d.evidence.emplace_back(w.worker, fmt::format("{:.0f} tokens/s over {} log lines ({})",
                                                  w.tokens_per_s, w.samples, w.file));
  }
  d.cause =
      "TTFT fails with decode (TPOT) within its reference in a disaggregated phase: the "
      "time is lost in the prefill workers or in the KV-cache transfer to decode";
  if (!slow.empty()) {
    d.entity = slow.front().first->worker;
    d.cause += fmt::format("; {} ran at {} of its role's median rate", slow.front().first->worker,
                           Percent(slow.front().second));
  }
  if (tcp) d.cause += "; UCX_TLS names no RDMA transport, so the KV cache goes over TCP";
  d.evidence.emplace_back(
      "would confirm it",
      "the NICs' counters on prefill and decode nodes during the run (ethtool -S, "
      "/sys/class/infiniband/*/ports/*/counters/port_xmit_data), the transfer backend the "
      "workers chose (UCX_TLS, UCX_NET_DEVICES, the NIXL backend in their logs), each prefill "
      "worker's rate");
  d.recovery = NotQuantified("the transfer's share of TTFT is not in the evidence");
  d.confidence = (tcp || !slow.empty()) ? Confidence::kMedium : Confidence::kLow;
  d.fix = tcp ? "set UCX_TLS to include rc (or dc) and cuda_copy, and UCX_NET_DEVICES to the "
                "GPU-near RDMA NICs, on prefill and decode workers"
              : "compare the prefill workers' rates and the NIC counters of the KV transfer; "
                "check UCX_TLS / UCX_NET_DEVICES name the RDMA NICs near each GPU";
  return d;
}

class ServingKvTransferRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    std::vector<Diagnosis> out;
    for (const ServingPhaseEvidence& e : in.serving) {
      const ValidationPhaseMetric* ttft = FailedMetric(e, "ttft_ms");
      const ValidationPhaseMetric* tpot = PassedMetric(e, "tpot_ms");
      if (!e.Disaggregated() || ttft == nullptr || tpot == nullptr) continue;
      out.push_back(TransferDiagnosis(e, *ttft, *tpot));
    }
    return out;
  }

  std::vector<std::string> Unjudged(const DiagnosisInput& in) const override {
    std::vector<std::string> out;
    for (const ServingPhaseEvidence& e : in.serving) {
      if (!e.Disaggregated() || FailedMetric(e, "ttft_ms") == nullptr) continue;
      if (e.row.Metric("tpot_ms") == nullptr) {
        out.push_back("phase " + e.row.id +
                      ": TTFT fails in a disaggregated phase but TPOT was not compared: the "
                      "prefill side cannot be told from the decode side");
      }
    }
    return out;
  }
};

}  // namespace

YS_REGISTER(ServingKvTransferRule,
            {.id = "serving.kv_transfer",
             .summary = "a disaggregated phase's TTFT fails with decode normal: the prefill "
                        "workers or the KV-cache transfer (UCX/NIXL, NICs)"});

}  // namespace ys::diagnose
