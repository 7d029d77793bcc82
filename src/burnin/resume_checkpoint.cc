#include "burnin/resume_checkpoint.h"

#include <cstring>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.h"
#include "core/json_document.h"
#include "core/text.h"

namespace ys::burnin {

Status SaveCheckpoint(const std::string& dir, const Checkpoint& c) {
  nlohmann::json j = {{"kind", "yardstick-burnin-checkpoint"},
                      {"version", 1},
                      {"saved_at", c.saved_at},
                      {"boot_id", c.boot_id},
                      {"clean_stop", c.clean_stop},
                      {"finished", c.finished},
                      {"settings", *c.settings},
                      {"analyser", *c.analyser}};
  return WriteFileAtomic(dir + "/" + kCheckpointFile,
                         j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                         {.durable = true});
}

Result<std::optional<Checkpoint>> LoadCheckpoint(const std::string& dir) {
  std::string path = dir + "/" + kCheckpointFile;
  auto text = ReadDocumentFile(path, DocumentKind::kState);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) return std::optional<Checkpoint>();
    return text.status();
  }
  auto parsed = ParseJsonDocument(*text, path);
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json& j = *parsed;
  auto bad = [&](const std::string& field, const char* what) {
    return Status::Invalid(path + ": " + field + ": expected " + what);
  };
  auto kind = j.is_object() ? j.find("kind") : j.end();
  if (kind == j.end() || *kind != "yardstick-burnin-checkpoint") {
    return bad("kind", "\"yardstick-burnin-checkpoint\"");
  }
  if (!j.contains("version") || j["version"] != 1) return bad("version", "1");
  Checkpoint c;
  for (const char* key : {"saved_at", "boot_id", "clean_stop"}) {
    if (!j.contains(key) || !j[key].is_string()) return bad(key, "a string");
  }
  c.saved_at = j["saved_at"];
  c.boot_id = j["boot_id"];
  c.clean_stop = j["clean_stop"];
  if (!j.contains("finished") || !j["finished"].is_boolean())
    return bad("finished", "true or false");
  c.finished = j["finished"];
  if (!j.contains("settings") || !j["settings"].is_object()) return bad("settings", "an object");
  if (!j.contains("analyser") || !j["analyser"].is_object()) return bad("analyser", "an object");
  c.settings = j["settings"];
  c.analyser = j["analyser"];
  return std::optional<Checkpoint>(std::move(c));
}

void WriteHeartbeat(const std::string& dir, const Heartbeat& h) {
  std::string path = dir + "/" + kHeartbeatFile;
  std::ostringstream out;
  out << h.elapsed_s << " " << h.at << "\n";
  (void)WriteFileAtomic(path, out.str());
}

std::optional<Heartbeat> ReadHeartbeat(const std::string& dir) {
  auto text = ReadDocumentFile(dir + "/" + kHeartbeatFile, 4096, "a burn-in heartbeat file");
  if (!text.ok()) return std::nullopt;
  std::istringstream in(*text);
  std::string elapsed, at;
  if (!(in >> elapsed >> at)) return std::nullopt;
  auto e = ParseDouble(elapsed);
  if (!e || !SecondsBetween(at, at)) return std::nullopt;
  return Heartbeat{*e, at};
}

std::string BootId(const host::Host& host) {
  auto id = host.ReadFile("/proc/sys/kernel/random/boot_id");
  return id.ok() ? std::string(Trim(*id)) : std::string();
}

std::optional<double> SecondsBetween(const std::string& from, const std::string& to) {
  auto parse = [](const std::string& s) -> std::optional<time_t> {
    std::tm tm{};
    const char* end = ::strptime(s.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (!end || *end != '\0') return std::nullopt;
    return ::timegm(&tm);
  };
  auto a = parse(from), b = parse(to);
  if (!a || !b) return std::nullopt;
  return static_cast<double>(*b - *a);
}

}  // namespace ys::burnin
