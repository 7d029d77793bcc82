#include "cost/price_model.h"

#include <toml++/toml.h>

#include <cmath>
#include <set>
#include <sstream>

#include "core/document_file.h"
#include "core/range_check.h"

namespace ys::cost {
namespace {

std::string LineOf(const toml::node& n) {
  return n.source().begin.line > 0 ? " (line " + std::to_string(n.source().begin.line) + ")" : "";
}

// Reads the keys of one table, remembering which were read; the rest are unknown.
class Reader {
 public:
  Reader(const toml::table& t, std::string where) : t_(t), where_(std::move(where)) {}

  // A number from `lo` to `hi` (the bounds are in price_model.h).
  Status Number(const char* key, double* out, double lo, double hi) {
    used_.insert(key);
    const toml::node* n = t_.get(key);
    if (n == nullptr) return Status::Invalid(where_ + ": missing " + key);
    auto v = (n->is_floating_point() || n->is_integer()) ? n->value<double>() : std::nullopt;
    std::string at = where_ + "." + key + LineOf(*n);
    if (!v) return Status::Invalid(at + ": expected a number " + DescribeRange(lo, hi));
    YS_RETURN_IF_ERROR(CheckRange(*v, lo, hi, at));
    *out = *v;
    return Status::Ok();
  }
  Status WholeNumber(const char* key, int* out, int lo, int hi) {
    used_.insert(key);
    const toml::node* n = t_.get(key);
    if (n == nullptr) return Status::Ok();
    auto v = n->is_integer() ? n->value<int64_t>() : std::nullopt;
    if (!v)
      return Status::Invalid(where_ + "." + key + LineOf(*n) + ": expected a whole number from " +
                             std::to_string(lo) + " to " + std::to_string(hi));
    YS_RETURN_IF_ERROR(CheckIntRange(*v, lo, hi, where_ + "." + key + LineOf(*n)));
    *out = static_cast<int>(*v);
    return Status::Ok();
  }
  Status String(const char* key, std::string* out) {
    used_.insert(key);
    const toml::node* n = t_.get(key);
    if (n == nullptr) return Status::Ok();
    if (!n->is_string())
      return Status::Invalid(where_ + "." + key + LineOf(*n) + ": expected a string");
    *out = *n->value<std::string>();
    return Status::Ok();
  }
  // A sub-table, optional; a key of another type is an error.
  Result<const toml::table*> Table(const char* key) {
    used_.insert(key);
    const toml::node* n = t_.get(key);
    if (n == nullptr) return static_cast<const toml::table*>(nullptr);
    if (!n->is_table())
      return Status::Invalid(where_ + ": " + key + LineOf(*n) + ": expected a table [" + key + "]");
    return n->as_table();
  }
  Status NoOtherKeys() const {
    for (const auto& [k, v] : t_) {
      std::string key(k.str());
      if (!used_.count(key)) return Status::Invalid(where_ + ": unknown key " + key + LineOf(v));
    }
    return Status::Ok();
  }

 private:
  const toml::table& t_;
  std::string where_;
  std::set<std::string> used_;
};

}  // namespace

Result<PriceModel> ParsePriceModel(std::string_view text, const std::string& path) {
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    return Status::Invalid(path + ":" + std::to_string(e.source().begin.line) + ":" +
                           std::to_string(e.source().begin.column) + ": " +
                           std::string(e.description()));
  }
  PriceModel p;
  Reader top(root, path);
  YS_RETURN_IF_ERROR(top.String("name", &p.name));
  YS_RETURN_IF_ERROR(top.String("source", &p.source));
  YS_RETURN_IF_ERROR(top.String("currency", &p.currency));

  auto gpu = top.Table("gpu_hour");
  if (!gpu.ok()) return gpu.status();
  if (*gpu == nullptr)
    return Status::Invalid(path + ": missing [gpu_hour] (on_demand, reserved, spot prices)");
  Reader g(**gpu, path + ": [gpu_hour]");
  YS_RETURN_IF_ERROR(g.Number("on_demand", &p.on_demand_per_gpu_hour, 0, kMaxPricePerGpuHour));
  YS_RETURN_IF_ERROR(g.Number("reserved", &p.reserved_per_gpu_hour, 0, kMaxPricePerGpuHour));
  YS_RETURN_IF_ERROR(g.Number("spot", &p.spot_per_gpu_hour, 0, kMaxPricePerGpuHour));
  YS_RETURN_IF_ERROR(g.NoOtherKeys());

  auto shares = top.Table("shares");
  if (!shares.ok()) return shares.status();
  if (*shares == nullptr)
    return Status::Invalid(path + ": missing [shares] (on_demand, reserved, spot; summing to 1)");
  Reader s(**shares, path + ": [shares]");
  YS_RETURN_IF_ERROR(s.Number("on_demand", &p.on_demand_share, 0, 1));
  YS_RETURN_IF_ERROR(s.Number("reserved", &p.reserved_share, 0, 1));
  YS_RETURN_IF_ERROR(s.Number("spot", &p.spot_share, 0, 1));
  YS_RETURN_IF_ERROR(s.NoOtherKeys());
  double sum = p.on_demand_share + p.reserved_share + p.spot_share;
  if (std::fabs(sum - 1.0) > 1e-6) {
    std::ostringstream ss;
    ss << path << ": [shares]" << LineOf(**shares) << ": on_demand + reserved + spot = " << sum
       << ", expected them to sum to 1";
    return Status::Invalid(ss.str());
  }

  auto billing = top.Table("billing");
  if (!billing.ok()) return billing.status();
  if (*billing != nullptr) {
    Reader b(**billing, path + ": [billing]");
    YS_RETURN_IF_ERROR(
        b.WholeNumber("increment_minutes", &p.billing_increment_minutes, 1, 60 * 24 * 31));
    YS_RETURN_IF_ERROR(b.NoOtherKeys());
  }
  auto storage = top.Table("storage");
  if (!storage.ok()) return storage.status();
  if (*storage != nullptr) {
    Reader st(**storage, path + ": [storage]");
    YS_RETURN_IF_ERROR(st.Number("per_tb_month", &p.storage_per_tb_month, 0, kMaxPricePerTb));
    YS_RETURN_IF_ERROR(st.Number("tb_held", &p.storage_tb_held, 0, kMaxTerabytes));
    YS_RETURN_IF_ERROR(st.NoOtherKeys());
  }
  auto network = top.Table("network");
  if (!network.ok()) return network.status();
  if (*network != nullptr) {
    Reader n(**network, path + ": [network]");
    YS_RETURN_IF_ERROR(n.Number("per_tb_egress", &p.network_per_tb_egress, 0, kMaxPricePerTb));
    YS_RETURN_IF_ERROR(n.Number("tb_egress", &p.network_tb_egress, 0, kMaxTerabytes));
    YS_RETURN_IF_ERROR(n.NoOtherKeys());
  }
  YS_RETURN_IF_ERROR(top.NoOtherKeys());
  if (p.name.empty()) p.name = path;
  return p;
}

Result<PriceModel> LoadPriceModel(const std::string& path) {
  auto text = ReadDocumentFile(path, DocumentKind::kToml);
  if (!text.ok()) return text.status();
  return ParsePriceModel(*text, path);
}

}  // namespace ys::cost
