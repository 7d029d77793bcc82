// The cost of training at the measured throughput (`yardstick report --prices FILE`): the price
// model, then per workload (each proxy of the run, each measured workload of the validation) the
// measured and reference tokens/s/GPU, $ per million tokens, days and cost to train the token
// budget, and what the gap to the reference costs. The arithmetic is cost/throughput.h's, the
// same as `yardstick cost`'s. Left off the page without --prices.
#include <fmt/format.h>

#include <cmath>

#include "cost/throughput.h"
#include "report/html/html_section.h"
#include "report/html/html_text.h"

namespace ys::report::html {
namespace {

std::string Td(std::string_view text) { return "<td>" + EscapeHtml(text) + "</td>"; }
std::string Num(std::string_view text) { return "<td class=\"num\">" + EscapeHtml(text) + "</td>"; }

std::string Money(double v, const std::string& currency) {
  return fmt::format("{:.2f} {}", v, currency);
}

std::string PriceModelText(const CostRequest& c) {
  const cost::PriceModel& p = c.prices;
  const std::string& cur = p.currency;
  std::string t = fmt::format(
      "Price model {} ({}), from {}: blended {}/GPU-h = {:.0f}% on-demand at {:.2f} + {:.0f}% "
      "reserved at {:.2f} + {:.0f}% spot at {:.2f}; wall time billed rounded up to {} minute{}",
      p.name.empty() ? "(unnamed)" : p.name, p.source.empty() ? "no source given" : p.source,
      c.prices_path, Money(cost::BlendedPricePerGpuHour(p), cur), p.on_demand_share * 100,
      p.on_demand_per_gpu_hour, p.reserved_share * 100, p.reserved_per_gpu_hour, p.spot_share * 100,
      p.spot_per_gpu_hour, p.billing_increment_minutes,
      p.billing_increment_minutes == 1 ? "" : "s");
  if (p.storage_tb_held > 0) {
    t += fmt::format("; storage {} TB at {}/TB-month", FormatValue(p.storage_tb_held),
                     Money(p.storage_per_tb_month, cur));
  }
  if (p.network_tb_egress > 0) {
    t += fmt::format("; egress {} TB at {}/TB", FormatValue(p.network_tb_egress),
                     Money(p.network_per_tb_egress, cur));
  }
  return t + ".";
}

// "at 90.0% of reference a model costs 11.1% more: 12345.67 USD"
std::string GapText(const cost::GapCost& g, const std::string& currency) {
  bool dearer = g.extra_fraction >= 0;
  return fmt::format("at {:.1f}% of reference a model costs {:.1f}% {}: {} {}", g.score * 100,
                     std::abs(g.extra_fraction) * 100, dearer ? "more" : "less",
                     Money(std::abs(g.extra_cost), currency), dearer ? "more" : "less");
}

}  // namespace

std::optional<HtmlSection> CostSection(const ReportInput& in) {
  if (!in.cost) return std::nullopt;
  const CostRequest& req = *in.cost;
  const std::string& cur = req.prices.currency;
  HtmlSection s{.id = "cost", .title = "Cost"};
  s.body = "<p>" + EscapeHtml(PriceModelText(req)) + "</p>\n";
  s.body +=
      "<p>" +
      EscapeHtml(fmt::format("Token budget {} ({:.4g} tokens) on {}.", req.tokens_text, req.tokens,
                             req.gpus ? fmt::format("{} GPUs", *req.gpus)
                                      : fmt::format("each workload's own GPUs ({} where unknown)",
                                                    cost::kDefaultGpus))) +
      "</p>\n";

  std::vector<cost::WorkloadThroughput> found;
  if (in.run) found = cost::RunThroughputs(*in.run, in.source);
  if (in.validation) {
    for (cost::WorkloadThroughput& t : ValidationThroughputs(*in.validation, in.source)) {
      found.push_back(std::move(t));
    }
  }
  if (found.empty()) {
    s.body += EmptyNote(
        "No measured tokens/s/GPU to price: neither a proxy workload "
        "(proxy.<model>.tokens_per_s_per_gpu) nor a validated workload with tokens_per_s_per_gpu.");
    return s;
  }
  s.body +=
      "<div class=\"scroll\"><table id=\"cost-workloads\">\n<tr><th>workload</th><th>tokens/s/GPU "
      "measured</th><th>reference</th><th>" +
      EscapeHtml(cur) +
      " per million tokens</th><th>GPUs</th><th>days to train</th><th>cost to "
      "train</th><th>the gap to the reference</th></tr>\n";
  for (const cost::WorkloadThroughput& t : found) {
    auto c = cost::CostOfWorkload(req.prices, t, req.gpus, req.tokens);
    std::string what = t.source;
    if (c.ok() && !c->estimate_reasons.empty()) {
      std::string why;
      for (const std::string& r : c->estimate_reasons) why += (why.empty() ? "" : "; ") + r;
      what += " (estimate: " + why + ")";
    }
    std::string row = "<tr>" + Td(what) + Num(fmt::format("{:.1f}", t.tokens_per_s_per_gpu));
    if (!c.ok()) {
      s.body += row + "<td colspan=\"6\">" + EscapeHtml("not priced: " + c.status().message()) +
                "</td></tr>\n";
      continue;
    }
    row += Num(c->reference_tokens_per_s_per_gpu
                   ? fmt::format("{:.1f}", *c->reference_tokens_per_s_per_gpu)
                   : std::string("-"));
    row +=
        Num(fmt::format("{:.4f}", c->per_million_tokens)) + Num(std::to_string(c->training.gpus)) +
        Num(fmt::format("{:.2f}", c->training.wall_days)) + Num(Money(c->training.total_cost, cur));
    row += Td(c->gap ? GapText(*c->gap, cur)
                     : std::string("no reference throughput (") +
                           (t.score ? "score not > 0" : "no score: a proxy or unscored workload") +
                           ")");
    s.body += row + "</tr>\n";
  }
  s.body += "</table></div>\n";
  s.body += "<p class=\"caption\">" +
            EscapeHtml(
                "Per million tokens = blended price per GPU-hour ÷ (tokens/s/GPU × 3600) × 1e6. "
                "Cost to train = billed GPU-hours × blended price + storage + egress. The "
                "reference is measured ÷ score; at a score s the same work costs 1/s − 1 more.") +
            "</p>\n";
  return s;
}

}  // namespace ys::report::html
