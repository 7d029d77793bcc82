#include "host/proc_pid.h"

#include "core/text.h"
#include "host/procfs.h"

namespace ys::host {
namespace {

Result<CpuSet> ListOrMask(const std::map<std::string, std::string>& kv, const std::string& list_key,
                          const std::string& mask_key, bool* present) {
  *present = true;
  if (auto it = kv.find(list_key); it != kv.end()) {
    auto s = CpuSet::ParseList(it->second);
    if (!s.ok()) return Status::Invalid(list_key + ": " + s.status().message());
    return s;
  }
  if (auto it = kv.find(mask_key); it != kv.end()) {
    auto s = CpuSet::ParseMask(it->second);
    if (!s.ok()) return Status::Invalid(mask_key + ": " + s.status().message());
    return s;
  }
  *present = false;
  return CpuSet();
}

}  // namespace

Result<ProcStatus> ParseProcStatus(std::string_view text) {
  auto kv = ParseColonPairs(text);
  ProcStatus s;
  if (auto it = kv.find("Name"); it != kv.end()) s.name = it->second;
  if (auto it = kv.find("State"); it != kv.end() && !it->second.empty()) s.state = it->second[0];
  if (auto it = kv.find("Pid"); it != kv.end()) {
    if (auto v = ParseInt(it->second); v && *v >= 0 && *v < (int64_t{1} << 31)) {
      s.pid = static_cast<int>(*v);
    }
  }
  if (auto it = kv.find("Kthread"); it != kv.end()) s.kthread = it->second == "1";
  if (auto it = kv.find("Uid"); it != kv.end()) {
    auto ids = SplitWhitespace(it->second);
    if (!ids.empty()) {
      if (auto v = ParseUint(ids[0]); v && *v <= 0xffffffffu) s.uid = static_cast<uint32_t>(*v);
    }
  }
  bool present = false;
  auto cpus = ListOrMask(kv, "Cpus_allowed_list", "Cpus_allowed", &present);
  if (!cpus.ok()) return cpus.status();
  if (!present) return Status::Invalid("no Cpus_allowed_list or Cpus_allowed line");
  s.cpus_allowed = *cpus;
  auto mems = ListOrMask(kv, "Mems_allowed_list", "Mems_allowed", &present);
  if (!mems.ok()) return mems.status();
  if (present) s.mems_allowed = *mems;
  return s;
}

Result<ProcStat> ParseProcStat(std::string_view text) {
  text = Trim(text);
  size_t open = text.find(" (");
  size_t close = text.rfind(')');
  auto bad = [&] {
    return Status::Invalid("expected \"<pid> (<comm>) <state> ...\", got \"" +
                           std::string(text.substr(0, 80)) + "\"");
  };
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return bad();
  }
  auto pid = ParseInt(text.substr(0, open));
  if (!pid || *pid < 0 || *pid >= (int64_t{1} << 31)) return bad();
  ProcStat st;
  st.pid = static_cast<int>(*pid);
  st.comm = std::string(text.substr(open + 2, close - open - 2));
  // Fields after the comm, numbered from 3 (state).
  auto f = SplitWhitespace(text.substr(close + 1));
  if (f.empty() || f[0].size() != 1) return bad();
  st.state = f[0][0];
  if (f.size() > 6) {  // field 9: flags
    auto flags = ParseUint(f[6]);
    if (!flags) {
      return Status::Invalid("field 9 (flags) is not a number: \"" + std::string(f[6]) + "\"");
    }
    st.flags = *flags;
  }
  if (f.size() > 12) {  // fields 14, 15: utime, stime
    auto utime = ParseUint(f[11]);
    auto stime = ParseUint(f[12]);
    if (!utime || !stime) {
      return Status::Invalid("fields 14-15 (utime, stime) are not numbers: \"" +
                             std::string(f[11]) + " " + std::string(f[12]) + "\"");
    }
    st.utime = *utime;
    st.stime = *stime;
  }
  if (f.size() > 36) {  // field 39: processor
    auto cpu = ParseInt(f[36]);
    if (!cpu || *cpu < 0 || *cpu > (1 << 20)) {
      return Status::Invalid("field 39 (processor) is not a CPU number: \"" + std::string(f[36]) +
                             "\"");
    }
    st.processor = static_cast<int>(*cpu);
  }
  return st;
}

Result<ProcStatus> ReadProcStatus(const Host& host, const std::string& proc_dir) {
  std::string path = proc_dir + "/status";
  auto text = host.ReadFile(path);
  if (!text.ok()) return text.status();
  if (Trim(*text).empty()) {
    // The kernel always prints Name, Pid and Cpus_allowed; an empty copy records no process.
    return Status::NotFound(host.Resolve(path) + ": empty file, no process status recorded");
  }
  auto s = ParseProcStatus(*text);
  if (!s.ok()) return Status::Invalid(host.Resolve(path) + ": " + s.status().message());
  return s;
}

Result<ProcStat> ReadProcStat(const Host& host, const std::string& proc_dir) {
  std::string path = proc_dir + "/stat";
  auto text = host.ReadFile(path);
  if (!text.ok()) return text.status();
  auto s = ParseProcStat(*text);
  if (!s.ok()) return Status::Invalid(host.Resolve(path) + ": " + s.status().message());
  return s;
}

std::vector<int> ListPids(const Host& host, size_t cap, size_t* total) {
  std::vector<int> out;
  size_t n = 0;
  for (const auto& name : host.ListMatching("/proc", "[0-9]*")) {
    auto v = ParseUint(name);
    if (!v || *v >= (uint64_t{1} << 31)) continue;
    ++n;
    if (out.size() < cap) out.push_back(static_cast<int>(*v));
  }
  if (total != nullptr) *total = n;
  return out;
}

}  // namespace ys::host
