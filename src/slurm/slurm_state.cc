#include "slurm/slurm_state.h"

#include <fmt/format.h>

#include <map>

namespace ys::slurm {

namespace {

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == ':' || c == '/';
}

// The Key=Value tokens of scontrol's output. The first occurrence of a key wins: the fields read
// here come before free-text fields (Comment, WorkDir, Command) that could contain "Key=" text.
// A node's Reason is read to the end of its line because it may contain spaces (a job's is one
// word, followed by Dependency= on the same line).
std::map<std::string, std::string> KeyValues(std::string_view text, bool reason_to_end_of_line) {
  std::map<std::string, std::string> kv;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
      ++i;
    size_t b = i;
    while (i < text.size() && IsKeyChar(text[i])) ++i;
    if (i < text.size() && text[i] == '=' && i > b) {
      std::string key(text.substr(b, i - b));
      ++i;
      size_t v = i;
      if (key == "Reason" && reason_to_end_of_line) {
        while (i < text.size() && text[i] != '\n') ++i;
      } else {
        while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\n') ++i;
      }
      std::string value(text.substr(v, i - v));
      while (!value.empty() && (value.back() == ' ' || value.back() == '\r')) value.pop_back();
      kv.emplace(std::move(key), std::move(value));
    } else {
      while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\n') ++i;
    }
  }
  return kv;
}

bool UnknownTime(std::string_view t) {
  return t.empty() || t == "Unknown" || t == "None" || t == "N/A";
}

bool HasFlag(std::string_view state, std::string_view flag) {
  size_t b = 0;
  while (b <= state.size()) {
    size_t e = state.find('+', b);
    std::string_view part =
        state.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b);
    while (!part.empty() &&
           (part.back() == '*' || part.back() == '~' || part.back() == '#' || part.back() == '!' ||
            part.back() == '%' || part.back() == '$' || part.back() == '@')) {
      part.remove_suffix(1);
    }
    if (part == flag) return true;
    if (e == std::string_view::npos) break;
    b = e + 1;
  }
  return false;
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t b = 0;
  while (b < text.size()) {
    size_t e = text.find('\n', b);
    std::string_view line =
        text.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos) out.push_back(line);
    if (e == std::string_view::npos) break;
    b = e + 1;
  }
  return out;
}

Status CheckTime(const char* field, const std::string& value) {
  auto t = ParseSlurmTime(value);
  if (!t.ok()) return Status::Invalid(std::string(field) + ": " + t.status().message());
  return Status::Ok();
}

}  // namespace

bool IsEndedJobState(std::string_view s) {
  for (std::string_view e :
       {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL",
        "DEADLINE", "OUT_OF_MEMORY", "SPECIAL_EXIT", "REVOKED"}) {
    // sacct prints "CANCELLED by 0".
    if (s == e || (s.size() > e.size() && s.substr(0, e.size()) == e && s[e.size()] == ' '))
      return true;
  }
  return false;
}

bool JobInfo::Ended() const { return IsEndedJobState(state); }

Result<std::optional<std::time_t>> ParseSlurmTime(std::string_view t) {
  if (UnknownTime(t)) return std::optional<std::time_t>();
  std::tm tm{};
  int n = 0;
  std::string s(t);
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 ||
      n != static_cast<int>(s.size()) || s.size() != 19 || tm.tm_mon < 1 || tm.tm_mon > 12 ||
      tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60) {
    return Status::Invalid("'" + s + "': expected a time like 2026-11-29T19:11:04");
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  tm.tm_isdst = -1;
  return std::optional<std::time_t>(std::mktime(&tm));
}

std::optional<double> JobInfo::SubmitToStartSeconds() const {
  auto submit = ParseSlurmTime(submit_time);
  auto start = ParseSlurmTime(start_time);
  if (!submit.ok() || !start.ok() || !submit->has_value() || !start->has_value())
    return std::nullopt;
  if (state == "PENDING") return std::nullopt;  // StartTime is then the scheduler's forecast
  return std::difftime(**start, **submit);
}

Result<JobInfo> ParseScontrolJob(std::string_view text) {
  auto kv = KeyValues(text, false);
  if (!kv.count("JobId") || !kv.count("JobState")) {
    return Status::Invalid("scontrol show job: expected JobId= and JobState= in the output");
  }
  JobInfo j;
  j.job_id = kv["JobId"];
  j.name = kv["JobName"];
  j.state = kv["JobState"];
  j.reason = kv["Reason"];
  j.exit_code = kv["ExitCode"];
  j.node_list = kv["NodeList"];
  if (j.node_list == "(null)") j.node_list.clear();
  j.submit_time = kv["SubmitTime"];
  j.start_time = kv["StartTime"];
  j.end_time = kv["EndTime"];
  if (j.job_id.empty() || j.job_id.find_first_not_of("0123456789_+") != std::string::npos) {
    return Status::Invalid("scontrol show job: JobId '" + j.job_id + "': expected a job number");
  }
  if (j.state.empty()) return Status::Invalid("scontrol show job " + j.job_id + ": empty JobState");
  YS_RETURN_IF_ERROR(CheckTime("SubmitTime", j.submit_time));
  YS_RETURN_IF_ERROR(CheckTime("StartTime", j.start_time));
  YS_RETURN_IF_ERROR(CheckTime("EndTime", j.end_time));
  for (auto* t : {&j.submit_time, &j.start_time, &j.end_time}) {
    if (UnknownTime(*t)) t->clear();
  }
  return j;
}

Result<std::vector<QueueEntry>> ParseSqueue(std::string_view text) {
  std::vector<QueueEntry> out;
  for (std::string_view line : Lines(text)) {
    size_t b = line.find_first_not_of(" \t");
    size_t sp = line.find_first_of(" \t", b);
    // A job id followed by blanks only ("4242 ") has no state either.
    size_t s = sp == std::string_view::npos ? sp : line.find_first_not_of(" \t", sp);
    if (s == std::string_view::npos)
      return Status::Invalid("squeue: '" + std::string(line) + "': expected 'JOBID STATE'");
    QueueEntry e{std::string(line.substr(b, sp - b)), std::string(line.substr(s))};
    while (!e.state.empty() && (e.state.back() == ' ' || e.state.back() == '\t'))
      e.state.pop_back();
    if (e.state.find_first_of(" \t") != std::string::npos ||
        e.job_id.find_first_not_of("0123456789_[]-,+") != std::string::npos) {
      return Status::Invalid("squeue: '" + std::string(line) + "': expected 'JOBID STATE'");
    }
    out.push_back(std::move(e));
  }
  return out;
}

Result<JobInfo> ParseSacct(std::string_view text, std::string_view job_id) {
  for (std::string_view line : Lines(text)) {
    std::vector<std::string> f;
    size_t b = 0;
    for (size_t e; (e = line.find('|', b)) != std::string_view::npos; b = e + 1)
      f.emplace_back(line.substr(b, e - b));
    f.emplace_back(line.substr(b));
    if (f.size() != 8) {
      return Status::Invalid(
          fmt::format("sacct: '{}': expected 8 '|'-separated fields, found {}", line, f.size()));
    }
    if (f[0] != job_id) continue;  // a step: "123.batch", "123.0"
    JobInfo j{f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], ""};
    YS_RETURN_IF_ERROR(CheckTime("Submit", j.submit_time));
    YS_RETURN_IF_ERROR(CheckTime("Start", j.start_time));
    YS_RETURN_IF_ERROR(CheckTime("End", j.end_time));
    for (auto* t : {&j.submit_time, &j.start_time, &j.end_time}) {
      if (UnknownTime(*t)) t->clear();
    }
    if (j.node_list == "None assigned") j.node_list.clear();
    return j;
  }
  return Status::NotFound("sacct: no line for job " + std::string(job_id));
}

bool NodeInfo::Drained() const {
  return HasFlag(state, "DRAIN") || HasFlag(state, "DRAINING") || HasFlag(state, "DRAINED");
}

bool NodeInfo::Down() const { return HasFlag(state, "DOWN"); }

Result<NodeInfo> ParseScontrolNode(std::string_view text) {
  auto kv = KeyValues(text, true);
  if (!kv.count("NodeName") || !kv.count("State")) {
    return Status::Invalid("scontrol show node: expected NodeName= and State= in the output");
  }
  NodeInfo n{kv["NodeName"], kv["State"], kv["Reason"], "", ""};
  if (n.name.empty() || n.state.empty())
    return Status::Invalid("scontrol show node: empty NodeName or State");
  // "admin: maintenance [root@2026-11-29T19:11:03]": the bracket is who set it and when, added by
  // slurmctld (a reason cannot forge it: Slurm appends its own after whatever the text holds).
  if (!n.reason.empty() && n.reason.back() == ']') {
    size_t open = n.reason.rfind(" [");
    size_t at = open == std::string::npos ? std::string::npos : n.reason.find('@', open);
    if (at != std::string::npos) {
      n.reason_user = n.reason.substr(open + 2, at - open - 2);
      n.reason_time = n.reason.substr(at + 1, n.reason.size() - at - 2);
      n.reason.resize(open);
    }
  }
  if (n.reason == "(null)" || n.reason == "None") n.reason.clear();
  return n;
}

}  // namespace ys::slurm
