// A stand-in libnccl.so.2 for tests: the NCCL calls yardstick's backends make, performed on host
// memory (the fake CUDA driver's "device memory", fake_cuda.cc), so the one-process multi-GPU
// path (ncclCommInitAll, grouped launches, the data check) runs on machines without a GPU.
// Selected with YARDSTICK_LIBNCCL=<this file>. Never linked into yardstick.
//
// Semantics follow NCCL's: a collective completes once every rank of its communicator clique has
// posted it, at the outermost ncclGroupEnd (or at once outside a group); sends meet their
// receives at the same point. Inputs are read before any output is written, so in-place calls
// are right. Sums are exact for the check's data (small integers) in float and bfloat16.
//
// Knobs (environment, read at each call):
//   YS_FAKE_NCCL_US_PER_CALL  sleep this many microseconds per completed collective (a set
//                             timing; default 0: the host's own memcpy speed)
//   YS_FAKE_NCCL_CORRUPT_RANK flip the lowest bit of the first output byte of this rank after
//                             every collective it completes (a fault the data check must catch)
// ncclCommInitRank is simulated for one rank only: ranks in other processes are not.
//
// Built once as is and once per driver branch with YS_FAKE_BRANCH (tests/fake_gpus/branches.cmake):
// then ncclGetVersion answers the NCCL release of that branch and only its symbols are exported.
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <set>
#include <string>
#include <thread>
#include <vector>

#define YS_FAKE_EXPORT __attribute__((visibility("default")))

namespace {

enum class Kind { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kAlltoAll };

struct Op {
  Kind kind;
  const void* send;
  void* recv;
  size_t count;
  ncclDataType_t type;
  int root;
};

struct P2p {
  const void* send;  // a send: send set, recv null
  void* recv;
  size_t count;
  ncclDataType_t type;
  int peer;
  bool done = false;
};

struct Clique {
  int nranks = 1;
  int live = 0;  // communicators not yet destroyed
  std::vector<std::deque<Op>> posted;
  std::vector<std::vector<P2p>> p2p;
};

}  // namespace

struct ncclComm {
  Clique* clique;
  int rank;
};

namespace {

thread_local int group_depth = 0;
thread_local std::set<Clique*> touched;
thread_local std::string last_error;

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v ? std::atoi(v) : fallback;
}

size_t ElementSize(ncclDataType_t t) { return t == ncclBfloat16 ? 2 : 4; }

float Load(ncclDataType_t t, const void* p, size_t i) {
  if (t == ncclBfloat16) {
    uint32_t bits = uint32_t{static_cast<const uint16_t*>(p)[i]} << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  return static_cast<const float*>(p)[i];
}

void Store(ncclDataType_t t, void* p, size_t i, float f) {
  if (t == ncclBfloat16) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits += 0x7fff + ((bits >> 16) & 1);  // round to nearest even
    static_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(bits >> 16);
    return;
  }
  static_cast<float*>(p)[i] = f;
}

ncclResult_t Fail(ncclResult_t rc, std::string why) {
  last_error = "fake NCCL: " + std::move(why);
  return rc;
}

// Sum over ranks of element `offset + i` of each rank's send buffer, into `out` (count elements).
void Sum(const std::vector<Op>& ops, size_t offset, size_t count, std::vector<float>& out) {
  out.assign(count, 0.0f);
  for (const Op& op : ops) {
    for (size_t i = 0; i < count; ++i) out[i] += Load(op.type, op.send, offset + i);
  }
}

// The bytes each rank's recv buffer receives, kept between calls on this thread: a fresh buffer
// per call had the kernel zero-fill its pages every time, which cost more than the copies (a
// 64 MB sweep spent most of its time in the kernel).
struct Staging {
  std::vector<std::vector<char>> bytes;  // per rank, at least `used` long
  std::vector<size_t> used;              // 0: the rank's recv buffer is untouched
  std::vector<float> sum;
  char* Take(int r, size_t n) {
    if (bytes[r].size() < n) bytes[r].resize(n);
    used[r] = n;
    return bytes[r].data();
  }
};

// Runs one collective, ops[r] being rank r's call. Every input is read before an output is
// written (in place, inputs and outputs share memory).
ncclResult_t Execute(const std::vector<Op>& ops) {
  const Op& first = ops[0];
  const int n = static_cast<int>(ops.size());
  for (const Op& op : ops) {
    if (op.kind != first.kind || op.count != first.count || op.type != first.type ||
        op.root != first.root) {
      return Fail(ncclInvalidUsage, "ranks posted different collectives (mismatched calls)");
    }
  }
  const size_t es = ElementSize(first.type), count = first.count;
  thread_local Staging st;
  st.bytes.resize(n);
  st.used.assign(n, 0);
  switch (first.kind) {
    case Kind::kAllReduce: {
      Sum(ops, 0, count, st.sum);
      for (int r = 0; r < n; ++r) {
        char* out = st.Take(r, count * es);
        for (size_t i = 0; i < count; ++i) Store(first.type, out, i, st.sum[i]);
      }
      break;
    }
    case Kind::kReduce: {
      Sum(ops, 0, count, st.sum);
      char* out = st.Take(first.root, count * es);
      for (size_t i = 0; i < count; ++i) Store(first.type, out, i, st.sum[i]);
      break;
    }
    case Kind::kReduceScatter:
      for (int r = 0; r < n; ++r) {
        Sum(ops, r * count, count, st.sum);
        char* out = st.Take(r, count * es);
        for (size_t i = 0; i < count; ++i) Store(first.type, out, i, st.sum[i]);
      }
      break;
    case Kind::kAllGather:
      for (int r = 0; r < n; ++r) {
        char* out = st.Take(r, n * count * es);
        for (int q = 0; q < n; ++q) std::memcpy(out + q * count * es, ops[q].send, count * es);
      }
      break;
    case Kind::kBroadcast:
      for (int r = 0; r < n; ++r)
        std::memcpy(st.Take(r, count * es), ops[first.root].send, count * es);
      break;
    case Kind::kAlltoAll:
      for (int r = 0; r < n; ++r) {
        char* out = st.Take(r, n * count * es);
        for (int q = 0; q < n; ++q) {
          std::memcpy(out + q * count * es, static_cast<const char*>(ops[q].send) + r * count * es,
                      count * es);
        }
      }
      break;
  }
  const int corrupt = EnvInt("YS_FAKE_NCCL_CORRUPT_RANK", -1);
  for (int r = 0; r < n; ++r) {
    if (st.used[r] == 0) continue;
    if (r == corrupt) st.bytes[r][0] ^= 1;
    std::memcpy(ops[r].recv, st.bytes[r].data(), st.used[r]);
  }
  if (int us = EnvInt("YS_FAKE_NCCL_US_PER_CALL", 0); us > 0) {
    std::this_thread::sleep_for(std::chrono::microseconds(us));
  }
  return ncclSuccess;
}

// Completes what every rank of `c` has posted: the collectives in order, then sends with their
// receives. What a rank has not posted yet stays pending (real NCCL would wait on the GPU).
ncclResult_t Progress(Clique& c) {
  for (;;) {
    bool all = true;
    for (const auto& q : c.posted) all &= !q.empty();
    if (!all) break;
    std::vector<Op> ops;
    for (auto& q : c.posted) {
      ops.push_back(q.front());
      q.pop_front();
    }
    if (ncclResult_t rc = Execute(ops); rc != ncclSuccess) return rc;
  }
  // Every matched send is read before any receive is written: in place, a rank's receive
  // buffer is also what it sends.
  const int corrupt = EnvInt("YS_FAKE_NCCL_CORRUPT_RANK", -1);
  std::vector<std::pair<P2p*, std::vector<char>>> deliveries;
  for (int r = 0; r < c.nranks; ++r) {
    for (P2p& send : c.p2p[r]) {
      if (send.send == nullptr || send.done) continue;
      for (P2p& recv : c.p2p[send.peer]) {
        if (recv.send != nullptr || recv.done || recv.peer != r) continue;
        if (recv.count != send.count || recv.type != send.type) {
          return Fail(ncclInvalidUsage, "a send and its receive differ in count or type");
        }
        const char* from = static_cast<const char*>(send.send);
        deliveries.emplace_back(
            &recv, std::vector<char>(from, from + send.count * ElementSize(send.type)));
        if (send.peer == corrupt && send.count > 0) deliveries.back().second[0] ^= 1;
        send.done = recv.done = true;
        break;
      }
    }
  }
  for (auto& [recv, bytes] : deliveries) std::memcpy(recv->recv, bytes.data(), bytes.size());
  for (auto& list : c.p2p) std::erase_if(list, [](const P2p& p) { return p.done; });
  return ncclSuccess;
}

ncclResult_t Finish(Clique& c) {
  if (group_depth > 0) {
    touched.insert(&c);
    return ncclSuccess;
  }
  return Progress(c);
}

ncclResult_t Post(ncclComm_t comm, Op op) {
  if (comm == nullptr) return Fail(ncclInvalidArgument, "null communicator");
  if (op.type != ncclFloat32 && op.type != ncclBfloat16)
    return Fail(ncclInvalidArgument, "data type not simulated");
  comm->clique->posted[comm->rank].push_back(op);
  return Finish(*comm->clique);
}

ncclResult_t PostP2p(ncclComm_t comm, P2p p) {
  if (comm == nullptr) return Fail(ncclInvalidArgument, "null communicator");
  if (p.peer < 0 || p.peer >= comm->clique->nranks)
    return Fail(ncclInvalidArgument, "peer out of range");
  comm->clique->p2p[comm->rank].push_back(p);
  return Finish(*comm->clique);
}

Clique* NewClique(int n) {
  auto* c = new Clique;
  c->nranks = n;
  c->live = n;
  c->posted.resize(n);
  c->p2p.resize(n);
  return c;
}

}  // namespace

extern "C" {

YS_FAKE_EXPORT ncclResult_t ncclGetVersion(int* v) {
#if YS_FAKE_BRANCH == 535
  *v = 21806;  // the NCCL releases that go with each driver branch (branch_symbols.txt)
#elif YS_FAKE_BRANCH == 550
  *v = 22105;
#elif YS_FAKE_BRANCH == 570
  *v = 22606;
#elif YS_FAKE_BRANCH == 580
  *v = 22803;
#else
  *v = 99999;  // "9.99.99": never mistaken for a real library in a report
#endif
  return ncclSuccess;
}
YS_FAKE_EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  std::memset(id, 0, sizeof *id);
  return ncclSuccess;
}
YS_FAKE_EXPORT ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId, int rank) {
  if (nranks != 1 || rank != 0) {
    return Fail(ncclInvalidUsage,
                "a communicator across processes (nranks=" + std::to_string(nranks) +
                    ") is not simulated; ncclCommInitAll drives every GPU from one process");
  }
  *comm = new ncclComm{NewClique(1), 0};
  return ncclSuccess;
}
YS_FAKE_EXPORT ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int*) {
  if (ndev < 1) return Fail(ncclInvalidArgument, "ncclCommInitAll with ndev < 1");
  Clique* c = NewClique(ndev);
  for (int r = 0; r < ndev; ++r) comms[r] = new ncclComm{c, r};
  return ncclSuccess;
}
YS_FAKE_EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (comm == nullptr) return ncclSuccess;
  if (--comm->clique->live == 0) {
    touched.erase(comm->clique);
    delete comm->clique;
  }
  delete comm;
  return ncclSuccess;
}
YS_FAKE_EXPORT const char* ncclGetErrorString(ncclResult_t rc) {
  switch (rc) {
    case ncclSuccess:
      return "no error";
    case ncclInvalidArgument:
      return "invalid argument (fake NCCL)";
    case ncclInvalidUsage:
      return "invalid usage (fake NCCL)";
    default:
      return "fake NCCL error";
  }
}
YS_FAKE_EXPORT const char* ncclGetLastError(ncclComm_t) { return last_error.c_str(); }
YS_FAKE_EXPORT ncclResult_t ncclCommCount(const ncclComm_t comm, int* count) {
  *count = comm->clique->nranks;
  return ncclSuccess;
}
YS_FAKE_EXPORT ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) {
  *rank = comm->rank;
  return ncclSuccess;
}

YS_FAKE_EXPORT ncclResult_t ncclAllReduce(const void* s, void* r, size_t count, ncclDataType_t t,
                                          ncclRedOp_t op, ncclComm_t comm, cudaStream_t) {
  if (op != ncclSum) return Fail(ncclInvalidArgument, "only ncclSum is simulated");
  return Post(comm, {Kind::kAllReduce, s, r, count, t, 0});
}
YS_FAKE_EXPORT ncclResult_t ncclAllGather(const void* s, void* r, size_t count, ncclDataType_t t,
                                          ncclComm_t comm, cudaStream_t) {
  return Post(comm, {Kind::kAllGather, s, r, count, t, 0});
}
YS_FAKE_EXPORT ncclResult_t ncclReduceScatter(const void* s, void* r, size_t count,
                                              ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,
                                              cudaStream_t) {
  if (op != ncclSum) return Fail(ncclInvalidArgument, "only ncclSum is simulated");
  return Post(comm, {Kind::kReduceScatter, s, r, count, t, 0});
}
YS_FAKE_EXPORT ncclResult_t ncclBroadcast(const void* s, void* r, size_t count, ncclDataType_t t,
                                          int root, ncclComm_t comm, cudaStream_t) {
  return Post(comm, {Kind::kBroadcast, s, r, count, t, root});
}
YS_FAKE_EXPORT ncclResult_t ncclReduce(const void* s, void* r, size_t count, ncclDataType_t t,
                                       ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t) {
  if (op != ncclSum) return Fail(ncclInvalidArgument, "only ncclSum is simulated");
  return Post(comm, {Kind::kReduce, s, r, count, t, root});
}
YS_FAKE_EXPORT ncclResult_t ncclAlltoAll(const void* s, void* r, size_t count, ncclDataType_t t,
                                         ncclComm_t comm, cudaStream_t) {
  return Post(comm, {Kind::kAlltoAll, s, r, count, t, 0});
}
YS_FAKE_EXPORT ncclResult_t ncclSend(const void* s, size_t count, ncclDataType_t t, int peer,
                                     ncclComm_t comm, cudaStream_t) {
  return PostP2p(comm, {s, nullptr, count, t, peer});
}
YS_FAKE_EXPORT ncclResult_t ncclRecv(void* r, size_t count, ncclDataType_t t, int peer,
                                     ncclComm_t comm, cudaStream_t) {
  return PostP2p(comm, {nullptr, r, count, t, peer});
}
YS_FAKE_EXPORT ncclResult_t ncclGroupStart() {
  ++group_depth;
  return ncclSuccess;
}
YS_FAKE_EXPORT ncclResult_t ncclGroupEnd() {
  if (group_depth == 0) return Fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
  if (--group_depth > 0) return ncclSuccess;
  const std::vector<Clique*> now(touched.begin(), touched.end());
  touched.clear();
  for (Clique* c : now) {
    if (ncclResult_t rc = Progress(*c); rc != ncclSuccess) return rc;
  }
  return ncclSuccess;
}

}  // extern "C"
