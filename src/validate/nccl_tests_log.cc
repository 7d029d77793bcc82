#include "validate/nccl_tests_log.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "core/text.h"

namespace ys::validate {
// Named, not anonymous: the library is built in unity batches.
namespace nccl_tests_log_impl {

// nccl-tests' dtype names and their element sizes (src/common.cu test_typenames).
size_t ElementBytes(std::string_view dtype) {
  static constexpr std::pair<std::string_view, size_t> kSizes[] = {
      {"int8", 1},  {"uint8", 1},  {"f8e4m3", 1}, {"f8e5m2", 1}, {"half", 2},   {"bfloat16", 2},
      {"int32", 4}, {"uint32", 4}, {"float", 4},  {"int64", 8},  {"uint64", 8}, {"double", 8}};
  for (const auto& [name, bytes] : kSizes) {
    if (name == dtype) return bytes;
  }
  return 0;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// The layout a column header fixes: the leading columns, then one or two placements of four.
struct Layout {
  std::vector<std::string> lead;  // "size", "count", "type", "redop"?, "root"?
  int placements = 0;
  bool error_column = false;
  size_t Columns() const { return lead.size() + 4 * static_cast<size_t>(placements); }
  int Index(std::string_view name) const {
    for (size_t i = 0; i < lead.size(); ++i) {
      if (lead[i] == name) return static_cast<int>(i);
    }
    return -1;
  }
};

std::optional<Layout> ParseLayout(const std::vector<std::string_view>& t) {
  Layout l;
  size_t i = 0;
  while (i < t.size() && t[i] != "time") l.lead.emplace_back(t[i++]);
  if (l.Index("size") != 0 || l.Index("count") < 0 || l.Index("type") < 0) return std::nullopt;
  for (; i + 4 <= t.size(); i += 4) {
    if (t[i] != "time" || t[i + 1] != "algbw" || t[i + 2] != "busbw") return std::nullopt;
    if (t[i + 3] == "error") {
      l.error_column = true;
    } else if (t[i + 3] != "#wrong") {
      return std::nullopt;
    }
    ++l.placements;
  }
  if (i != t.size() || l.placements < 1 || l.placements > 2) return std::nullopt;
  return l;
}

std::string LayoutText(const Layout& l) {
  std::string s = Join(l.lead, " ");
  for (int p = 0; p < l.placements; ++p) {
    s += l.error_column ? " time algbw busbw error" : " time algbw busbw #wrong";
  }
  return s;
}

class Parser {
 public:
  explicit Parser(std::string_view name) : name_(name) {}

  Status Feed(std::string_view raw, int64_t no) {
    std::string kind;
    std::string_view line = Trim(StripLaunchPrefix(raw, &kind));
    if (!kind.empty() && log_.prefix.empty()) log_.prefix = kind;
    if (line.empty()) return Status::Ok();
    if (line.find("nccl-tests version") != std::string_view::npos) ReadVersion(line);
    if (size_t at = line.find("NCCL version ");
        at != std::string_view::npos && log_.nccl_version.empty()) {
      auto words = SplitWhitespace(line.substr(at + 13));
      if (!words.empty()) log_.nccl_version = std::string(words[0].substr(0, words[0].find('+')));
    }
    bool comment = line.front() == '#';
    std::string_view body = comment ? Trim(line.substr(1)) : line;
    auto t = SplitWhitespace(body);
    if (t.empty()) return Status::Ok();
    if (StartsWith(body, "Collective test starting:")) {
      NameBinary(Trim(body.substr(25)));
    } else if (t[0] == "nThread") {
      ReadThreads(t);
    } else if (t[0] == "Rank" && body.find(" Pid ") != std::string_view::npos) {
      return ReadRank(body, t, no);
    } else if (t[0] == "size" && t.size() > 3) {
      return StartTable(t, no);
    } else if (StartsWith(body, "Out of bounds values")) {
      ReadOutOfBounds(body);
    } else if (StartsWith(body, "Avg bus bandwidth")) {
      ReadAverage(body);
      open_ = false;
    } else if (!comment && open_ && AllDigits(t[0])) {
      return ReadRow(t, no);
    } else if (IsElision(body) && !log_.ranks.empty() && !open_) {
      log_.rank_list_elided = true;
    } else if (!comment) {
      ReadOtherLine(t);
    }
    return Status::Ok();
  }

  Result<NcclTestsLog> Finish(int64_t lines) {
    log_.lines = lines;
    if (log_.tables.empty()) {
      return Invalid(lines,
                     "no nccl-tests table: expected a column header line '# size count "
                     "type redop root time algbw busbw #wrong ...' followed by rows");
    }
    for (const NcclTestsTable& t : log_.tables) {
      if (t.rows.empty()) {
        return Invalid(t.header_line, "the table under this column header has no rows");
      }
    }
    return std::move(log_);
  }

 private:
  Status Invalid(int64_t no, std::string_view what) const {
    return Status::Invalid(fmt::format("{}:{}: {}", name_, no, what));
  }

  void NameBinary(std::string_view word) {
    size_t slash = word.rfind('/');
    if (slash != std::string_view::npos) word = word.substr(slash + 1);
    if (CollectiveOfBinary(word).empty()) return;
    binary_ = std::string(word);
  }

  static bool IsElision(std::string_view body) {
    return body.size() >= 3 && body.find_first_not_of('.') == std::string_view::npos;
  }

  // A line outside the tables: a command line naming a *_perf binary, or NCCL's "nranks N".
  void ReadOtherLine(const std::vector<std::string_view>& t) {
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      auto n = t[i] == "nranks" ? ParseInt(t[i + 1]) : std::nullopt;
      if (n && *n > 0 && *n <= 1 << 24) {
        log_.nccl_nranks = std::max(log_.nccl_nranks.value_or(0), static_cast<int>(*n));
      }
    }
    for (size_t i = 0; i < t.size(); ++i) {
      if (CollectiveOfBinary(t[i]).empty()) continue;
      NameBinary(t[i]);
      ReadCommandLine(t, i);
    }
  }

  // The value of option `flag` at t[i] ("-g 8", "-g8"); nullopt when t[i] is not that option.
  static std::optional<int> OptionValue(const std::vector<std::string_view>& t, size_t i,
                                        std::string_view flag) {
    std::optional<int64_t> v;
    if (t[i] == flag && i + 1 < t.size()) {
      v = ParseInt(t[i + 1]);
    } else if (flag.size() == 2 && t[i].size() > 2 && StartsWith(t[i], flag)) {
      v = ParseInt(t[i].substr(2));
    }
    if (!v || *v <= 0 || *v > 1 << 20) return std::nullopt;
    return static_cast<int>(*v);
  }

  void ReadCommandLine(const std::vector<std::string_view>& t, size_t binary) {
    bool launcher = false;
    std::optional<int> processes, threads, gpus;
    for (size_t i = 0; i < binary; ++i) {
      std::string_view w =
          t[i].substr(t[i].rfind('/') == std::string_view::npos ? 0 : t[i].rfind('/') + 1);
      launcher |= w == "mpirun" || w == "mpiexec" || w == "srun";
      for (std::string_view flag : {"-np", "--np", "-n", "--ntasks"}) {
        if (auto v = launcher ? OptionValue(t, i, flag) : std::nullopt) processes = v;
      }
    }
    for (size_t i = binary + 1; i < t.size(); ++i) {
      if (auto v = OptionValue(t, i, "-g")) gpus = v;
      if (auto v = OptionValue(t, i, "--ngpus")) gpus = v;
      if (auto v = OptionValue(t, i, "-t")) threads = v;
      if (auto v = OptionValue(t, i, "--nthreads")) threads = v;
    }
    launch_ = {launcher, processes, threads, gpus};
  }

  void ReadVersion(std::string_view line) {
    auto t = SplitWhitespace(line.substr(line.find("nccl-tests version")));
    if (t.size() > 2) log_.tests_version = std::string(t[2]);
    for (std::string_view w : t) {
      if (!StartsWith(w, "nccl-library=")) continue;
      if (auto v = ParseInt(w.substr(13)); v && *v > 0) {
        log_.nccl_version = fmt::format("{}.{}.{}", *v / 10000, *v / 100 % 100, *v % 100);
      }
    }
  }

  void ReadThreads(const std::vector<std::string_view>& t) {
    log_.threads_line = true;
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      auto v = ParseInt(t[i + 1]);
      if (!v || *v <= 0 || *v > 1 << 20) continue;
      if (t[i] == "nThread") log_.threads = static_cast<int>(*v);
      if (t[i] == "nGpus") log_.gpus_per_thread = static_cast<int>(*v);
      if (t[i] == "validation:") log_.validation = static_cast<int>(*v);
    }
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      if (t[i] == "validation:" && t[i + 1] == "0") log_.validation = 0;
    }
  }

  Status ReadRank(std::string_view body, const std::vector<std::string_view>& t, int64_t no) {
    // Rank R [Group G] Pid P on HOST device D [BUS] NAME...
    NcclTestsRank r;
    size_t i = 1;
    const int64_t rank = i < t.size() ? ParseInt(t[i++]).value_or(-1) : -1;
    if (i + 1 < t.size() && t[i] == "Group") {
      r.group = static_cast<int>(ParseInt(t[i + 1]).value_or(0));
      i += 2;
    }
    const int64_t pid = i + 1 < t.size() && t[i] == "Pid" ? ParseInt(t[i + 1]).value_or(-1) : -1;
    i += 2;
    bool on = i + 1 < t.size() && t[i] == "on";
    const int64_t device =
        on && i + 3 < t.size() && t[i + 2] == "device" ? ParseInt(t[i + 3]).value_or(-1) : -1;
    if (rank < 0 || pid < 0 || device < 0 || rank > 1 << 24 || device > 1 << 16) {
      return Invalid(no,
                     "a device list line: expected 'Rank R [Group G] Pid P on HOST device D "
                     "[BUS] GPU NAME'");
    }
    r.rank = static_cast<int>(rank);
    r.pid = pid;
    r.host = std::string(t[i + 1]);
    r.device = static_cast<int>(device);
    if (i + 4 < t.size() && StartsWith(t[i + 4], "[")) {
      std::string_view bus = t[i + 4];
      r.bus_id = std::string(bus.substr(1, bus.size() >= 2 ? bus.size() - 2 : 0));
      size_t at = body.find(bus) + bus.size();
      r.gpu = std::string(Trim(body.substr(at)));
    }
    log_.ranks.push_back(std::move(r));
    return Status::Ok();
  }

  Status StartTable(const std::vector<std::string_view>& t, int64_t no) {
    auto layout = ParseLayout(t);
    if (!layout) {
      return Invalid(no,
                     "a column header: expected 'size count type redop root time algbw "
                     "busbw #wrong time algbw busbw #wrong' (or the older 'error' columns)");
    }
    layout_ = *layout;
    NcclTestsTable table;
    table.binary = binary_;
    table.collective = CollectiveOfBinary(binary_);
    table.launch = launch_;
    table.error_column = layout_.error_column;
    table.header_line = no;
    log_.tables.push_back(std::move(table));
    open_ = true;
    return Status::Ok();
  }

  Result<NcclTestsPlace> ReadPlace(const std::vector<std::string_view>& t, size_t at,
                                   int64_t no) const {
    NcclTestsPlace p;
    double* fields[] = {&p.time_us, &p.algbw_gbps, &p.busbw_gbps};
    for (int k = 0; k < 3; ++k) {
      auto v = ParseDouble(t[at + k]);
      if (!v || !std::isfinite(*v) || *v < 0) {
        return Invalid(no, fmt::format("column {} ('{}'): expected a number >= 0", at + k + 1,
                                       SanitizeForDisplay(t[at + k])));
      }
      *fields[k] = *v;
    }
    std::string_view w = t[at + 3];
    while (!w.empty() && w.back() == '*') w.remove_suffix(1);  // over the threshold (2.17+)
    if (w == "N/A") return p;
    auto v = ParseDouble(w);
    if (!v || !std::isfinite(*v) || *v < 0) {
      return Invalid(no, fmt::format("column {} ('{}'): expected {} or N/A", at + 4,
                                     SanitizeForDisplay(t[at + 3]),
                                     layout_.error_column ? "a deviation"
                                                          : "a count of wrong "
                                                            "elements"));
    }
    if (layout_.error_column) {
      p.max_error = *v;
    } else {
      p.wrong = static_cast<int64_t>(std::llround(std::min(*v, 9e18)));
    }
    return p;
  }

  Status ReadRow(const std::vector<std::string_view>& t, int64_t no) {
    if (t.size() != layout_.Columns()) {
      return Invalid(no, fmt::format("a table row: expected {} columns ({}), found {}",
                                     layout_.Columns(), LayoutText(layout_), t.size()));
    }
    NcclTestsRow row;
    row.line = no;
    for (std::string_view cell : t) row.cells.emplace_back(cell);
    auto size = ParseUint(t[0]);
    auto count = ParseUint(t[static_cast<size_t>(layout_.Index("count"))]);
    if (!size || !count) {
      return Invalid(no,
                     "a table row: expected the size in bytes and the count in elements as "
                     "whole numbers");
    }
    row.size_bytes = *size;
    row.count = *count;
    row.dtype = std::string(t[static_cast<size_t>(layout_.Index("type"))]);
    if (int k = layout_.Index("redop"); k >= 0) row.redop = std::string(t[static_cast<size_t>(k)]);
    if (int k = layout_.Index("root"); k >= 0) {
      auto root = ParseInt(t[static_cast<size_t>(k)]);
      if (!root || *root < -1 || *root > 1 << 24) {
        return Invalid(no, "the root column: expected -1 or a rank");
      }
      row.root = static_cast<int>(*root);
    }
    size_t at = layout_.lead.size();
    auto out = ReadPlace(t, at, no);
    if (!out.ok()) return out.status();
    row.out_of_place = *out;
    if (layout_.placements == 2) {
      auto in = ReadPlace(t, at + 4, no);
      if (!in.ok()) return in.status();
      row.in_place = *in;
    }
    log_.tables.back().rows.push_back(std::move(row));
    return Status::Ok();
  }

  void ReadOutOfBounds(std::string_view body) {
    if (log_.tables.empty()) return;
    auto t = SplitWhitespace(body.substr(body.find(':') + 1));
    if (t.empty()) return;
    if (auto n = ParseInt(t[0]); n && *n >= 0) log_.tables.back().out_of_bounds = *n;
    log_.tables.back().out_of_bounds_failed = t.size() > 1 && t[1] == "FAILED";
  }

  void ReadAverage(std::string_view body) {
    if (log_.tables.empty()) return;
    auto t = SplitWhitespace(body.substr(body.find(':') + 1));
    if (t.empty()) return;
    if (auto v = ParseDouble(t[0]); v && std::isfinite(*v)) log_.tables.back().avg_busbw_gbps = *v;
  }

  std::string name_;
  NcclTestsLog log_;
  Layout layout_;
  bool open_ = false;
  std::string binary_;
  NcclTestsLaunch launch_;
};

}  // namespace nccl_tests_log_impl

std::string_view StripLaunchPrefix(std::string_view line, std::string* kind) {
  std::string_view s = line;
  size_t lead = 0;
  while (lead < s.size() && (s[lead] == ' ' || s[lead] == '\t')) ++lead;
  s = s.substr(lead);
  auto set = [&](const char* k) {
    if (kind) *kind = k;
  };
  if (StartsWith(s, "[")) {
    size_t close = s.find(']');
    std::string_view inside = close == std::string_view::npos ? "" : s.substr(1, close - 1);
    std::string_view rest = close == std::string_view::npos ? "" : s.substr(close + 1);
    size_t comma = inside.find(',');
    if (comma != std::string_view::npos &&
        nccl_tests_log_impl::AllDigits(inside.substr(0, comma)) &&
        nccl_tests_log_impl::AllDigits(inside.substr(comma + 1))) {
      set("mpirun --tag-output");
      if (StartsWith(rest, "<stdout>:")) return rest.substr(9);
      if (StartsWith(rest, "<stderr>:")) return {};
      return rest;
    }
    if (nccl_tests_log_impl::AllDigits(inside)) {
      set("[N]");
      return StartsWith(rest, ":") ? rest.substr(1) : rest;
    }
    return line;
  }
  size_t digits = 0;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  if (digits > 0 && digits < s.size() - 1 && s[digits] == ':' && s[digits + 1] == ' ') {
    set("srun --label");
    return s.substr(digits + 2);
  }
  return line;
}

std::string CollectiveOfBinary(std::string_view word) {
  size_t slash = word.rfind('/');
  if (slash != std::string_view::npos) word = word.substr(slash + 1);
  if (EndsWith(word, "_mpi")) word.remove_suffix(4);
  if (!EndsWith(word, "_perf") || word.size() <= 5) return "";
  word.remove_suffix(5);
  for (char c : word) {
    if (!std::islower(static_cast<unsigned char>(c)) && c != '_') return "";
  }
  return std::string(word);
}

bool LooksLikeNcclTests(std::string_view head) {
  for (std::string_view raw : SplitLines(head)) {
    std::string_view line = Trim(StripLaunchPrefix(raw));
    if (StartsWith(line, "#")) line = Trim(line.substr(1));
    auto t = SplitWhitespace(line);
    if (t.empty()) continue;
    if (t[0] == "nThread" && line.find("nGpus") != std::string_view::npos) return true;
    if (t[0] == "size" && nccl_tests_log_impl::ParseLayout(t)) return true;
    if (StartsWith(line, "Collective test starting:")) return true;
  }
  return false;
}

Result<NcclTestsLog> ParseNcclTestsLog(std::string_view text, std::string_view name) {
  nccl_tests_log_impl::Parser p(name);
  int64_t no = 0;
  for (std::string_view line : SplitLines(text)) {
    ++no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (Status s = p.Feed(line, no); !s.ok()) return s;
  }
  return p.Finish(no);
}

size_t NcclTestsElementBytes(std::string_view dtype) {
  return nccl_tests_log_impl::ElementBytes(dtype);
}

}  // namespace ys::validate
