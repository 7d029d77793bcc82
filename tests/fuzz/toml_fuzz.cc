// Fuzz target: every TOML loader, by selector byte:
//   0 suites (validate/suite.cc ParseSuite)          4 site expectations
//   (checks/site_expectations.cc) 1 baselines/references (validate/reference.cc)   5 price models
//   (cost/price_model.cc) 2 model specs (predict/model_spec.cc)          6 cluster.toml
//   (slurm/cluster_config.cc) 3 device specs (bench/device_specs.cc)
#include "bench/device_specs.h"
#include "checks/site_expectations.h"
#include "cost/price_model.h"
#include "fuzz_target.h"
#include "fuzz_util.h"
#include "predict/model_spec.h"
#include "slurm/cluster_config.h"
#include "validate/reference.h"
#include "validate/suite.h"

YS_FUZZ_TARGET(toml) {
  std::string_view text = ys::fuzz::AsText(data, size);
  std::optional<int> which = ys::fuzz::TakeSelector(&text, 7);
  if (!which) return 0;
  const std::string path = "fuzz.toml";
  switch (*which) {
    case 0:
      (void)ys::validate::ParseSuite(text, path);
      break;
    case 1: {
      ys::validate::ReferenceSet refs;
      (void)refs.AddText(text, path);
      break;
    }
    case 2:
      (void)ys::predict::ParseModelSpec(text, path);
      break;
    case 3:
      (void)ys::bench::ParseDeviceSpec(text, path);
      break;
    case 4:
      (void)ys::checks::ParseSiteExpectations(text, path);
      break;
    case 5:
      (void)ys::cost::ParsePriceModel(text, path);
      break;
    case 6:
      (void)ys::slurm::ParseClusterConfig(text, path);
      break;
  }
  return 0;
}
