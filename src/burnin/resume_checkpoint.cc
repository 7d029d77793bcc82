#include "burnin/resume_checkpoint.h"

#include <cstring>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.h"
#include "core/document_schemas.h"
#include "core/json_document.h"
#include "core/json_fields.h"
#include "core/json_fields_values.h"
#include "core/json_schema.h"
#include "core/text.h"

namespace ys::burnin {

namespace {

// The file's layout: kind and version fixed, the analyser's state and the run's settings kept as
// the objects their own readers take. Messages as "<file>: finished: expected true or false".
constexpr json_fields::Style kCheckpointStyle{
    .name_found_type = false, .key_separator = ": ", .absent_reads_as_null = true};

}  // namespace

template <typename V>
void Fields(V& v, Checkpoint& c) {
  v("kind", json_fields::Exactly<std::string>{"yardstick-burnin-checkpoint"});
  v("version", json_fields::Exactly<int>{1});
  v("saved_at", c.saved_at);
  v("boot_id", c.boot_id);
  v("clean_stop", c.clean_stop);
  v("finished", c.finished);
  v("settings", json_fields::AnyObject{c.settings});
  v("analyser", json_fields::AnyObject{c.analyser});
}

YS_DOCUMENT_SCHEMA("burnin_checkpoint", Checkpoint, "yardstick burnin checkpoint",
                   "What burnin --resume continues from: when it was saved, on which boot, "
                   "whether the run stopped cleanly or finished, its settings and the "
                   "analyser's state.");

Status SaveCheckpoint(const std::string& dir, const Checkpoint& c) {
  // Sorted keys (nlohmann::json), as checkpoints have always been written.
  const nlohmann::json j =
      json_fields::Write<Checkpoint, json_fields::BasicWriter<nlohmann::json>>(c);
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
  auto c = json_fields::Parse<Checkpoint>(*parsed, path, kCheckpointStyle);
  if (!c.ok()) return c.status();
  return std::optional<Checkpoint>(std::move(*c));
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
