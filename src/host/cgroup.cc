#include "host/cgroup.h"

#include "core/text.h"

namespace ys::host {
namespace {

std::string Shorten(std::string_view s) {
  return std::string(s.substr(0, 120)) + (s.size() > 120 ? "..." : "");
}

Status LineError(size_t line_no, std::string_view line, const std::string& what) {
  return Status::Invalid("line " + std::to_string(line_no) + ": expected " + what + ", got \"" +
                         Shorten(line) + "\"");
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      std::string_view oct = s.substr(i + 1, 3);
      bool ok = true;
      int v = 0;
      for (char c : oct) {
        if (c < '0' || c > '7') ok = false;
        v = v * 8 + (c - '0');
      }
      if (ok && v < 256) {
        out += static_cast<char>(v);
        i += 3;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

// A mount's root is a path, or for a file system without paths the kernel's "<type>:[<inode>]"
// (the nsfs bind mounts `ip netns` and container runtimes make: "net:[4026532371]").
bool IsMountRoot(std::string_view s) {
  return s.front() == '/' || (s.find(":[") != std::string_view::npos && s.back() == ']');
}

// "/a/b/c" -> "/a/b"; "/a" -> "/"; "/" -> "".
std::string Parent(std::string_view path) {
  if (path == "/" || path.empty()) return "";
  size_t slash = path.rfind('/');
  return slash == 0 ? "/" : std::string(path.substr(0, slash));
}

std::string JoinPath(std::string_view base, std::string_view rest) {
  if (rest.empty() || rest == "/") return std::string(base);
  std::string out(base);
  if (!out.empty() && out.back() == '/') out.pop_back();
  if (rest.front() != '/') out += '/';
  out += rest;
  return out;
}

}  // namespace

bool ProcCgroupLine::Has(std::string_view controller) const {
  for (const auto& c : controllers) {
    if (c == controller) return true;
  }
  return false;
}

Result<std::vector<ProcCgroupLine>> ParseProcCgroup(std::string_view text) {
  std::vector<ProcCgroupLine> out;
  size_t line_no = 0;
  for (std::string_view line : SplitLines(text)) {
    ++line_no;
    if (Trim(line).empty()) continue;
    size_t c1 = line.find(':');
    size_t c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) {
      return LineError(line_no, line, "\"<id>:<controllers>:<path>\"");
    }
    auto id = ParseInt(line.substr(0, c1));
    std::string_view path = line.substr(c2 + 1);
    if (!id || *id < 0 || *id > 1 << 20 || path.empty() || path.front() != '/') {
      return LineError(line_no, line, "\"<id>:<controllers>:<path>\" with an absolute path");
    }
    ProcCgroupLine l;
    l.hierarchy = static_cast<int>(*id);
    for (std::string_view c : Split(line.substr(c1 + 1, c2 - c1 - 1), ',')) {
      if (!c.empty()) l.controllers.emplace_back(c);
    }
    l.path = std::string(path);
    out.push_back(std::move(l));
  }
  if (out.empty()) return Status::Invalid("no \"<id>:<controllers>:<path>\" lines");
  return out;
}

bool MountInfoLine::HasSuperOption(std::string_view opt) const {
  for (std::string_view o : Split(super_options, ',')) {
    if (o == opt) return true;
  }
  return false;
}

Result<std::vector<MountInfoLine>> ParseMountInfo(std::string_view text) {
  std::vector<MountInfoLine> out;
  size_t line_no = 0;
  for (std::string_view line : SplitLines(text)) {
    ++line_no;
    if (Trim(line).empty()) continue;
    auto f = SplitWhitespace(line);
    // id parent maj:min root mount-point options [optional...] - fstype source super-options
    size_t sep = 0;
    for (size_t i = 6; i < f.size(); ++i) {
      if (f[i] == "-") {
        sep = i;
        break;
      }
    }
    const char* shape =
        "\"<id> <parent> <maj:min> <root> <mount point> <options> ... - <fstype> "
        "<source> <super options>\"";
    if (sep == 0 || sep + 2 >= f.size()) return LineError(line_no, line, shape);
    auto id = ParseInt(f[0]), parent = ParseInt(f[1]);
    if (!id || !parent || f[2].find(':') == std::string_view::npos || !IsMountRoot(f[3]) ||
        f[4].front() != '/') {
      return LineError(line_no, line, shape);
    }
    MountInfoLine m;
    m.mount_id = static_cast<int>(*id);
    m.parent_id = static_cast<int>(*parent);
    m.root = Unescape(f[3]);
    m.mount_point = Unescape(f[4]);
    m.fstype = std::string(f[sep + 1]);
    m.source = Unescape(f[sep + 2]);
    if (sep + 3 < f.size()) m.super_options = std::string(f[sep + 3]);
    out.push_back(std::move(m));
  }
  if (out.empty()) return Status::Invalid("no mount lines");
  return out;
}

const char* CgroupVersionName(CgroupVersion v) { return v == CgroupVersion::kV1 ? "v1" : "v2"; }

std::optional<std::string> CgroupDir::DirOf(std::string_view cgroup_path) const {
  if (mount_root == "/") return JoinPath(mount_point, cgroup_path);
  if (cgroup_path == mount_root) return mount_point;
  if (StartsWith(cgroup_path, mount_root + "/")) {
    return JoinPath(mount_point, cgroup_path.substr(mount_root.size()));
  }
  return std::nullopt;
}

std::vector<std::string> CgroupDir::VisibleAncestors() const {
  std::vector<std::string> out;
  for (std::string p = Parent(path); !p.empty(); p = Parent(p)) {
    auto d = DirOf(p);
    if (!d) break;
    out.push_back(*d);
  }
  return out;
}

Result<CgroupDir> ResolveCgroupDir(const std::vector<ProcCgroupLine>& cgroups,
                                   const std::vector<MountInfoLine>& mounts,
                                   std::string_view controller) {
  // A v1 hierarchy carrying the controller, if the process is in one and it is mounted.
  for (const auto& line : cgroups) {
    if (line.IsUnified() || !line.Has(controller)) continue;
    const MountInfoLine* best = nullptr;
    for (const auto& m : mounts) {
      if (m.fstype != "cgroup" || !m.HasSuperOption(controller)) continue;
      bool under = m.root == "/" || line.path == m.root || StartsWith(line.path, m.root + "/");
      if (under && (best == nullptr || m.root.size() > best->root.size())) best = &m;
    }
    if (best != nullptr) {
      CgroupDir d{CgroupVersion::kV1, line.path, "", best->mount_point, best->root};
      d.dir = *d.DirOf(line.path);
      return d;
    }
  }
  for (const auto& line : cgroups) {
    if (!line.IsUnified()) continue;
    const MountInfoLine* best = nullptr;
    for (const auto& m : mounts) {
      if (m.fstype != "cgroup2") continue;
      bool under = m.root == "/" || line.path == m.root || StartsWith(line.path, m.root + "/");
      if (under && (best == nullptr || m.root.size() > best->root.size())) best = &m;
    }
    if (best != nullptr) {
      CgroupDir d{CgroupVersion::kV2, line.path, "", best->mount_point, best->root};
      d.dir = *d.DirOf(line.path);
      return d;
    }
    return Status::NotFound("no cgroup2 mount in mountinfo serves the cgroup " + line.path);
  }
  return Status::NotFound("no cgroup hierarchy with the " + std::string(controller) +
                          " controller and no unified (0::) line");
}

Result<std::vector<ProcCgroupLine>> ReadProcCgroup(const Host& host, const std::string& proc_dir) {
  std::string path = proc_dir + "/cgroup";
  auto text = host.ReadFile(path);
  if (!text.ok()) return text.status();
  if (Trim(*text).empty()) {
    // A live kernel lists at least the v2 line "0::/"; an empty copy records no membership.
    return Status::NotFound(host.Resolve(path) + ": empty file, no cgroup membership recorded");
  }
  auto lines = ParseProcCgroup(*text);
  if (!lines.ok()) return Status::Invalid(host.Resolve(path) + ": " + lines.status().message());
  return lines;
}

Result<CgroupDir> ReadCgroupDir(const Host& host, const std::string& proc_dir,
                                std::string_view controller) {
  auto lines = ReadProcCgroup(host, proc_dir);
  if (!lines.ok()) return lines.status();
  const std::string mi_path = "/proc/self/mountinfo";
  auto mi_text = host.ReadFile(mi_path);
  if (!mi_text.ok()) return mi_text.status();
  if (Trim(*mi_text).empty()) {
    // A live kernel lists at least the root mount; an empty copy records no cgroup mount.
    return Status::NotFound(host.Resolve(mi_path) + ": empty file, no mounts recorded");
  }
  auto mounts = ParseMountInfo(*mi_text);
  if (!mounts.ok()) {
    return Status::Invalid(host.Resolve(mi_path) + ": " + mounts.status().message());
  }
  auto dir = ResolveCgroupDir(*lines, *mounts, controller);
  if (!dir.ok()) {
    return Status(dir.status().code(), host.Resolve(proc_dir + "/cgroup") + " with " +
                                           host.Resolve(mi_path) + ": " + dir.status().message());
  }
  return dir;
}

std::optional<SlurmCgroup> ParseSlurmCgroupPath(std::string_view path) {
  auto parts = Split(path, '/');
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string_view p = parts[i];
    if (!StartsWith(p, "job_") || p.size() == 4 || !ParseUint(p.substr(4))) continue;
    if (i == 0) continue;
    SlurmCgroup s;
    std::string_view above = parts[i - 1];
    bool v2 = EndsWith(above, "slurmstepd.scope");
    bool v1 = StartsWith(above, "uid_") && i >= 2 && StartsWith(parts[i - 2], "slurm");
    if (!v2 && !v1) continue;
    if (v1) s.uid = std::string(above.substr(4));
    s.job = std::string(p.substr(4));
    auto join = [&](size_t end) {
      std::string out;
      for (size_t k = 1; k <= end; ++k) out += "/" + std::string(parts[k]);
      return out.empty() ? std::string("/") : out;
    };
    s.jobs_parent = join(i - 1);
    s.job_path = join(i);
    if (i + 1 < parts.size() && StartsWith(parts[i + 1], "step_")) {
      s.step = std::string(parts[i + 1].substr(5));
      s.step_path = join(i + 1);
      // v2 puts tasks under step_M/user/, v1 directly under step_M/.
      size_t t = i + 2;
      if (v2 && t < parts.size() && parts[t] == "user") ++t;
      if (t < parts.size() && StartsWith(parts[t], "task_")) {
        s.task = std::string(parts[t].substr(5));
      }
    }
    return s;
  }
  return std::nullopt;
}

Result<CpuSet> ReadEffectiveCpus(const Host& host, const CgroupDir& cg, const std::string& dir,
                                 std::string* source) {
  const char* file =
      cg.version == CgroupVersion::kV2 ? "cpuset.cpus.effective" : "cpuset.effective_cpus";
  std::string d = dir;
  while (true) {
    std::string path = d + "/" + file;
    auto line = host.ReadLine(path);
    if (line.ok()) {
      auto set = CpuSet::ParseList(*line);
      if (!set.ok()) return Status::Invalid(host.Resolve(path) + ": " + set.status().message());
      if (source != nullptr) *source = path;
      return set;
    }
    if (line.status().code() != StatusCode::kNotFound) return line.status();
    if (d.size() <= cg.mount_point.size()) break;
    d = Parent(d);
  }
  return Status::NotFound(host.Resolve(dir + "/" + file) + " (and its parents up to " +
                          cg.mount_point + ") is absent");
}

Result<std::optional<double>> ParseCpuMax(std::string_view text) {
  auto f = SplitWhitespace(text);
  auto q = f.size() == 2 ? ParseUint(f[0]) : std::nullopt;
  auto p = f.size() == 2 ? ParseUint(f[1]) : std::nullopt;
  if (!p || *p == 0 || (!q && f[0] != "max")) {
    return Status::Invalid("expected \"max <period>\" or \"<quota> <period>\", got \"" +
                           Shorten(Trim(text)) + "\"");
  }
  if (!q) return std::optional<double>();
  return std::optional<double>(static_cast<double>(*q) / static_cast<double>(*p));
}

Result<std::optional<CpuQuota>> ReadCpuQuota(const Host& host, const CgroupDir& cg) {
  const bool v2 = cg.version == CgroupVersion::kV2;
  std::vector<std::string> dirs = {cg.dir};
  for (auto& a : cg.VisibleAncestors()) dirs.push_back(std::move(a));
  std::optional<CpuQuota> best;
  for (const auto& d : dirs) {
    CpuQuota q;
    std::optional<double> cpus;
    if (v2) {
      q.file = d + "/cpu.max";
      auto line = host.ReadLine(q.file);
      if (!line.ok()) {
        if (line.status().code() == StatusCode::kNotFound) continue;
        return line.status();
      }
      if (line->empty()) continue;  // a copy that could not read it: no limit recorded there
      auto parsed = ParseCpuMax(*line);
      if (!parsed.ok()) {
        return Status::Invalid(host.Resolve(q.file) + ": " + parsed.status().message());
      }
      cpus = *parsed;
      q.value = *line;
    } else {
      q.file = d + "/cpu.cfs_quota_us";
      if (!host.Exists(q.file)) continue;
      auto quota = host.ReadInt(q.file);
      if (!quota.ok()) return quota.status();
      auto period = host.ReadInt(d + "/cpu.cfs_period_us");
      if (!period.ok()) return period.status();
      if (*period <= 0) {
        return Status::Invalid(host.Resolve(d + "/cpu.cfs_period_us") +
                               ": expected a positive period");
      }
      if (*quota > 0) cpus = static_cast<double>(*quota) / static_cast<double>(*period);
      q.value = std::to_string(*quota) + " " + std::to_string(*period);
    }
    if (!cpus || (best && best->cpus <= *cpus)) continue;
    q.cpus = *cpus;
    q.stat_file = d + "/cpu.stat";
    best = q;
  }
  if (!best) return best;
  if (auto st = host.ReadFile(best->stat_file); st.ok()) {
    for (auto line : SplitLines(*st)) {
      auto f = SplitWhitespace(line);
      if (f.size() == 2 && f[0] == "nr_throttled") {
        auto v = ParseUint(f[1]);
        if (!v) {
          return Status::Invalid(host.Resolve(best->stat_file) + ": nr_throttled is not a number");
        }
        best->nr_throttled = *v;
      }
    }
  }
  return best;
}

}  // namespace ys::host
