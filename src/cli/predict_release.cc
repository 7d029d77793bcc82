#include "cli/predict_release.h"

#include "validate/published_table.h"

namespace ys::cli {

std::string ReleaseConstantsChoice::Header() const {
  std::string s = "release " + (choice.used.empty() ? choice.asked : choice.used);
  s += choice.used.empty() ? " (base constants)" : " (calibrated; --release TAG to choose)";
  if (!choice.note.empty()) s += "; " + choice.note;
  return s;
}

Result<ReleaseConstantsChoice> ChooseReleaseConstants(const std::string& data,
                                                      const std::string& release,
                                                      const std::string& chip,
                                                      const std::string& precision,
                                                      const validate::StepCalibration& cal) {
  if (validate::DtypeOfPrecision(precision).empty()) {
    return Status::Invalid("--dtype " + precision +
                           ": expected bf16, fp8, fp8_cs, fp8_ds, mxfp8 or nvfp4");
  }
  if (!release.empty() && validate::ReleaseNumbers(release).empty())
    return Status::Invalid("--release " + release + ": expected a release tag such as 26.04.01");
  auto file = validate::LoadReleaseCalibration(data);
  if (!file.ok()) return file.status();
  ReleaseConstantsChoice out;
  out.choice = validate::ChooseRelease(*file, release, chip);
  out.constants = cal.constants;
  const validate::ChipSystem* sys = cal.Chip(chip);
  if (out.choice.chip) {
    out.constants = validate::ApplyRelease(cal.constants, *out.choice.chip, precision,
                                           sys != nullptr && sys->family == "blackwell");
  }
  return out;
}

}  // namespace ys::cli
