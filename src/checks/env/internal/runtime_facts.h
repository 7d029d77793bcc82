// What the env.runtime.* units read: the process's environment (with --pid, that process's),
// the container and Slurm context, the NCCL settings and the node's RDMA ports (reference:
// docs/node-checks.md §rdma, §runtime, §driver, docs/gpu-diagnostics.md §nccl-env). Read once per
// unit; each unit judges one NCCL setting or the GPUDirect RDMA path.
//
// NCCL settings come from the environment first, then from $NCCL_CONF_FILE (else ~/.nccl.conf)
// and /etc/nccl.conf, as NCCL applies them. With --pid, the environment is that process's and the
// topology file is looked up in its mount namespace (/proc/<pid>/root).
#ifndef YARDSTICK_CHECKS_ENV_INTERNAL_RUNTIME_FACTS_H_
#define YARDSTICK_CHECKS_ENV_INTERNAL_RUNTIME_FACTS_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "checks/check.h"
#include "host/infiniband.h"
#include "host/nccl_env.h"
#include "host/runtime_context.h"

namespace ys::checks::runtime {

inline constexpr const char* kNcclRef = "NCCL user guide, Environment Variables (env.rst)";

struct Setting {
  std::string value;
  std::string source;  // "environment", "/etc/nccl.conf"
  std::string Where(const std::string& name) const {
    return source == "environment" ? name : source + " " + name;
  }
};

struct RuntimeFacts {
  host::ContainerContext container;
  host::SlurmContext slurm;
  std::map<std::string, Setting, std::less<>> nccl;
  std::vector<std::string> ib_devices;
  std::vector<host::IbPort> rates;        // every port that has a rate
  std::optional<host::IbHcaSpec> hca;     // NCCL_IB_HCA, parsed
  std::vector<const host::IbPort*> used;  // the rated ports NCCL will use (into rates)
  Evidence notes;

  const Setting* Get(std::string_view name) const {
    auto it = nccl.find(name);
    return it == nccl.end() ? nullptr : &it->second;
  }
};

// The facts, or the result the units give instead: a skip when the tree records no process
// environment (or it cannot be read), an error for unreadable files or an NCCL_IB_HCA that does
// not parse. Not copyable in effect (used points into rates): read it into a local.
std::unique_ptr<RuntimeFacts> ReadRuntime(const CheckContext& ctx, CheckResult& early);

std::string FormatGbps(double g);
Finding EnvFinding(std::string_view code, std::string message, const std::string& name,
                   const Setting& s, std::string fix);

CheckResult StartResult(const RuntimeFacts& f);
// The pass summary of every env.runtime.* unit.
void Conclude(const RuntimeFacts& f, CheckResult& r);

}  // namespace ys::checks::runtime

#endif  // YARDSTICK_CHECKS_ENV_INTERNAL_RUNTIME_FACTS_H_
