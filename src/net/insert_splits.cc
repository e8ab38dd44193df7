#include "net/insert_splits.h"

#include <map>
#include <string>
#include <utility>

namespace dtrain {
namespace {

std::string SplitLayerName(const std::string& layer, const std::string& blob, int top_index) {
  return blob + "_" + layer + "_" + std::to_string(top_index) + "_split";
}

std::string SplitBlobName(const std::string& layer, const std::string& blob, int top_index, int k) {
  return SplitLayerName(layer, blob, top_index) + "_" + std::to_string(k);
}

void AddSplitLayer(const std::string& layer_name, const std::string& blob_name, int top_index,
                   int split_count, float loss_weight, NetParameter* out) {
  LayerParameter* split = out->add_layer();
  split->set_name(SplitLayerName(layer_name, blob_name, top_index));
  split->set_type("Split");
  split->add_bottom(blob_name);
  for (int k = 0; k < split_count; ++k) {
    split->add_top(SplitBlobName(layer_name, blob_name, top_index, k));
    if (loss_weight != 0.f) split->add_loss_weight(k == 0 ? loss_weight : 0.f);
  }
}

}  // namespace

NetParameter InsertSplits(const NetParameter& param) {
  using Producer = std::pair<int, int>;  // (layer index, top index)
  std::map<std::string, Producer> last_producer;
  std::map<Producer, int> consumer_count;
  std::map<std::pair<int, int>, Producer> bottom_source;  // (layer, bottom) -> producer
  std::map<Producer, float> top_loss_weight;

  for (int i = 0; i < param.layer_size(); ++i) {
    const LayerParameter& layer = param.layer(i);
    for (int j = 0; j < layer.bottom_size(); ++j) {
      auto it = last_producer.find(layer.bottom(j));
      if (it == last_producer.end()) continue;  // the net reports unknown bottoms
      bottom_source[{i, j}] = it->second;
      ++consumer_count[it->second];
    }
    for (int j = 0; j < layer.top_size(); ++j) {
      last_producer[layer.top(j)] = {i, j};
      if (j < layer.loss_weight_size() && layer.loss_weight(j) != 0.f) {
        top_loss_weight[{i, j}] = layer.loss_weight(j);
      }
    }
  }

  NetParameter out(param);
  out.clear_layer();
  std::map<Producer, int> next_split_index;
  for (int i = 0; i < param.layer_size(); ++i) {
    LayerParameter* layer = out.add_layer();
    *layer = param.layer(i);
    for (int j = 0; j < layer->bottom_size(); ++j) {
      auto src = bottom_source.find({i, j});
      if (src == bottom_source.end()) continue;
      const Producer p = src->second;
      const int uses = consumer_count[p] + (top_loss_weight.count(p) ? 1 : 0);
      if (uses <= 1) continue;
      const LayerParameter& producer = param.layer(p.first);
      layer->set_bottom(j, SplitBlobName(producer.name(), producer.top(p.second), p.second,
                                         next_split_index[p]++));
    }
    for (int j = 0; j < layer->top_size(); ++j) {
      const Producer p{i, j};
      const float w = top_loss_weight.count(p) ? top_loss_weight[p] : 0.f;
      const int uses = consumer_count[p] + (w != 0.f ? 1 : 0);
      if (uses <= 1) continue;
      // The loss moves to the split's first top; consumers take the others.
      if (w != 0.f) {
        layer->set_loss_weight(j, 0.f);
        next_split_index[p] = 1;
      }
      AddSplitLayer(layer->name(), layer->top(j), j, uses, w, &out);
    }
  }
  return out;
}

}  // namespace dtrain
