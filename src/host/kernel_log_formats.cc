#include "host/kernel_log_formats.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/json_document.h"
#include "core/text.h"

namespace ys::host::klog {
namespace {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A day of the month: one or two digits.
bool DayDigits(std::string_view s) { return AllDigits(s) && s.size() <= 2; }

int Number(std::string_view s) {  // s is AllDigits and at most 4 digits (callers check)
  int v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

int MonthOf(std::string_view s) {
  constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (size_t i = 0; i < kMonths.size(); ++i) {
    if (s == kMonths[i]) return static_cast<int>(i) + 1;
  }
  return 0;
}

// "HH:MM:SS" with an optional fraction ("10:11:12.123456"); nullopt otherwise.
std::optional<double> ClockSeconds(std::string_view s, int* h, int* m) {
  if (s.size() < 8 || s[2] != ':' || s[5] != ':') return std::nullopt;
  std::string_view hh = s.substr(0, 2), mm = s.substr(3, 2), ss = s.substr(6);
  if (!AllDigits(hh) || !AllDigits(mm)) return std::nullopt;
  auto sec = ParseDouble(ss);
  if (!sec || !AllDigits(ss.substr(0, 2)) || *sec < 0 || *sec >= 61) return std::nullopt;
  *h = Number(hh);
  *m = Number(mm);
  if (*h > 23 || *m > 59) return std::nullopt;
  return *sec;
}

// "2024-03-05T10:11:12[.,frac][Z|+hh:mm|+hhmm]" at the start of s; sets *used to its length.
std::optional<double> IsoStamp(std::string_view s, size_t* used) {
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T') return std::nullopt;
  if (!AllDigits(s.substr(0, 4)) || !AllDigits(s.substr(5, 2)) || !AllDigits(s.substr(8, 2)))
    return std::nullopt;
  size_t end = 19;
  std::string clock(s.substr(11, 8));
  if (end < s.size() && (s[end] == '.' || s[end] == ',')) {
    size_t f = end + 1;
    while (f < s.size() && s[f] >= '0' && s[f] <= '9') ++f;
    if (f > end + 1) clock += "." + std::string(s.substr(end + 1, f - end - 1));
    end = f;
  }
  if (end < s.size() && s[end] == 'Z') {
    ++end;
  } else if (end < s.size() && (s[end] == '+' || s[end] == '-')) {
    size_t z = end + 1;
    while (z < s.size() && ((s[z] >= '0' && s[z] <= '9') || s[z] == ':')) ++z;
    end = z;
  }
  if (end < s.size() && s[end] != ' ') return std::nullopt;
  int h = 0, m = 0;
  auto sec = ClockSeconds(clock, &h, &m);
  if (!sec) return std::nullopt;
  *used = end;
  return CivilSeconds(Number(s.substr(0, 4)), Number(s.substr(5, 2)), Number(s.substr(8, 2)), h, m,
                      *sec);
}

// "Tue Mar  5 10:11:12 2024" (dmesg -T, inside the brackets).
std::optional<double> CtimeStamp(std::string_view s) {
  auto t = SplitWhitespace(s);
  if (t.size() != 5 || !MonthOf(t[1]) || !DayDigits(t[2]) || !AllDigits(t[4]) || t[4].size() != 4)
    return std::nullopt;
  int h = 0, m = 0;
  auto sec = ClockSeconds(t[3], &h, &m);
  if (!sec) return std::nullopt;
  return CivilSeconds(Number(t[4]), MonthOf(t[1]), Number(t[2]), h, m, *sec);
}

// "host kernel: " or "host ident[pid]: " after a syslog stamp; the text after it, or nullopt.
std::optional<std::string_view> AfterHostAndIdent(std::string_view s) {
  size_t sp = s.find(' ');
  if (sp == 0 || sp == std::string_view::npos) return std::nullopt;
  std::string_view host = s.substr(0, sp);
  if (host.find(':') != std::string_view::npos) return std::nullopt;
  std::string_view rest = s.substr(sp + 1);
  size_t colon = rest.find(": ");
  if (colon == std::string_view::npos) {
    if (!EndsWith(rest, ":")) return std::nullopt;
    colon = rest.size() - 1;
  }
  std::string_view ident = rest.substr(0, colon);
  bool pid_form = EndsWith(ident, "]") && ident.find('[') != std::string_view::npos &&
                  ident.find(' ') == std::string_view::npos;
  if (ident != "kernel" && !pid_form) return std::nullopt;
  return rest.substr(std::min(rest.size(), colon + 2));
}

// "Mar  5 10:11:12 " or "Mar 05 10:11:12.123456 " (journalctl short, short-precise, syslog).
std::optional<double> SyslogStamp(std::string_view s, size_t* used) {
  if (s.size() < 16 || !MonthOf(s.substr(0, 3)) || s[3] != ' ') return std::nullopt;
  size_t p = 4;
  if (s[p] == ' ') ++p;
  size_t day_end = s.find(' ', p);
  if (day_end == std::string_view::npos || !DayDigits(s.substr(p, day_end - p)))
    return std::nullopt;
  int day = Number(s.substr(p, day_end - p));
  size_t clock_end = s.find(' ', day_end + 1);
  if (clock_end == std::string_view::npos) return std::nullopt;
  int h = 0, m = 0;
  auto sec = ClockSeconds(s.substr(day_end + 1, clock_end - day_end - 1), &h, &m);
  if (!sec || day < 1 || day > 31) return std::nullopt;
  *used = clock_end + 1;
  return CivilSeconds(1970, MonthOf(s.substr(0, 3)), day, h, m, *sec);
}

// "[  123.456789] " (monotonic) or "[Tue Mar  5 10:11:12 2024] " at the start of s.
bool BracketStamp(std::string_view& s, LinePrefix& p) {
  if (s.empty() || s.front() != '[') return false;
  size_t close = s.find(']');
  if (close == std::string_view::npos) return false;
  std::string_view inside = Trim(s.substr(1, close - 1));
  if (auto mono = ParseDouble(inside); mono && *mono >= 0 && std::isfinite(*mono)) {
    p.seconds = *mono;
  } else if (auto wall = CtimeStamp(inside)) {
    p.wall = *wall;
    p.stamp = std::string(inside);
  } else {
    return false;
  }
  s = Trim(s.substr(close + 1));
  return true;
}

// "6,1234,5678901,-;text" (/dev/kmsg).
bool KmsgRecord(std::string_view line, LinePrefix& p) {
  size_t semi = line.find(';');
  if (semi == std::string_view::npos) return false;
  auto head = Split(line.substr(0, semi), ',');
  if (head.size() < 3) return false;
  auto prio = ParseUint(head[0]);
  auto usec = ParseUint(head[2]);
  if (!prio || !ParseUint(head[1]) || !usec) return false;
  p.priority = static_cast<int>(*prio & 7);
  p.seconds = static_cast<double>(*usec) / 1e6;
  p.text = std::string(line.substr(semi + 1));
  return true;
}

std::string JsonText(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  std::string out;
  if (v.is_array()) {  // journald writes a message with unprintable bytes as an array of bytes
    for (const auto& b : v) {
      if (b.is_number_unsigned() && b.get<uint64_t>() < 256) out += static_cast<char>(b.get<int>());
    }
  }
  return out;
}

// One record of journalctl -o json.
bool JournalJson(std::string_view line, LinePrefix& p) {
  if (line.empty() || line.front() != '{') return false;
  auto j = ParseJsonDocument(line, "journal record");
  if (!j.ok() || !j->is_object()) return false;
  auto message = j->find("MESSAGE");
  if (message == j->end() || !(message->is_string() || message->is_array())) return false;
  p.text = JsonText(*message);
  auto number = [&](const char* key) -> std::optional<uint64_t> {
    auto it = j->find(key);
    if (it == j->end() || !it->is_string()) return std::nullopt;
    return ParseUint(it->get<std::string>());
  };
  if (auto usec = number("__REALTIME_TIMESTAMP")) p.wall = static_cast<double>(*usec) / 1e6;
  if (auto usec = number("__MONOTONIC_TIMESTAMP")) p.seconds = static_cast<double>(*usec) / 1e6;
  if (auto prio = number("PRIORITY")) p.priority = static_cast<int>(*prio & 7);
  if (auto it = j->find("_BOOT_ID"); it != j->end() && it->is_string()) p.boot_id = *it;
  return true;
}

// "kern  :warn  : " (dmesg -x).
void DropFacilityLevel(std::string_view& s) {
  size_t c1 = s.find(':');
  if (c1 == std::string_view::npos || c1 > 8) return;
  size_t c2 = s.find(':', c1 + 1);
  if (c2 == std::string_view::npos || c2 > c1 + 8 || c2 + 1 >= s.size() || s[c2 + 1] != ' ') return;
  for (size_t i = 0; i < c2; ++i) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || c == ' ' || c == ':')) return;
  }
  s = s.substr(c2 + 2);
}

}  // namespace

std::optional<double> CivilSeconds(int year, int month, int day, int hour, int minute,
                                   double second) {
  if (year < 1900 || year > 9999 || month < 1 || month > 12 || day < 1 || day > 31)
    return std::nullopt;
  // Days from 1970-01-01 in the proleptic Gregorian calendar (March-based year).
  int64_t y = year - (month <= 2 ? 1 : 0);
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t mp = (month + 9) % 12;
  int64_t doy = (153 * mp + 2) / 5 + day - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  int64_t days = era * 146097 + doe - 719468;
  return static_cast<double>(days) * 86400.0 + hour * 3600.0 + minute * 60.0 + second;
}

Marker JournalMarker(std::string_view line) {
  line = Trim(line);
  if (!StartsWith(line, "-- ") || !EndsWith(line, " --")) return Marker::kNone;
  if (StartsWith(line, "-- Boot ") || line == "-- Reboot --") return Marker::kBoot;
  return Marker::kIgnore;  // "-- Logs begin at ...", "-- Journal begins at ...", "-- No entries --"
}

LinePrefix ParseLinePrefix(std::string_view line) {
  LinePrefix p;
  if (KmsgRecord(line, p) || JournalJson(line, p)) return p;
  std::string_view s = line;
  if (s.size() > 3 && s[0] == '<') {  // dmesg -r, syslog "<6>"
    size_t close = s.find('>');
    if (close != std::string_view::npos && close <= 4) {
      if (auto prio = ParseUint(s.substr(1, close - 1))) {
        p.priority = static_cast<int>(*prio & 7);
        s = s.substr(close + 1);
      }
    }
  }
  DropFacilityLevel(s);
  size_t used = 0;
  if (auto wall = IsoStamp(s, &used)) {
    p.wall = *wall;
    p.stamp = std::string(s.substr(0, used));
    s = Trim(s.substr(used));
    if (auto after = AfterHostAndIdent(s)) s = *after;
  } else if (auto syslog = SyslogStamp(s, &used)) {
    if (auto after = AfterHostAndIdent(s.substr(used))) {
      p.wall = *syslog;
      p.stamp = std::string(Trim(s.substr(0, used)));
      s = *after;
    }
  }
  BracketStamp(s, p);
  p.text = std::string(s);
  return p;
}

}  // namespace ys::host::klog
