#include "predict/model_library.h"

namespace ys::predict {

Result<ModelLibrary> ModelLibrary::Load(const std::string& data_dir) {
  ModelLibrary lib;
  auto models = predict::LoadModelSpecs(data_dir + "/models");
  if (!models.ok()) return models.status();
  for (auto& m : *models) {
    lib.models_.push_back(std::move(m));
    lib.by_name_[lib.models_.back().name] = &lib.models_.back();
  }
  auto chips = bench::LoadDeviceSpecs(data_dir + "/specs");
  if (!chips.ok()) return chips.status();
  for (auto& s : *chips) {
    lib.chips_.push_back(std::move(s));
    lib.by_chip_[lib.chips_.back().chip] = &lib.chips_.back();
  }
  return lib;
}

const predict::ModelSpec* ModelLibrary::Model(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

const bench::DeviceSpec* ModelLibrary::Chip(const std::string& chip) const {
  auto it = by_chip_.find(chip);
  return it == by_chip_.end() ? nullptr : it->second;
}

}  // namespace ys::predict
