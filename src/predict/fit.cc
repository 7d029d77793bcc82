#include "predict/fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ys::predict {
namespace {

constexpr int kIterations = 4000;
constexpr int kRestarts = 2;  // restart the simplex around the best point: escapes a collapse

struct Problem {
  const std::vector<FitRow>& rows;
  Constants base;
  std::vector<const ConstantInfo*> free;

  Constants At(const std::vector<double>& x) const {
    Constants c = base;
    for (size_t i = 0; i < free.size(); ++i) c.*(free[i]->field) = x[i];
    return c;
  }
  double Loss(const std::vector<double>& x) const {
    for (size_t i = 0; i < free.size(); ++i) {
      if (!(x[i] >= free[i]->lo && x[i] <= free[i]->hi))
        return std::numeric_limits<double>::infinity();
    }
    const Constants c = At(x);
    double sum = 0;
    for (const FitRow& r : rows) {
      auto p = r.predict(c);
      if (!p.ok() || !(*p > 0)) return std::numeric_limits<double>::infinity();
      const double e = std::log(*p / r.published_s);
      sum += e * e;
    }
    return sum / rows.size();
  }
};

// The first simplex of Problem: each constant stepped by a tenth of its start (5% of its range
// at zero), downwards where that would leave the range.
std::vector<double> StartSteps(const Problem& pb, const std::vector<double>& x0) {
  std::vector<double> steps(x0.size());
  for (size_t i = 0; i < x0.size(); ++i) {
    double step = x0[i] != 0 ? 0.1 * x0[i] : 0.05 * (pb.free[i]->hi - pb.free[i]->lo);
    steps[i] = x0[i] + step > pb.free[i]->hi ? -step : step;
  }
  return steps;
}

}  // namespace

std::vector<double> NelderMead(const std::function<double(const std::vector<double>&)>& loss,
                               std::vector<double> x0, const std::vector<double>& steps,
                               int iterations) {
  const size_t n = x0.size();
  std::vector<std::vector<double>> s(n + 1, x0);
  for (size_t i = 0; i < n; ++i) s[i + 1][i] = x0[i] + steps[i];
  std::vector<double> f(n + 1);
  for (size_t i = 0; i <= n; ++i) f[i] = loss(s[i]);
  auto point = [&](const std::vector<double>& c, const std::vector<double>& w, double t) {
    std::vector<double> x(n);
    for (size_t j = 0; j < n; ++j) x[j] = c[j] + t * (w[j] - c[j]);
    return x;
  };
  for (int it = 0; it < iterations; ++it) {
    std::vector<size_t> order(n + 1);
    for (size_t i = 0; i <= n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return f[a] < f[b]; });
    std::vector<std::vector<double>> s2;
    std::vector<double> f2;
    for (size_t i : order) {
      s2.push_back(s[i]);
      f2.push_back(f[i]);
    }
    s = std::move(s2);
    f = std::move(f2);
    std::vector<double> c(n, 0);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) c[j] += s[i][j] / n;
    auto xr = point(c, s[n], -1.0);
    const double fr = loss(xr);
    if (fr < f[0]) {
      auto xe = point(c, s[n], -2.0);
      const double fe = loss(xe);
      if (fe < fr) {
        s[n] = xe, f[n] = fe;
      } else {
        s[n] = xr, f[n] = fr;
      }
    } else if (fr < f[n - 1]) {
      s[n] = xr, f[n] = fr;
    } else {
      auto xc = point(c, s[n], 0.5);
      const double fc = loss(xc);
      if (fc < f[n]) {
        s[n] = xc, f[n] = fc;
      } else {
        for (size_t i = 1; i <= n; ++i) {
          s[i] = point(s[0], s[i], 0.5);
          f[i] = loss(s[i]);
        }
      }
    }
  }
  size_t best = std::min_element(f.begin(), f.end()) - f.begin();
  return s[best];
}

Result<Constants> FitConstants(const std::vector<FitRow>& rows, const Constants& start) {
  if (rows.empty()) return Status::Invalid("no published rows to fit on");
  Problem pb{rows, start, {}};
  std::vector<double> x;
  for (const ConstantInfo& info : ConstantTable()) {
    if (!info.fitted) continue;
    pb.free.push_back(&info);
    x.push_back(start.*(info.field));
  }
  if (!std::isfinite(pb.Loss(x))) {
    for (const FitRow& r : rows) {
      auto p = r.predict(start);
      if (!p.ok()) return Status::Invalid(r.label + ": " + p.status().message());
    }
    return Status::Invalid("the starting constants are outside their ranges");
  }
  auto loss = [&pb](const std::vector<double>& v) { return pb.Loss(v); };
  for (int i = 0; i < kRestarts; ++i) x = NelderMead(loss, x, StartSteps(pb, x), kIterations);
  return pb.At(x);
}

ErrorStats SummariseErrors(const std::vector<double>& errors) {
  ErrorStats s;
  s.rows = static_cast<int>(errors.size());
  if (errors.empty()) return s;
  std::vector<double> a;
  for (double e : errors) a.push_back(std::fabs(e));
  std::sort(a.begin(), a.end());
  const size_t n = a.size();
  s.median_abs = n % 2 == 1 ? a[n / 2] : 0.5 * (a[n / 2 - 1] + a[n / 2]);
  s.p90_abs = a[static_cast<size_t>(std::ceil(0.9 * n)) - 1];
  return s;
}

bool HeldOut(const std::string& workload_id) {
  uint32_t h = 0x811c9dc5u;
  for (unsigned char ch : workload_id) {
    h ^= ch;
    h *= 0x01000193u;
  }
  return h % 3 == 0;
}

}  // namespace ys::predict
