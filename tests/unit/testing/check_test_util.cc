#include "testing/check_test_util.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "checks/runner.h"

namespace ys::testing {

namespace fs = std::filesystem;

std::string FixturePath(std::string_view name) {
  return std::string(YS_FIXTURES_DIR) + "/hosts/" + std::string(name);
}

CheckResult RunOnHost(std::string_view id, const host::Host& host,
                      const checks::SiteExpectations& expect) {
  checks::CheckContext ctx(host, expect);
  return checks::RunCheck(ctx, id);
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

bool HasFinding(const CheckResult& r, std::string_view code) { return FindFinding(r, code) != nullptr; }

std::string Describe(const CheckResult& r) {
  std::string s = std::string(r.unit_id) + ": " + OutcomeName(r.outcome) + " (" + r.summary + ")";
  for (const auto& f : r.findings) {
    s += "\n  " + std::string(SeverityName(f.severity)) + " " + f.code + " " + f.entity + ": " +
         f.message;
  }
  return s;
}

TempHost::TempHost(std::string_view copy_of_fixture) {
  std::string tmpl = (fs::temp_directory_path() / "ys-host-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  root_ = tmpl;
  if (!copy_of_fixture.empty()) {
    fs::copy(FixturePath(copy_of_fixture), root_,
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
}

TempHost::~TempHost() {
  std::error_code ec;
  fs::remove_all(root_, ec);
}

void TempHost::Write(std::string_view path, std::string_view content) {
  fs::path full = fs::path(root_) / std::string(path.substr(path.front() == '/' ? 1 : 0));
  fs::create_directories(full.parent_path());
  std::error_code ec;
  if (fs::is_symlink(full)) fs::remove(full, ec);
  std::ofstream out(full, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
}

void TempHost::Remove(std::string_view path) {
  fs::path full = fs::path(root_) / std::string(path.substr(path.front() == '/' ? 1 : 0));
  fs::remove_all(full);
}

void TempHost::Symlink(std::string_view path, std::string_view target) {
  fs::path full = fs::path(root_) / std::string(path.substr(path.front() == '/' ? 1 : 0));
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
