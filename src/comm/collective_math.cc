#include "comm/collective_math.h"

#include <cstdio>

#include "core/text.h"

namespace ys::comm {

const char* CollectiveName(Collective c) {
  switch (c) {
    case Collective::kAllReduce:
      return "all_reduce";
    case Collective::kAllGather:
      return "all_gather";
    case Collective::kReduceScatter:
      return "reduce_scatter";
    case Collective::kAlltoAll:
      return "alltoall";
    case Collective::kBroadcast:
      return "broadcast";
    case Collective::kReduce:
      return "reduce";
    case Collective::kSendRecv:
      return "sendrecv";
  }
  return "?";
}

std::optional<Collective> ParseCollective(std::string_view name) {
  for (Collective c : kAllCollectives) {
    if (name == CollectiveName(c)) return c;
  }
  return std::nullopt;
}

bool Reduces(Collective c) {
  return c == Collective::kAllReduce || c == Collective::kReduceScatter || c == Collective::kReduce;
}

bool HasRoot(Collective c) { return c == Collective::kBroadcast || c == Collective::kReduce; }

const char* RedOpColumn(Collective c) {
  return Reduces(c) || c == Collective::kSendRecv ? "sum" : "none";
}

int RootColumn(Collective c, int root) { return HasRoot(c) ? root : -1; }

const char* DataTypeName(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return "float";
    case DataType::kBfloat16:
      return "bfloat16";
  }
  return "?";
}

std::optional<DataType> ParseDataType(std::string_view name) {
  std::string n = ToLower(Trim(name));
  if (n == "float" || n == "float32" || n == "fp32") return DataType::kFloat32;
  if (n == "bfloat16" || n == "bf16") return DataType::kBfloat16;
  return std::nullopt;
}

size_t ElementSize(DataType t) { return t == DataType::kBfloat16 ? 2 : 4; }

CollectiveCounts CountsFor(Collective c, uint64_t size_bytes, DataType t, int nranks) {
  CollectiveCounts k;
  k.element_size = ElementSize(t);
  const size_t n = nranks > 0 ? static_cast<size_t>(nranks) : 1;
  const size_t count = size_bytes / k.element_size;
  // The per-rank chunk of the split collectives, rounded down to a multiple of 16 bytes.
  const size_t chunk = (count / n) & ~(16 / k.element_size - 1);
  switch (c) {
    case Collective::kAllGather:
      k.send_count = chunk;
      k.recv_count = chunk * n;
      k.send_inplace_offset = chunk;
      k.param_count = chunk;
      break;
    case Collective::kReduceScatter:
      k.send_count = chunk * n;
      k.recv_count = chunk;
      k.recv_inplace_offset = chunk;
      k.param_count = chunk;
      break;
    case Collective::kAlltoAll:
      k.param_count = chunk;
      k.send_count = chunk * n;
      k.recv_count = chunk * n;
      break;
    case Collective::kAllReduce:
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendRecv:
      k.send_count = count;
      k.recv_count = count;
      k.param_count = count;
      break;
  }
  return k;
}

double BusBandwidthFactor(Collective c, int nranks) {
  const double n = nranks;
  switch (c) {
    case Collective::kAllReduce:
      return 2.0 * (n - 1) / n;
    case Collective::kAllGather:
    case Collective::kReduceScatter:
    case Collective::kAlltoAll:
      return (n - 1) / n;
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendRecv:
      return 1.0;
  }
  return 1.0;
}

double AlgorithmBytes(Collective c, const CollectiveCounts& counts, int nranks) {
  double bytes = static_cast<double>(counts.param_count * counts.element_size);
  if (c == Collective::kAllGather || c == Collective::kReduceScatter ||
      c == Collective::kAlltoAll) {
    bytes *= nranks;
  }
  return bytes;
}

Bandwidth ComputeBandwidth(Collective c, const CollectiveCounts& counts, int nranks,
                           double seconds) {
  Bandwidth bw;
  if (seconds <= 0) return bw;
  bw.algbw_gbps = AlgorithmBytes(c, counts, nranks) / 1.0e9 / seconds;
  bw.busbw_gbps = bw.algbw_gbps * BusBandwidthFactor(c, nranks);
  return bw;
}

std::string FormatNcclFloat(double value, int width) {
  char buf[64];
  for (const char* fmt : {"%*.2f", "%*.1f", "%*.0f"}) {
    int len = std::snprintf(buf, sizeof(buf), fmt, width, value);
    if (len <= width) return buf;
  }
  std::snprintf(buf, sizeof(buf), width >= 7 ? "%*.1e" : "%*.0e", width, value);
  return std::string(buf).substr(0, static_cast<size_t>(width));  // nccl-tests truncates too
}

}  // namespace ys::comm
