#include "testing/check_test_util.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>

#include "checks/runner.h"
#include "checks/unit_aliases.h"

namespace ys::testing {

namespace fs = std::filesystem;

std::string FixturePath(std::string_view name) {
  return std::string(YS_FIXTURES_DIR) + "/hosts/" + std::string(name);
}

CheckResult RunOnHost(std::string_view id, const host::Host& host,
                      const checks::SiteExpectations& expect) {
  checks::CheckContext ctx(host, expect);
  return checks::RunCheckOrAlias(ctx, id);
}

CheckResult RunOnFixture(std::string_view id, std::string_view fixture,
                         const checks::SiteExpectations& expect) {
  auto host = host::Host::AtRoot(FixturePath(fixture));
  if (!host.ok()) throw std::runtime_error(host.status().ToString());
  return RunOnHost(id, *host, expect);
}

const Finding* FindFinding(const CheckResult& r, std::string_view code) {
  for (const auto& f : r.findings) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

bool HasFinding(const CheckResult& r, std::string_view code) {
  return FindFinding(r, code) != nullptr;
}

std::string Describe(const CheckResult& r) {
  std::string s = std::string(r.unit_id) + ": " + OutcomeName(r.outcome) + " (" + r.summary + ")";
  for (const auto& f : r.findings) {
    s += "\n  " + std::string(SeverityName(f.severity)) + " " + f.code + " " + f.entity + ": " +
         f.message;
  }
  return s;
}

namespace {

// Idle fixture copies by fixture name. Tests of one binary run one at a time, so a plain map
// suffices; the copies are removed when the process exits.
struct CopyPool {
  std::multimap<std::string, std::string> idle;
  ~CopyPool() {
    for (const auto& [fixture, root] : idle) {
      std::error_code ec;
      fs::remove_all(root, ec);
    }
  }
};
CopyPool& Pool() {
  static CopyPool pool;
  return pool;
}

std::string MakeTempDir() {
  std::string tmpl = (fs::temp_directory_path() / "ys-host-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

fs::path Under(const std::string& root, std::string_view path) {
  return fs::path(root) / std::string(path.substr(!path.empty() && path.front() == '/' ? 1 : 0));
}

}  // namespace

TempHost::TempHost(std::string_view copy_of_fixture) : fixture_(copy_of_fixture) {
  if (!fixture_.empty()) {
    auto it = Pool().idle.find(fixture_);
    if (it != Pool().idle.end()) {
      root_ = it->second;
      Pool().idle.erase(it);
      return;
    }
  }
  root_ = MakeTempDir();
  if (!fixture_.empty()) {
    fs::copy(FixturePath(fixture_), root_,
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
}

TempHost::~TempHost() {
  std::error_code ec;
  if (fixture_.empty()) {
    fs::remove_all(root_, ec);
    return;
  }
  Reset();
  Pool().idle.emplace(fixture_, root_);
}

void TempHost::Touch(std::string_view path) {
  // Remember the topmost ancestor that does not exist yet (or the path itself), so that Reset()
  // leaves no new empty directory behind.
  std::string p(path), top = p;
  for (fs::path a = fs::path(p).parent_path(); a != "/" && !a.empty(); a = a.parent_path()) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(Under(root_, a.string()), ec))) break;
    top = a.string();
  }
  touched_.insert(top);
}

void TempHost::Reset() {
  for (const auto& p : touched_) {
    fs::path dst = Under(root_, p);
    std::error_code ec;
    fs::remove_all(dst, ec);
    if (fixture_.empty()) continue;
    fs::path src = Under(FixturePath(fixture_), p);
    if (fs::exists(fs::symlink_status(src, ec))) {
      fs::create_directories(dst.parent_path());
      fs::copy(src, dst, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    }
  }
  touched_.clear();
}

void TempHost::Write(std::string_view path, std::string_view content) {
  Touch(path);
  fs::path full = Under(root_, path);
  fs::create_directories(full.parent_path());
  std::error_code ec;
  if (fs::is_symlink(full)) fs::remove(full, ec);
  std::ofstream out(full, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
}

void TempHost::Remove(std::string_view path) {
  Touch(path);
  fs::remove_all(Under(root_, path));
}

void TempHost::Symlink(std::string_view path, std::string_view target) {
  Touch(path);
  fs::path full = Under(root_, path);
  fs::create_directories(full.parent_path());
  std::error_code ec;
  fs::remove(full, ec);
  fs::create_symlink(std::string(target), full);
}

host::Host TempHost::Host() const {
  auto h = host::Host::AtRoot(root_);
  if (!h.ok()) throw std::runtime_error(h.status().ToString());
  return *h;
}

CheckResult TempHost::Run(std::string_view id, const checks::SiteExpectations& expect) const {
  return RunOnHost(id, Host(), expect);
}

CheckResult RunWithFileReplaced(TempHost& t, std::string_view id, std::string_view path,
                                std::string_view content, const checks::SiteExpectations& expect) {
  fs::path full = fs::path(t.root()) / std::string(path.substr(path.front() == '/' ? 1 : 0));
  std::ifstream in(full, std::ios::binary);
  bool existed = in.good() && fs::is_regular_file(full);
  std::string old;
  if (existed) old.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  t.Write(path, content);
  CheckResult r = t.Run(id, expect);
  if (existed) {
    t.Write(path, old);
  } else {
    t.Remove(path);
  }
  return r;
}

}  // namespace ys::testing
