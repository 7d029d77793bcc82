#include "host/bug_report.h"

#include <algorithm>
#include <optional>

#include "core/document_file.h"
#include "host/kernel_config.h"

namespace ys::host {
namespace {

using SectionLines = std::vector<std::string_view>;

std::string_view WithoutCr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The script's section line: 44 underscores. Any line of 40 or more underscores alone is taken.
bool IsSectionLine(std::string_view line) {
  return line.size() >= 40 && line.find_first_not_of('_') == std::string_view::npos;
}

std::vector<SectionLines> SplitReportSections(std::string_view text) {
  std::vector<SectionLines> sections(1);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = WithoutCr(text.substr(pos, nl - pos));
    pos = nl + 1;
    if (IsSectionLine(line)) {
      sections.emplace_back();
    } else {
      sections.back().push_back(line);
    }
  }
  return sections;
}

// The lines joined, without the blank lines the script puts before and after an output.
std::string JoinOutput(const SectionLines& lines, size_t from, size_t to) {
  while (from < to && TrimBlanks(lines[from]).empty()) ++from;
  while (to > from && TrimBlanks(lines[to - 1]).empty()) --to;
  std::string out;
  for (size_t i = from; i < to; ++i) {
    out.append(lines[i]);
    out.push_back('\n');
  }
  return out;
}

std::optional<size_t> FirstNonBlankLine(const SectionLines& lines) {
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!TrimBlanks(lines[i]).empty()) return i;
  }
  return std::nullopt;
}

// "/usr/bin/nvidia-smi --query" -> "--query": the command lines append_command writes.
std::optional<std::string_view> SmiCommand(std::string_view line) {
  line = TrimBlanks(line);
  size_t p = line.find("nvidia-smi ");
  if (p == std::string_view::npos) return std::nullopt;
  std::string_view path = line.substr(0, p);
  if (!path.empty() && (path.back() != '/' || path.find(' ') != std::string_view::npos)) {
    return std::nullopt;
  }
  std::string_view args = line.substr(p + 11);
  static constexpr std::string_view kKnown[] = {"--query",
                                                "-q",
                                                "--query --unit",
                                                "-q -u",
                                                "nvlink --errorcounters",
                                                "nvlink -e",
                                                "nvlink --remotelinkinfo",
                                                "nvlink -R",
                                                "nvlink --status",
                                                "nvlink -s",
                                                "topo -m",
                                                "topo --matrix"};
  for (std::string_view k : kKnown) {
    if (args == k) return args;
  }
  return std::nullopt;
}

void ReadSmiSection(const SectionLines& lines, BugReport& r) {
  std::optional<std::string_view> current;
  size_t start = 0;
  auto close = [&](size_t end) {
    if (!current) return;
    std::string body = JoinOutput(lines, start, end);
    std::string_view c = *current;
    if ((c == "--query" || c == "-q") && r.smi_query.empty()) r.smi_query = std::move(body);
    if ((c == "nvlink --status" || c == "nvlink -s") && r.nvlink_status.empty()) {
      r.nvlink_status = std::move(body);
    }
    if ((c == "nvlink --errorcounters" || c == "nvlink -e") && r.nvlink_errors.empty()) {
      r.nvlink_errors = std::move(body);
    }
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    if (auto c = SmiCommand(lines[i])) {
      close(i);
      current = c;
      start = i + 1;
    }
  }
  close(lines.size());
}

// "*** /proc/driver/nvidia/version" then "*** ls: -r--r--r-- ..." then the content.
void ReadFileSection(const SectionLines& lines, size_t head, BugReport& r) {
  std::string_view path = TrimBlanks(lines[head].substr(4));
  if (path.empty() || path.front() != '/' || path.find("/../") != std::string_view::npos ||
      path.find(' ') != std::string_view::npos) {
    return;  // "*** /x does not exist", "*** /x is not readable", or not a path
  }
  if (path.rfind("/proc/", 0) != 0 && path.rfind("/sys/", 0) != 0 && path.rfind("/etc/", 0) != 0) {
    return;
  }
  size_t from = head + 1;
  if (from < lines.size() && lines[from].rfind("*** ls:", 0) == 0) ++from;
  size_t to = lines.size();
  // append() ends a file with one "echo": drop that line only, the file's own blank lines stay.
  if (to > from && lines[to - 1].empty()) --to;
  std::string body;
  for (size_t i = from; i < to; ++i) {
    body.append(lines[i]);
    body.push_back('\n');
  }
  r.files.emplace(std::string(path), std::move(body));
}

struct KernelCandidates {
  std::optional<std::string> dmesg;
  std::optional<std::string> journal_current;  // journalctl -b -0 (or -b 0)
  std::optional<std::string> log_files;        // /var/log/messages, kern.log: every boot
};

// "Scanning kernel log files for NVIDIA kernel messages:" with "  journalctl -b -0:" and
// "  /var/log/messages:" blocks of grep output.
void ReadKernelScan(const SectionLines& lines, size_t head, KernelCandidates& k) {
  enum class Block { kNone, kJournalCurrent, kJournalOlder, kFile } block = Block::kNone;
  std::string journal, files;
  for (size_t i = head + 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    std::string_view t = TrimBlanks(line);
    bool indented_head = line.rfind("  ", 0) == 0 && !t.empty() && t.back() == ':';
    if (indented_head && t.rfind("journalctl -b ", 0) == 0) {
      std::string_view b = t.substr(14, t.size() - 15);
      block = (b == "-0" || b == "0") ? Block::kJournalCurrent : Block::kJournalOlder;
      continue;
    }
    if (line.rfind("  /", 0) == 0 && t.back() == ':' && t.find(' ') == std::string_view::npos) {
      block = Block::kFile;
      continue;
    }
    if (t.empty()) continue;
    if (block == Block::kJournalCurrent) (journal += line) += '\n';
    if (block == Block::kFile) (files += line) += '\n';
  }
  if (!journal.empty()) k.journal_current = std::move(journal);
  if (!files.empty()) k.log_files = std::move(files);
}

size_t CountNvrmLines(const std::optional<std::string>& log) {
  if (!log) return 0;
  size_t n = 0;
  for (size_t p = log->find("NVRM"); p != std::string::npos; p = log->find("NVRM", p + 4)) ++n;
  return n;
}

// The ring buffer holds the current boot but may have wrapped; the journal's current boot keeps
// what the ring lost. The one with more NVRM lines wins; both are never added (double counts).
void ChooseKernelLog(KernelCandidates& k, BugReport& r) {
  size_t in_dmesg = CountNvrmLines(k.dmesg);
  size_t in_journal = CountNvrmLines(k.journal_current);
  if (k.dmesg && (in_dmesg >= in_journal || !k.journal_current)) {
    r.kernel_log = std::move(*k.dmesg);
    r.kernel_log_source = "the dmesg section (the boot the report was taken in)";
  } else if (k.journal_current) {
    r.kernel_log = std::move(*k.journal_current);
    r.kernel_log_source = "the NVIDIA lines of journalctl -b -0 (the boot the report was taken in)";
  } else if (k.log_files) {
    r.kernel_log = std::move(*k.log_files);
    r.kernel_log_source = "the NVIDIA lines of /var/log files (may span several boots)";
  } else {
    r.notes.push_back("the report holds no kernel log (no dmesg section, no journal lines)");
  }
}

void ReadPrologue(const SectionLines& lines, BugReport& r) {
  for (std::string_view line : lines) {
    if (line.rfind("nvidia-bug-report.sh Version: ", 0) == 0) {
      r.version = std::string(TrimBlanks(line.substr(30)));
    } else if (line.rfind("Date: ", 0) == 0 && r.date.empty()) {
      r.date = std::string(TrimBlanks(line.substr(6)));
    } else if (line.rfind("uname: ", 0) == 0 && r.uname.empty()) {
      r.uname = std::string(TrimBlanks(line.substr(7)));
    }
  }
}

}  // namespace

Result<BugReport> ParseBugReport(std::string_view text) {
  std::vector<SectionLines> sections = SplitReportSections(text);
  BugReport r;
  KernelCandidates k;
  bool prologue = false;
  for (const SectionLines& s : sections) {
    auto head = FirstNonBlankLine(s);
    if (!head) continue;
    std::string_view h = TrimBlanks(s[*head]);
    if (h.rfind("Start of NVIDIA bug report log file", 0) == 0) {
      prologue = true;
      ReadPrologue(s, r);
    } else if (h.rfind("*** ", 0) == 0) {
      ReadFileSection(s, *head, r);
    } else if (h == "dmesg:") {
      if (!k.dmesg) k.dmesg = JoinOutput(s, *head + 1, s.size());
    } else if (h == "Scanning kernel log files for NVIDIA kernel messages:") {
      ReadKernelScan(s, *head, k);
    } else if (h.rfind("Skipping nvidia-smi", 0) == 0) {
      r.notes.push_back("the report says: " + std::string(h));
    } else {
      ReadSmiSection(s, r);
    }
  }
  if (!prologue && sections.size() < 2) {
    return Status::Invalid(
        "not an nvidia-bug-report log: expected the sections nvidia-bug-report.sh writes (lines "
        "of underscores, \"Start of NVIDIA bug report log file\")");
  }
  if (!prologue) r.notes.push_back("no \"Start of NVIDIA bug report log file\" prologue");
  if (r.smi_query.empty()) r.notes.push_back("the report holds no `nvidia-smi --query` output");
  ChooseKernelLog(k, r);
  return r;
}

Result<BugReport> ReadBugReport(const std::string& path) {
  auto data = ReadDocumentFile(path, kMaxBugReportBytes, "an nvidia-bug-report log");
  if (!data.ok()) return data.status();
  std::string text;
  if (data->size() >= 2 && static_cast<unsigned char>((*data)[0]) == 0x1f &&
      static_cast<unsigned char>((*data)[1]) == 0x8b) {
    auto plain = Gunzip(*data, kMaxBugReportBytes);
    if (!plain.ok()) return Status::Invalid(path + ": " + plain.status().message());
    text = std::move(*plain);
  } else {
    text = std::move(*data);
  }
  auto r = ParseBugReport(text);
  if (!r.ok()) return Status::Invalid(path + ": " + r.status().message());
  return r;
}

}  // namespace ys::host
