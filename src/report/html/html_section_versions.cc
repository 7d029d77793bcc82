// Host, driver, library and tool versions, the nodes and ranks of a multi-node run, and the
// run's warnings: what a reader needs to judge whether the numbers above can be trusted.
#include <fmt/format.h>

#include <set>

#include "report/html/html_section.h"
#include "report/html/html_text.h"

namespace ys::report::html {
namespace {

std::string Row(std::string_view key, std::string_view value) {
  return "<tr><th>" + EscapeHtml(key) + "</th><td>" + EscapeHtml(value) + "</td></tr>\n";
}

}  // namespace

HtmlSection VersionsSection(const ReportInput& in) {
  HtmlSection s{.id = "versions", .title = "Host, versions and warnings"};
  std::string& b = s.body;
  if (in.run) {
    const RunDocument& d = *in.run;
    b += "<table class=\"kv\">\n";
    b += Row("host", d.host.hostname);
    b += Row("kernel", d.host.kernel + " (" + d.host.arch + ")");
    b += Row("CPU", fmt::format("{}, {} logical CPUs", d.host.cpu_model, d.host.logical_cpus));
    if (d.host.root != "/" && !d.host.root.empty()) b += Row("host root", d.host.root);
    b += Row("GPU driver", d.host.gpu_driver.empty() ? "unknown" : d.host.gpu_driver);
    if (!d.host.gpu_source.empty()) b += Row("GPU state from", d.host.gpu_source);
    // Libraries as the benchmarks recorded them (MPI, BLAS, NCCL, cuBLASLt), each once.
    std::set<std::string> libraries;
    for (const PlacedMeasurement& p : AllMeasurements(d)) {
      for (const char* k : {"library", "blas", "nccl", "cublaslt", "cuda"}) {
        if (std::string v = Param(*p.m, k); !v.empty()) libraries.insert(v);
      }
    }
    std::string libs;
    for (const std::string& l : libraries) libs += (libs.empty() ? "" : "; ") + l;
    b += Row("libraries", libs.empty() ? "none recorded" : libs);
    b += Row("tool", fmt::format("{} {} ({}, {})", d.tool.name, d.tool.version, d.tool.build_type,
                                 d.tool.compiler));
    b += Row("schema version", std::to_string(d.schema_version));
    b += "</table>\n";
    if (!d.nodes.empty()) {
      b += "<h3>Nodes</h3>\n<table><tr><th>node</th><th>ranks</th></tr>\n";
      for (const NodeReport& n : d.nodes) {
        std::string ranks;
        for (int r : n.ranks) ranks += (ranks.empty() ? "" : " ") + std::to_string(r);
        b += "<tr><td>" + EscapeHtml(n.hostname) + "</td><td>" + EscapeHtml(ranks) + "</td></tr>\n";
      }
      b += "</table>\n";
    }
    for (const RankStatus& r : d.ranks) {
      if (r.state == "ok") continue;
      b += "<p class=\"warning\">" +
           EscapeHtml(fmt::format("rank {} on {}: {} {}", r.rank, r.hostname, r.state, r.detail)) +
           "</p>\n";
    }
  }
  if (in.validation) {
    b += "<table class=\"kv\">\n";
    b += Row("validation suite",
             in.validation->chip + (in.validation->recipe_release.empty()
                                        ? ""
                                        : " (" + in.validation->recipe_release + ")"));
    b += Row("validated by", in.validation->tool.empty() ? "unknown" : in.validation->tool);
    b += "</table>\n";
  }
  b += "<h3>Warnings</h3>\n";
  if (!in.run || in.run->warnings.empty()) {
    b += EmptyNote("No warnings recorded.");
  } else {
    b += "<ul class=\"warnings\">\n";
    for (const std::string& w : in.run->warnings) b += "<li>" + EscapeHtml(w) + "</li>\n";
    b += "</ul>\n";
  }
  return s;
}

}  // namespace ys::report::html
