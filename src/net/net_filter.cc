#include "net/net_filter.h"

#include <algorithm>

namespace dtrain {

bool StateMeetsRule(const NetState& state, const NetStateRule& rule) {
  if (rule.has_phase() && rule.phase() != state.phase()) return false;
  if (rule.has_min_level() && state.level() < rule.min_level()) return false;
  if (rule.has_max_level() && state.level() > rule.max_level()) return false;
  auto has_stage = [&](const std::string& s) {
    return std::find(state.stage().begin(), state.stage().end(), s) != state.stage().end();
  };
  for (const std::string& s : rule.stage()) {
    if (!has_stage(s)) return false;
  }
  for (const std::string& s : rule.not_stage()) {
    if (has_stage(s)) return false;
  }
  return true;
}

bool StateKeepsLayer(const NetState& state, const LayerParameter& layer) {
  if (layer.include_size() > 0) {
    for (const NetStateRule& rule : layer.include()) {
      if (StateMeetsRule(state, rule)) return true;
    }
    return false;
  }
  for (const NetStateRule& rule : layer.exclude()) {
    if (StateMeetsRule(state, rule)) return false;
  }
  return true;
}

StatusOr<NetParameter> FilterNet(const NetParameter& param, const NetState& state) {
  NetParameter filtered(param);
  filtered.clear_layer();
  for (const LayerParameter& layer : param.layer()) {
    if (layer.include_size() > 0 && layer.exclude_size() > 0) {
      return InvalidArgument("layer '" + layer.name() +
                             "' specifies both include and exclude rules; use one of them");
    }
    if (StateKeepsLayer(state, layer)) *filtered.add_layer() = layer;
  }
  return filtered;
}

StatusOr<NetParameter> ConvertLegacyInputs(const NetParameter& param) {
  if (param.input_size() == 0) return param;
  const int n = param.input_size();
  if (param.input_shape_size() > 0 && param.input_shape_size() != n) {
    return InvalidArgument("net '" + param.name() + "': " + std::to_string(n) + " inputs but " +
                           std::to_string(param.input_shape_size()) + " input_shape entries");
  }
  if (param.input_shape_size() == 0 && param.input_dim_size() != 4 * n) {
    return InvalidArgument("net '" + param.name() + "': input_dim must give 4 values per input (" +
                           std::to_string(4 * n) + "), got " +
                           std::to_string(param.input_dim_size()));
  }
  NetParameter converted;
  converted.CopyFrom(param);
  converted.clear_input();
  converted.clear_input_shape();
  converted.clear_input_dim();
  converted.clear_layer();
  LayerParameter* input = converted.add_layer();
  input->set_name("input");
  input->set_type("Input");
  for (int i = 0; i < n; ++i) {
    input->add_top(param.input(i));
    BlobShape* shape = input->mutable_input_param()->add_shape();
    if (param.input_shape_size() > 0) {
      *shape = param.input_shape(i);
    } else {
      for (int d = 0; d < 4; ++d) shape->add_dim(static_cast<int64_t>(param.input_dim(4 * i + d)));
    }
  }
  for (const LayerParameter& layer : param.layer()) *converted.add_layer() = layer;
  return converted;
}

}  // namespace dtrain
