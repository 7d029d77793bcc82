#include "cost/price_model.h"

#include <cmath>
#include <sstream>

#include "core/document_file.h"
#include "core/toml_reader.h"

namespace ys::cost {
namespace {

// A sub-table of the top level, optional; a key of another type is an error.
Result<const toml::table*> Table(TomlTableReader& top, const toml::table& root,
                                 const std::string& path, const char* key) {
  top.Consume(key);
  return TomlSubTable(root, path, key);
}

}  // namespace

Result<PriceModel> ParsePriceModel(std::string_view text, const std::string& path) {
  auto parsed = ParseToml(text, path);
  if (!parsed.ok()) return parsed.status();
  const toml::table& root = *parsed;
  PriceModel p;
  TomlTableReader top(root, path, "");
  YS_RETURN_IF_ERROR(top.String("name", &p.name, /*required=*/false));
  YS_RETURN_IF_ERROR(top.String("source", &p.source, /*required=*/false));
  YS_RETURN_IF_ERROR(top.String("currency", &p.currency, /*required=*/false));

  auto gpu = Table(top, root, path, "gpu_hour");
  if (!gpu.ok()) return gpu.status();
  if (*gpu == nullptr)
    return Status::Invalid(path + ": missing [gpu_hour] (on_demand, reserved, spot prices)");
  TomlTableReader g(**gpu, path, "[gpu_hour]");
  YS_RETURN_IF_ERROR(g.Double("on_demand", &p.on_demand_per_gpu_hour, 0, kMaxPricePerGpuHour));
  YS_RETURN_IF_ERROR(g.Double("reserved", &p.reserved_per_gpu_hour, 0, kMaxPricePerGpuHour));
  YS_RETURN_IF_ERROR(g.Double("spot", &p.spot_per_gpu_hour, 0, kMaxPricePerGpuHour));
  YS_RETURN_IF_ERROR(g.NoOtherKeys());

  auto shares = Table(top, root, path, "shares");
  if (!shares.ok()) return shares.status();
  if (*shares == nullptr)
    return Status::Invalid(path + ": missing [shares] (on_demand, reserved, spot; summing to 1)");
  TomlTableReader s(**shares, path, "[shares]");
  YS_RETURN_IF_ERROR(s.Double("on_demand", &p.on_demand_share, 0, 1));
  YS_RETURN_IF_ERROR(s.Double("reserved", &p.reserved_share, 0, 1));
  YS_RETURN_IF_ERROR(s.Double("spot", &p.spot_share, 0, 1));
  YS_RETURN_IF_ERROR(s.NoOtherKeys());
  double sum = p.on_demand_share + p.reserved_share + p.spot_share;
  if (std::fabs(sum - 1.0) > 1e-6) {
    std::ostringstream ss;
    ss << "on_demand + reserved + spot = " << sum << ", expected them to sum to 1";
    return s.Error("", ss.str());
  }

  auto billing = Table(top, root, path, "billing");
  if (!billing.ok()) return billing.status();
  if (*billing != nullptr) {
    TomlTableReader b(**billing, path, "[billing]");
    YS_RETURN_IF_ERROR(b.Int("increment_minutes", &p.billing_increment_minutes, 1, 60 * 24 * 31,
                             /*required=*/false));
    YS_RETURN_IF_ERROR(b.NoOtherKeys());
  }
  auto storage = Table(top, root, path, "storage");
  if (!storage.ok()) return storage.status();
  if (*storage != nullptr) {
    TomlTableReader st(**storage, path, "[storage]");
    YS_RETURN_IF_ERROR(st.Double("per_tb_month", &p.storage_per_tb_month, 0, kMaxPricePerTb));
    YS_RETURN_IF_ERROR(st.Double("tb_held", &p.storage_tb_held, 0, kMaxTerabytes));
    YS_RETURN_IF_ERROR(st.NoOtherKeys());
  }
  auto network = Table(top, root, path, "network");
  if (!network.ok()) return network.status();
  if (*network != nullptr) {
    TomlTableReader n(**network, path, "[network]");
    YS_RETURN_IF_ERROR(n.Double("per_tb_egress", &p.network_per_tb_egress, 0, kMaxPricePerTb));
    YS_RETURN_IF_ERROR(n.Double("tb_egress", &p.network_tb_egress, 0, kMaxTerabytes));
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
