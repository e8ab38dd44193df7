#include "net/net.h"

#include <algorithm>
#include <set>

#include "core/logging.h"
#include "core/machine_memory.h"
#include "core/rng.h"
#include "layers/registry.h"
#include "net/diff_planner.h"
#include "net/insert_splits.h"
#include "net/intel_batch_norm.h"
#include "net/intel_fields.h"
#include "net/layer_type_check.h"
#include "net/net_filter.h"
#include "net/upgrade_net.h"
#include "proto/net.pb.h"

namespace dtrain {

namespace {

uint64_t NameHash(const std::string& name) {  // FNV-1a: stable across builds and platforms
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

StatusOr<std::unique_ptr<Net>> Net::Create(const NetParameter& param, const NetState& state,
                                           uint64_t seed, const std::string& forced_engine) {
  std::unique_ptr<Net> net(new Net());
  DT_RETURN_IF_ERROR(net->Init(param, state, seed, forced_engine));
  return net;
}

Status Net::Init(const NetParameter& given_param, const NetState& in_state, uint64_t seed,
                 const std::string& forced_engine) {
  // Files are upgraded (and the upgrade logged) when read (net/read_net.h); this catches nets
  // built in memory from old syntax.
  DT_ASSIGN_OR_RETURN(const NetParameter in_param, UpgradeNet(given_param));
  NetState state(in_param.state());
  state.MergeFrom(in_state);
  if (in_state.has_phase()) state.set_phase(in_state.phase());
  name_ = in_param.name();
  phase_ = state.phase();

  // Every phase's unknown layer types at once, before this phase's first one stops the build.
  DT_RETURN_IF_ERROR(CheckLayerTypes(in_param, ""));
  DT_RETURN_IF_ERROR(CheckIntelFields(in_param, ""));
  for (const std::string& note : IntelFieldNotes(in_param, phase_ == TRAIN)) {
    DT_LOG(INFO) << "net " << name_ << " (" << (phase_ == TRAIN ? "TRAIN" : "TEST")
                 << "): " << note;
  }
  DT_ASSIGN_OR_RETURN(NetParameter with_inputs, ConvertLegacyInputs(in_param));
  DT_ASSIGN_OR_RETURN(NetParameter filtered, FilterNet(with_inputs, state));
  DT_ASSIGN_OR_RETURN(IntelBatchNormPlan batch_norm, PlanIntelBatchNorm(InsertSplits(filtered)));
  if (const std::string line = batch_norm.Summary(); !line.empty()) {
    DT_LOG(INFO) << "net " << name_ << " (" << (phase_ == TRAIN ? "TRAIN" : "TEST")
                 << "): " << line;
  }
  merged_scales_ = batch_norm.merged_scale;
  const NetParameter& param = batch_norm.param;

  std::map<std::string, int> available_blobs;  // produced and not yet consumed
  for (int i = 0; i < param.layer_size(); ++i) {
    // A layer's random stream depends on its name, not its position, so that adding a layer
    // (or a split) elsewhere does not change how this one is initialised.
    const LayerParameter& layer = param.layer(i);
    DT_RETURN_IF_ERROR(AppendLayer(layer, i, DeriveSeed(seed, NameHash(layer.name())),
                                   ResolveEngineName(layer, in_param.engine(), forced_engine),
                                   &available_blobs));
  }
  for (const auto& entry : available_blobs) output_blob_indices_.push_back(entry.second);
  std::sort(output_blob_indices_.begin(), output_blob_indices_.end());
  DecideBackward(param.force_backward());
  for (size_t i = 0; i < layers_.size(); ++i) {
    for (size_t j = 0; j < bottom_id_vecs_[i].size(); ++j) {
      if (!bottom_need_backward_[i][j]) continue;
      const std::string where = "layer '" + layer_names_[i] + "' (" + layers_[i]->type() + ")";
      const std::string& blob = blob_names_[bottom_id_vecs_[i][j]];
      if (!layers_[i]->HasGradient()) {
        return InvalidArgument(where + " has no gradient (as in Caffe), but its bottom '" + blob +
                               "' needs one; set propagate_down: false for it");
      }
      if (!layers_[i]->BottomHasGradient(static_cast<int>(j))) {
        return InvalidArgument(where + " gives no gradient to its bottom " + std::to_string(j) +
                               " (as in Caffe), but bottom '" + blob +
                               "' needs one; set propagate_down: false for it");
      }
    }
  }
  if (param.fuse_layers()) DT_RETURN_IF_ERROR(FuseLayers());
  FindLaterOverwrites();
  if (param.keep_blob_diffs()) {
    diffs_first_written_by_.assign(layers_.size(), {});
  } else {
    ShareDiffBuffers();
  }
  const NetMemory memory = Memory();
  if (memory.total() > MachineMemoryBytes()) {
    return InvalidArgument(
        "net '" + name_ + "' (" + Phase_Name(phase_) + ") needs " +
        ByteSize(static_cast<double>(memory.total())) + " for its tensors (activations " +
        ByteSize(static_cast<double>(memory.activations)) + ", gradients " +
        ByteSize(static_cast<double>(memory.gradients)) + ", parameters " +
        ByteSize(static_cast<double>(memory.parameters)) + "), more than this machine's memory (" +
        ByteSize(static_cast<double>(MachineMemoryBytes())) + ")");
  }
  return Status::Ok();
}

NetMemory Net::Memory() const {
  // The largest count seen for each storage.
  std::map<const void*, int64_t> data, diff, params;
  auto note = [](std::map<const void*, int64_t>* storages, const void* storage, int64_t count) {
    int64_t& largest = (*storages)[storage];
    largest = std::max(largest, count);
  };
  for (size_t id = 0; id < blobs_.size(); ++id) {
    note(&data, blobs_[id]->data_storage(), blobs_[id]->count());
    if (blob_need_backward_[id] || blob_loss_weights_[id] != 0.f) {
      note(&diff, blobs_[id]->diff_storage(), blobs_[id]->count());
    }
  }
  for (const Tensor* param : learnable_params_) {
    note(&params, param->data_storage(), param->count());
    note(&params, param->diff_storage(), param->count());
  }
  auto bytes = [](const std::map<const void*, int64_t>& storages) {
    int64_t values = 0;
    for (const auto& entry : storages) values += entry.second;
    return values * static_cast<int64_t>(sizeof(float));
  };
  return NetMemory{bytes(data), bytes(diff), bytes(params)};
}

// Offers each layer the layers right after it that run in place on its only top, one by one while
// it accepts (Layer::Absorb: BatchNorm takes Scale and ReLU). An absorbing layer then runs
// backward whenever one it absorbed would have, and reshapes for its new work at once.
Status Net::FuseLayers() {
  for (size_t i = 0; i < layers_.size(); ++i) {
    if (layers_[i]->absorbed() || top_id_vecs_[i].size() != 1) continue;
    const std::vector<int> blob = top_id_vecs_[i];
    bool absorbed_any = false;
    for (size_t j = i + 1; j < layers_.size(); ++j) {
      if (bottom_id_vecs_[j] != blob || top_id_vecs_[j] != blob ||
          layers_[j]->loss_weight(0) != 0.f || !layers_[i]->Absorb(*layers_[j])) {
        break;
      }
      layers_[j]->set_absorbed();
      layer_need_backward_[i] = layer_need_backward_[i] || layer_need_backward_[j];
      absorbed_any = true;
      DT_LOG(INFO) << "Layer " << layer_names_[j] << " (" << layers_[j]->type() << ") runs inside "
                   << layer_names_[i] << " (" << layers_[i]->type() << ")";
    }
    if (absorbed_any) DT_RETURN_IF_ERROR(layers_[i]->Reshape(bottom_vecs_[i], top_vecs_[i]));
  }
  return Status::Ok();
}

// Tells each layer which of its bottoms a later layer overwrites in forward: one that runs in
// place (a top that is also its bottom) on a blob whose data storage the bottom shares (itself,
// or an alias made by Split, Flatten, Reshape, ...). An absorbed layer writes inside the layer
// right before it, which is still after every earlier layer.
void Net::FindLaterOverwrites() {
  std::vector<std::vector<const void*>> written(layers_.size());
  for (size_t j = 0; j < layers_.size(); ++j) {
    for (const Tensor* top : top_vecs_[j]) {
      const std::vector<Tensor*>& bottoms = bottom_vecs_[j];
      if (std::find(bottoms.begin(), bottoms.end(), top) != bottoms.end()) {
        written[j].push_back(top->data_storage());
      }
    }
  }
  for (size_t i = 0; i < layers_.size(); ++i) {
    std::vector<bool> overwritten;
    for (const Tensor* bottom : bottom_vecs_[i]) {
      bool later = false;
      for (size_t j = i + 1; j < layers_.size() && !later; ++j) {
        later = std::find(written[j].begin(), written[j].end(), bottom->data_storage()) !=
                written[j].end();
      }
      overwritten.push_back(later);
    }
    layers_[i]->set_bottoms_overwritten_later(std::move(overwritten));
  }
}

// Blobs whose diffs live at disjoint times in backward share buffers (net/diff_planner.h). A blob
// takes part only when its diff is surely written before it is read and not needed afterwards:
// no loss weight (that diff is primed once), written in backward by its last consumer, and not
// aliased with another blob's diff (Flatten, Reshape, ...). Output blobs and diffs nobody writes
// (read as zeros, e.g. a split branch into Accuracy) keep their own.
void Net::ShareDiffBuffers() {
  diffs_first_written_by_.assign(layers_.size(), {});
  const int num_blobs = static_cast<int>(blobs_.size());
  std::vector<int> producer(num_blobs, -1), last_consumer(num_blobs, -1);
  std::vector<bool> written(num_blobs, false);
  for (int i = 0; i < static_cast<int>(layers_.size()); ++i) {
    for (int id : top_id_vecs_[i]) {
      if (producer[id] < 0) producer[id] = i;
    }
    for (size_t k = 0; k < bottom_id_vecs_[i].size(); ++k) {
      const int id = bottom_id_vecs_[i][k];
      last_consumer[id] = i;
      written[id] = layer_need_backward_[i] && bottom_need_backward_[i][k];
    }
  }
  std::vector<std::optional<DiffLifetime>> lifetimes(num_blobs);
  for (int id = 0; id < num_blobs; ++id) {
    bool aliased = false;
    for (int other = 0; other < num_blobs && !aliased; ++other) {
      aliased = other != id && blobs_[id]->SharesDiffWith(*blobs_[other]);
    }
    if (producer[id] < 0 || last_consumer[id] < 0 || !written[id] || aliased ||
        blob_loss_weights_[id] != 0.f) {
      continue;
    }
    lifetimes[id] = DiffLifetime{producer[id], last_consumer[id], blobs_[id]->count()};
  }
  const DiffPlan plan = PlanDiffBuffers(lifetimes);
  std::vector<int> owner(plan.buffer_count.size(), -1);
  for (int id = 0; id < num_blobs; ++id) {
    const int buffer = plan.buffer_of_blob[id];
    if (buffer < 0) continue;
    // Its last consumer writes it first (unless it also reads it as its own top, in place).
    const int writer = last_consumer[id];
    const std::vector<int>& tops = top_id_vecs_[writer];
    if (std::find(tops.begin(), tops.end(), id) == tops.end()) {
      diffs_first_written_by_[writer].push_back(id);
    }
    if (owner[buffer] < 0) {
      owner[buffer] = id;
    } else {
      blobs_[id]->ShareDiffBuffer(*blobs_[owner[buffer]]);
    }
  }
}

Status Net::AppendLayer(const LayerParameter& lp, int layer_index, uint64_t seed,
                        const std::string& engine, std::map<std::string, int>* available_blobs) {
  LayerContext context;
  context.phase = phase_;
  context.seed = seed;
  context.engine = engine;
  context.scratch = scratch_.get();
  DT_ASSIGN_OR_RETURN(std::unique_ptr<Layer> layer, CreateLayer(lp, context));
  const std::string where = "layer '" + lp.name() + "' (" + lp.type() + ")";
  if (lp.propagate_down_size() > 0 && lp.propagate_down_size() != lp.bottom_size()) {
    return InvalidArgument(where + ": propagate_down must be given once per bottom");
  }

  TensorVec bottoms;
  std::vector<int> bottom_ids;
  std::vector<bool> bottom_need;
  for (int j = 0; j < lp.bottom_size(); ++j) {
    const std::string& blob_name = lp.bottom(j);
    auto it = std::find(blob_names_.begin(), blob_names_.end(), blob_name);
    if (it == blob_names_.end()) {
      return InvalidArgument(where + ": bottom '" + blob_name +
                             "' is not produced by any earlier layer");
    }
    // The last blob with this name (in-place layers reuse names).
    const int id = static_cast<int>(blob_names_.rend() - std::find(blob_names_.rbegin(),
                                                                   blob_names_.rend(), blob_name)) -
                   1;
    bottoms.push_back(blobs_[id].get());
    bottom_ids.push_back(id);
    bool need = blob_need_backward_[id];
    if (lp.propagate_down_size() > 0) need = need && lp.propagate_down(j);
    bottom_need.push_back(need);
    available_blobs->erase(blob_name);
  }

  TensorVec tops;
  std::vector<int> top_ids;
  int num_tops = lp.top_size();
  if (num_tops == 0 && layer->AutoTopBlobs()) {
    num_tops = std::max(layer->ExactNumTopBlobs(), layer->MinTopBlobs());
    if (num_tops <= 0) num_tops = 1;
  }
  for (int j = 0; j < num_tops; ++j) {
    const std::string top_name =
        j < lp.top_size() ? lp.top(j) : lp.name() + "_auto_top_" + std::to_string(j);
    const bool in_place = j < lp.bottom_size() && lp.bottom(j) == top_name;
    if (in_place) {
      tops.push_back(bottoms[j]);
      top_ids.push_back(bottom_ids[j]);
    } else {
      // Caffe refuses a top that an earlier layer produced too, unless it is written in place
      // (the bottom at the same position); taking the later one silently would train on
      // whichever layer happened to come last.
      if (std::find(blob_names_.begin(), blob_names_.end(), top_name) != blob_names_.end()) {
        return InvalidArgument(where + ": top '" + top_name + "' is produced by an earlier layer " +
                               "too (Caffe refuses a top produced by multiple sources); give it " +
                               "its own name, or write it in place as the bottom at the same " +
                               "position");
      }
      blobs_.push_back(std::make_shared<Tensor>());
      blob_names_.push_back(top_name);
      blob_need_backward_.push_back(false);
      blob_loss_weights_.push_back(0.f);
      tops.push_back(blobs_.back().get());
      top_ids.push_back(static_cast<int>(blobs_.size()) - 1);
    }
    (*available_blobs)[top_name] = top_ids.back();
  }

  Status setup = layer->Setup(bottoms, tops);
  if (!setup.ok()) {
    // Layer errors already name the layer; others (e.g. filler) get the name added.
    if (setup.message().find("'" + lp.name() + "'") == std::string::npos) {
      return setup.WithContext(where);
    }
    return setup;
  }
  for (size_t j = 0; j < tops.size(); ++j) {
    blob_loss_weights_[top_ids[j]] += layer->loss_weight(static_cast<int>(j));
    DT_LOG(INFO) << "Top shape: " << blob_names_[top_ids[j]] << " " << tops[j]->ShapeString();
    if (layer->loss_weight(static_cast<int>(j)) != 0.f) {
      DT_LOG(INFO) << "    with loss weight " << layer->loss_weight(static_cast<int>(j));
    }
  }

  layer_names_.push_back(lp.name());
  layers_.push_back(std::move(layer));
  bottom_vecs_.push_back(bottoms);
  top_vecs_.push_back(tops);
  bottom_id_vecs_.push_back(bottom_ids);
  top_id_vecs_.push_back(top_ids);
  bottom_need_backward_.push_back(bottom_need);
  DT_RETURN_IF_ERROR(AppendParams(layer_index));

  // Forward-looking need: a layer needs backward if a bottom or a parameter does.
  bool need = std::any_of(bottom_need.begin(), bottom_need.end(), [](bool b) { return b; });
  Layer& added = *layers_.back();
  for (size_t p = 0; p < added.blobs().size(); ++p) need = need || added.param_propagate_down(p);
  layer_need_backward_.push_back(need);
  for (int id : top_ids) blob_need_backward_[id] = blob_need_backward_[id] || need;
  return Status::Ok();
}

Status Net::AppendParams(int layer_index) {
  Layer& layer = *layers_[layer_index];
  const LayerParameter& lp = layer.layer_param();
  std::vector<int> ids;
  for (size_t p = 0; p < layer.blobs().size(); ++p) {
    const ParamSpec spec = p < static_cast<size_t>(lp.param_size()) ? lp.param(p) : ParamSpec();
    const bool statistic = layer.IsStatistic(static_cast<int>(p));  // never learned
    const float lr = statistic ? 0.f : spec.lr_mult();
    const float decay = statistic ? 0.f : spec.decay_mult();
    layer.set_param_propagate_down(static_cast<int>(p), lr != 0.f);
    const std::string display = lp.name() + "[" + std::to_string(p) + "]";
    if (spec.has_name() && !spec.name().empty()) {
      auto owner = shared_param_owner_.find(spec.name());
      if (owner != shared_param_owner_.end()) {
        Tensor* shared = learnable_params_[owner->second];
        const Tensor& mine = *layer.blobs()[p];
        const bool strict = spec.share_mode() == ParamSpec::STRICT;
        if ((strict && shared->shape() != mine.shape()) || shared->count() != mine.count()) {
          return InvalidArgument("layer '" + lp.name() + "': shared parameter '" + spec.name() +
                                 "' has shape " + mine.ShapeString() + " here but " +
                                 shared->ShapeString() + " in " +
                                 learnable_param_names_[owner->second]);
        }
        // Alias the owner's tensor so data is shared and diffs accumulate into one place.
        for (int i = 0; i < layer_index; ++i) {
          for (auto& blob : layers_[i]->blobs()) {
            if (blob.get() == shared) layer.blobs()[p] = blob;
          }
        }
        if (spec.has_lr_mult()) params_lr_[owner->second] = lr;
        if (spec.has_decay_mult()) params_weight_decay_[owner->second] = decay;
        ids.push_back(owner->second);
        continue;
      }
    }
    const int id = static_cast<int>(learnable_params_.size());
    learnable_params_.push_back(layer.blobs()[p].get());
    params_lr_.push_back(lr);
    params_weight_decay_.push_back(decay);
    learnable_param_names_.push_back(display);
    if (spec.has_name() && !spec.name().empty()) shared_param_owner_[spec.name()] = id;
    ids.push_back(id);
  }
  layer_learnable_param_ids_.push_back(ids);
  return Status::Ok();
}

void Net::DecideBackward(bool force_backward) {
  // Walk backward: a layer whose tops reach no loss, or whose consumers want no gradient, is
  // skipped (Caffe's rule).
  std::set<int> blobs_under_loss, blobs_skip_backward;
  for (int i = static_cast<int>(layers_.size()) - 1; i >= 0; --i) {
    bool contributes_loss = false;
    bool skip_propagate = true;
    for (size_t j = 0; j < top_id_vecs_[i].size(); ++j) {
      const int id = top_id_vecs_[i][j];
      if (layers_[i]->loss_weight(static_cast<int>(j)) != 0.f || blobs_under_loss.count(id)) {
        contributes_loss = true;
      }
      if (!blobs_skip_backward.count(id)) skip_propagate = false;
    }
    if (layer_need_backward_[i] && skip_propagate) {
      layer_need_backward_[i] = false;
      std::fill(bottom_need_backward_[i].begin(), bottom_need_backward_[i].end(), false);
    }
    if (!contributes_loss) layer_need_backward_[i] = false;
    for (size_t j = 0; j < bottom_id_vecs_[i].size(); ++j) {
      const int id = bottom_id_vecs_[i][j];
      if (contributes_loss) {
        blobs_under_loss.insert(id);
      } else {
        bottom_need_backward_[i][j] = false;
      }
      if (!bottom_need_backward_[i][j]) blobs_skip_backward.insert(id);
    }
  }
  if (force_backward) {
    for (size_t i = 0; i < layers_.size(); ++i) {
      layer_need_backward_[i] = true;
      for (size_t j = 0; j < bottom_need_backward_[i].size(); ++j) {
        bottom_need_backward_[i][j] =
            bottom_need_backward_[i][j] || layers_[i]->AllowForceBackward(static_cast<int>(j));
      }
    }
  }
  for (size_t i = 0; i < layers_.size(); ++i) {
    DT_LOG(INFO) << layer_names_[i]
                 << (layer_need_backward_[i] ? " needs backward computation."
                                             : " does not need backward computation.");
  }
}

StatusOr<float> Net::Forward() { return ForwardFromTo(0, static_cast<int>(layers_.size()) - 1); }

StatusOr<float> Net::ForwardFromTo(int start, int end) {
  float total = 0.f;
  for (int i = std::max(start, 0); i <= end && i < static_cast<int>(layers_.size()); ++i) {
    float loss = 0.f;
    Status s = layers_[i]->Forward(bottom_vecs_[i], top_vecs_[i], &loss);
    if (!s.ok()) {
      if (s.message().find("'" + layer_names_[i] + "'") == std::string::npos) {
        return s.WithContext("layer '" + layer_names_[i] + "' (" + layers_[i]->type() + ")");
      }
      return s;
    }
    total += loss;
  }
  return total;
}

void Net::Backward() {
  // A loss top's diff carries its loss weight into the loss layer's backward (Caffe's convention).
  for (size_t i = 0; i < layers_.size(); ++i) {
    for (size_t j = 0; j < top_vecs_[i].size(); ++j) {
      const float w = layers_[i]->loss_weight(static_cast<int>(j));
      if (w != 0.f) top_vecs_[i][j]->SetDiff(w);
    }
  }
  BackwardFromTo(static_cast<int>(layers_.size()) - 1, 0);
}

void Net::BackwardFromTo(int start, int end) {
  for (int i = std::min(start, static_cast<int>(layers_.size()) - 1); i >= std::max(end, 0); --i) {
    if (layer_need_backward_[i]) BackwardLayer(i);
    for (const BackwardHook& hook : backward_hooks_) hook(i);
  }
}

void Net::BackwardLayer(int i) {
  for (int id : diffs_first_written_by_[i]) blobs_[id]->DiscardDiff();
  layers_[i]->Backward(top_vecs_[i], bottom_need_backward_[i], bottom_vecs_[i]);
}

Status Net::TakeBackwardError() {
  Status first;
  for (const auto& layer : layers_) {
    Status failure = layer->TakeBackwardError();
    if (first.ok()) first = std::move(failure);
  }
  return first;
}

void Net::ClearParamDiffs() {
  for (Tensor* p : learnable_params_) p->SetDiff(0.f);
}

Tensor* Net::blob_by_name(const std::string& name) const {
  for (int i = static_cast<int>(blob_names_.size()) - 1; i >= 0; --i) {
    if (blob_names_[i] == name) return blobs_[i].get();
  }
  return nullptr;
}

Layer* Net::layer_by_name(const std::string& name) const {
  for (size_t i = 0; i < layers_.size(); ++i) {
    if (layer_names_[i] == name) return layers_[i].get();
  }
  return nullptr;
}

namespace {

Status CopyBlobs(Layer* target, const std::string& name,
                 const google::protobuf::RepeatedPtrField<BlobProto>& blobs) {
  if (static_cast<size_t>(blobs.size()) != target->blobs().size()) {
    // Intel Caffe's BatchNorm with a scale and shift of its own, in a net read as BVLC's.
    const bool intel_batch_norm = std::string(target->type()) == "BatchNorm" &&
                                  target->blobs().size() == 3 &&
                                  (blobs.size() == 4 || blobs.size() == 5);
    return InvalidArgument(
        "layer '" + name + "': the weights file has " + std::to_string(blobs.size()) +
        " parameter blob(s), the net expects " + std::to_string(target->blobs().size()) +
        (intel_batch_norm ? " (Intel Caffe's BatchNorm with a learned scale and shift; the net "
                            "names nothing of Intel Caffe's and is read as BVLC Caffe's: give it "
                            "engine: \"MKLDNN\" to read it as Intel Caffe's)"
                          : ""));
  }
  for (int j = 0; j < blobs.size(); ++j) {
    Status s = target->blobs()[j]->FromProto(blobs.Get(j), /*reshape=*/false);
    if (!s.ok()) {
      const bool shape = !target->blobs()[j]->ShapeEquals(blobs.Get(j));
      return Status(s.code(), "layer '" + name + "' parameter " + std::to_string(j) + ": " +
                                  s.message() +
                                  (shape ? " (rename the layer to learn it from scratch)" : ""));
    }
  }
  return Status::Ok();
}

// Blobs 0-2 to the BatchNorm, the rest (gamma, beta) to the Scale after it.
Status CopyMergedBatchNorm(Layer* target, const std::string& name, Layer* scale,
                           const std::string& scale_name,
                           const google::protobuf::RepeatedPtrField<BlobProto>& blobs) {
  const int rest = blobs.size() - 3;
  if (static_cast<size_t>(rest) != scale->blobs().size()) {
    return InvalidArgument("layer '" + name + "': the weights file has " +
                           std::to_string(blobs.size()) +
                           " parameter blob(s), Intel Caffe's layout of a BatchNorm with the "
                           "Scale it merged; the net expects 3 and the Scale '" +
                           scale_name + "' " + std::to_string(scale->blobs().size()) + " (" +
                           std::to_string(3 + scale->blobs().size()) + " in all)");
  }
  google::protobuf::RepeatedPtrField<BlobProto> own(blobs.begin(), blobs.begin() + 3);
  DT_RETURN_IF_ERROR(CopyBlobs(target, name, own));
  for (int j = 0; j < rest; ++j) {
    const Status s = scale->blobs()[j]->FromProto(blobs.Get(3 + j), /*reshape=*/false);
    if (!s.ok()) {
      return Status(s.code(), "layer '" + name + "' blob " + std::to_string(3 + j) + " (" +
                                  (j == 0 ? "gamma" : "beta") + ", into the Scale '" + scale_name +
                                  "' parameter " + std::to_string(j) + "): " + s.message());
    }
  }
  return Status::Ok();
}

}  // namespace

Status Net::CopyTrainedLayersFrom(const NetParameter& trained, WeightsMatch* match) {
  WeightsMatch local;
  if (!match) match = &local;
  auto copy = [&](const std::string& name, const auto& blobs) -> Status {
    Layer* target = layer_by_name(name);
    if (!target) {
      (blobs.empty() ? match->ignored_without_params : match->ignored_with_params).push_back(name);
      return Status::Ok();
    }
    if (blobs.empty()) return Status::Ok();
    if (IsMergedBatchNorm(*target, blobs.size())) {
      const std::string& scale_name = merged_scales_.at(name);
      DT_RETURN_IF_ERROR(
          CopyMergedBatchNorm(target, name, layer_by_name(scale_name), scale_name, blobs));
    } else {
      DT_RETURN_IF_ERROR(CopyBlobs(target, name, blobs));
    }
    match->copied.push_back(name);
    return Status::Ok();
  };
  for (const LayerParameter& source : trained.layer()) {
    DT_RETURN_IF_ERROR(copy(source.name(), source.blobs()));
  }
  // Old model-zoo files keep their weights in the V1 'layers' field.
  for (const V1LayerParameter& source : trained.layers()) {
    DT_RETURN_IF_ERROR(copy(source.name(), source.blobs()));
  }
  return Status::Ok();
}

// A .caffemodel written by Intel Caffe stores a BatchNorm and the Scale it merged
// (net/intel_batch_norm.h) as one BatchNorm of 4 or 5 blobs, without the Scale.
bool Net::IsMergedBatchNorm(const Layer& target, int source_blobs) const {
  return std::string(target.type()) == "BatchNorm" && target.blobs().size() == 3 &&
         source_blobs > 3 && merged_scales_.count(target.name()) > 0;
}

Status Net::ShareTrainedLayersWith(const Net& other) {
  for (size_t i = 0; i < layers_.size(); ++i) {
    Layer* source = other.layer_by_name(layer_names_[i]);
    if (!source) continue;
    auto& mine = layers_[i]->blobs();
    if (source->blobs().size() != mine.size()) {
      return InvalidArgument("layer '" + layer_names_[i] + "' has " + std::to_string(mine.size()) +
                             " parameter blobs in one net and " +
                             std::to_string(source->blobs().size()) + " in the other");
    }
    for (size_t j = 0; j < mine.size(); ++j) {
      if (mine[j]->shape() != source->blobs()[j]->shape()) {
        return InvalidArgument("layer '" + layer_names_[i] + "' parameter " + std::to_string(j) +
                               ": shape " + mine[j]->ShapeString() + " vs " +
                               source->blobs()[j]->ShapeString());
      }
      mine[j]->ShareData(*source->blobs()[j]);
    }
  }
  return Status::Ok();
}

void Net::ToProto(NetParameter* param, bool write_diff) const {
  param->Clear();
  param->set_name(name_);
  for (size_t i = 0; i < layers_.size(); ++i) {
    LayerParameter* lp = param->add_layer();
    *lp = layers_[i]->layer_param();
    lp->clear_blobs();
    for (const auto& blob : layers_[i]->blobs()) blob->ToProto(lp->add_blobs(), write_diff);
  }
}

}  // namespace dtrain
