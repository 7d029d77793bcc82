#include "checks/gpu/internal/gpu_common.h"

#include <algorithm>
#include <cstdio>

#include "core/text.h"
#include "gpu/gpu_product.h"

namespace ys::checks {

std::string GpuEntity(const gpu::GpuDevice& d) {
  std::string e = "gpu" + std::to_string(d.index);
  if (d.index_is_dump_order && !d.pci_bus_id.empty()) e += " (" + d.pci_bus_id + ")";
  return e;
}

PolicyInForce ProductPolicy(const CheckContext& ctx, std::string_view param,
                            const gpu::GpuDevice& d) {
  const Policy declared = ctx.param<Policy>(param);
  if (ctx.param_set(param)) return {declared, true, "site"};
  const gpu::ProductClass c = gpu::IdentifyGpuProduct(d.name).product_class;
  if (c == gpu::ProductClass::kDataCentre) return {declared, false, "data centre GPU"};
  return {Policy::kAny, false,
          std::string(gpu::ProductClassName(c)) + " card (" + d.name + "): no expectation unless " +
              "the site sets " + std::string(param)};
}

Evidence GpuIdentity(const gpu::GpuDevice& d) {
  std::string e = GpuEntity(d);
  return {{e + ".name", d.name}, {e + ".pci_bus_id", d.pci_bus_id}, {e + ".uuid", d.uuid}};
}

std::optional<std::string> CanonicalBdf(std::string_view address) {
  auto parts = Split(Trim(address), ':');
  if (parts.size() != 3) return std::nullopt;
  std::string_view dev = parts[2], fn = "0";
  if (size_t dot = dev.find('.'); dot != std::string_view::npos) {
    fn = dev.substr(dot + 1);
    dev = dev.substr(0, dot);
  }
  // A hexadecimal number of 1..max_digits digits no larger than `limit`, else -1.
  auto hex = [](std::string_view s, size_t max_digits, uint64_t limit) -> int64_t {
    if (s.empty() || s.size() > max_digits) return -1;
    auto v = ParseHex(s);
    return v && *v <= limit ? static_cast<int64_t>(*v) : -1;
  };
  int64_t dom = hex(parts[0], 8, 0xffff), bus = hex(parts[1], 2, 0xff), slot = hex(dev, 2, 0x1f),
          func = hex(fn, 1, 7);
  if (dom < 0 || bus < 0 || slot < 0 || func < 0) return std::nullopt;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", static_cast<unsigned>(dom),
                static_cast<unsigned>(bus), static_cast<unsigned>(slot),
                static_cast<unsigned>(func));
  return std::string(buf);
}

void Unanswered::Record(const gpu::GpuDevice& d, std::string_view what, const std::string& why) {
  std::pair<std::string, std::string> key(std::string(what), why.empty() ? "no value" : why);
  auto& gpus = missing_[key];
  if (gpus.empty()) order_.push_back(key);
  std::string entity = GpuEntity(d);
  if (gpus.empty() || gpus.back() != entity) gpus.push_back(entity);
}

std::string Unanswered::First() const {
  // Each distinct reason once, with the first answer that had it.
  std::string out;
  std::vector<std::string> whys;
  for (const auto& [what, why] : order_) {
    if (std::find(whys.begin(), whys.end(), why) != whys.end()) continue;
    whys.push_back(why);
    if (whys.size() > 3) {
      out += "; ...";
      break;
    }
    out += (out.empty() ? "" : "; ") + what + ": " + why;
  }
  return out;
}

void Unanswered::NoteInto(CheckResult& r) const {
  for (const auto& key : order_) {
    std::string gpus;
    for (const auto& g : missing_.at(key)) gpus += (gpus.empty() ? "" : ", ") + g;
    r.Note("unavailable: " + key.first, gpus + ": " + key.second);
  }
}

CheckResult SkipNoneJudged(std::string_view subject, const Unanswered& un) {
  std::string why = un.First();
  return CheckResult::Skip(std::string(subject) + " unavailable on every GPU" +
                           (why.empty() ? std::string() : " (" + why + ")"));
}

CheckResult FinishGpuUnit(CheckResult r, int judged, std::string_view subject, const Unanswered& un,
                          std::string pass_summary) {
  if (judged == 0) {
    CheckResult skip = SkipNoneJudged(subject, un);
    un.NoteInto(skip);
    return skip;
  }
  un.NoteInto(r);
  if (r.findings.empty()) r.summary = std::move(pass_summary);
  return r;
}

bool RecordingOfAnotherMachine(const CheckContext& ctx, const gpu::GpuSnapshot& s) {
  return ctx.host().live() && StartsWith(s.source, "recorded: ");
}

}  // namespace ys::checks
