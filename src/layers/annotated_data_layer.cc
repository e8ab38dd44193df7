#include "layers/annotated_data_layer.h"

#include <algorithm>
#include <string>

#include "core/logging.h"
#include "data/data_server_client.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

// A BatchSampler message as detection/sampler.h's plain value.
detection::BatchSampler SamplerOf(const BatchSampler& p) {
  detection::BatchSampler s;
  s.use_original_image = p.use_original_image();
  s.min_scale = p.sampler().min_scale();
  s.max_scale = p.sampler().max_scale();
  s.min_aspect_ratio = p.sampler().min_aspect_ratio();
  s.max_aspect_ratio = p.sampler().max_aspect_ratio();
  const SampleConstraint& c = p.sample_constraint();
  detection::SampleConstraint& d = s.constraint;
  if (c.has_min_jaccard_overlap()) d.min_jaccard_overlap = c.min_jaccard_overlap();
  if (c.has_max_jaccard_overlap()) d.max_jaccard_overlap = c.max_jaccard_overlap();
  if (c.has_min_sample_coverage()) d.min_sample_coverage = c.min_sample_coverage();
  if (c.has_max_sample_coverage()) d.max_sample_coverage = c.max_sample_coverage();
  if (c.has_min_object_coverage()) d.min_object_coverage = c.min_object_coverage();
  if (c.has_max_object_coverage()) d.max_object_coverage = c.max_object_coverage();
  if (p.has_max_sample()) s.max_sample = p.max_sample();
  s.max_trials = p.max_trials();
  return s;
}

std::string ShapeString(const std::vector<int>& shape) {
  return std::to_string(shape[0]) + "x" + std::to_string(shape[1]) + "x" + std::to_string(shape[2]);
}

}  // namespace

AnnotatedDataLayer::AnnotatedDataLayer(const LayerParameter& p, const LayerContext& c)
    : PrefetchingDataLayer(p, c), seed_(c.seed) {}

AnnotatedDataLayer::~AnnotatedDataLayer() { StopPrefetching(); }

LayerInputs AnnotatedDataLayer::Inputs(const LayerParameter& p) {
  LayerInputs in;
  in.format = IsDataServerUri(p.data_param().source()) ? RecordsFormat::kDataServer
                                                       : RecordsFormat::kAnnotatedLmdb;
  in.records = p.data_param().source();
  return in;
}

void AnnotatedDataLayer::SetRecords(LayerParameter* p, const std::string& records) {
  p->mutable_data_param()->set_source(records);
}

Status AnnotatedDataLayer::CheckParameters() {
  const AnnotatedDataParameter& anno = param_.annotated_data_param();
  samplers_.clear();
  for (int i = 0; i < anno.batch_sampler_size(); ++i) {
    samplers_.push_back(SamplerOf(anno.batch_sampler(i)));
    const Status valid = detection::ValidateBatchSampler(samplers_.back());
    if (!valid.ok()) {
      return Error("annotated_data_param.batch_sampler[" + std::to_string(i) +
                   "]: " + valid.message());
    }
  }
  const TransformationParameter& transform = param_.transform_param();
  if (transform.has_resize_param() &&
      transform.resize_param().resize_mode() == ResizeParameter::FIT_SMALL_SIZE &&
      batch_size_ != 1) {
    return Error(
        "transform_param.resize_param.resize_mode FIT_SMALL_SIZE gives every image its own "
        "shape: data_param.batch_size must be 1 (it is " +
        std::to_string(batch_size_) + ")");
  }
  return Status::Ok();
}

Status AnnotatedDataLayer::SetUpSource(const TensorVec& top) {
  DT_ASSIGN_OR_RETURN(records_, OpenDataParamRecords(seed_));
  DT_RETURN_IF_ERROR(CheckParameters());

  const TransformationParameter& transform = param_.transform_param();
  if (transform.force_color() && transform.force_gray()) {
    return Error("transform_param: cannot specify both force_color and force_gray");
  }
  color_ = transform.force_color()  ? ImageColor::kColor
           : transform.force_gray() ? ImageColor::kGray
                                    : ImageColor::kNative;
  transformer_ = std::make_unique<AnnotatedTransformer>(transform, phase_);
  DT_RETURN_IF_ERROR(WithLayer(transformer_->Init()));

  // The tops' shapes, and whether labels are boxes, from the first record.
  DT_RETURN_IF_ERROR(WithLayer(records_->ReadAt(0)));
  DT_RETURN_IF_ERROR(WithLayer(
      ParseAnnotatedRecord(records_->value(), records_->key(), color_, &decoder_, &record_)
          .WithContext(records_->where())));
  const AnnotatedDataParameter& anno = param_.annotated_data_param();
  type_given_ = anno.has_anno_type();
  boxes_ = record_.has_type || type_given_;
  anno_type_ = type_given_ ? anno.anno_type() : record_.type;
  const Image8& image = record_.image;
  const std::vector<int> shape =
      transformer_->OutputShape(image.channels, image.height, image.width);
  top_shapes_ = {{batch_size_, shape[0], shape[1], shape[2]}};
  top_shapes_.push_back(boxes_ ? std::vector<int>{1, 1, 1, 8} : std::vector<int>{batch_size_});
  DT_LOG(INFO) << "output data size: " << batch_size_ << "," << shape[0] << "," << shape[1] << ","
               << shape[2];
  return Status::Ok();
}

Status AnnotatedDataLayer::ShardChanged(bool started) {
  if (started) offset_ = 0;  // starts over from the first record, as after Setup
  return Status::Ok();
}

Status AnnotatedDataLayer::ReadAugmented(int64_t position, Rng& rng) {
  DT_RETURN_IF_ERROR(records_->ReadAt(position));
  DT_RETURN_IF_ERROR(
      ParseAnnotatedRecord(records_->value(), records_->key(), color_, &decoder_, &record_)
          .WithContext(records_->where()));
  if (boxes_ && !type_given_ && (!record_.has_type || record_.type != anno_type_)) {
    return DataLoss(records_->where_record() +
                    (record_.has_type ? " states another AnnotationType than the first record"
                                      : " states no AnnotationType, but the first record does"));
  }
  if (transformer_->distorts()) {
    DT_RETURN_IF_ERROR(
        transformer_->Distort(rng, &record_.image).WithContext(records_->where_record()));
  }
  if (transformer_->expands()) transformer_->Expand(rng, &record_.image, &record_.boxes);
  if (!samplers_.empty()) {
    std::vector<detection::NormalizedBox> objects;
    objects.reserve(record_.boxes.size());
    for (const AnnotatedBox& box : record_.boxes) objects.push_back(box.box);
    const std::vector<detection::NormalizedBox> samples =
        detection::GenerateBatchSamples(objects, samplers_, rng);
    if (!samples.empty()) {
      const detection::NormalizedBox& crop =
          samples[rng.UniformInt(static_cast<uint32_t>(samples.size()))];
      transformer_->Crop(crop, &record_.image, &record_.boxes);
    }
  }
  return Status::Ok();
}

Status AnnotatedDataLayer::LoadBatch(Batch* batch) {
  rows_.clear();
  std::vector<int> first_shape;
  int64_t item_size = 0;
  for (int item = 0; item < batch_size_; ++item) {
    const int64_t position = NextPosition();
    // A record's draws depend only on its position: shards draw what one reader would.
    Rng rng(DeriveSeed(seed_, static_cast<uint64_t>(position) + 1));
    DT_RETURN_IF_ERROR(ReadAugmented(position, rng));
    const Image8& image = record_.image;
    const std::vector<int> shape =
        transformer_->OutputShape(image.channels, image.height, image.width);
    if (item == 0) {
      first_shape = shape;
      batch->data.Reshape({batch_size_, shape[0], shape[1], shape[2]});
      if (!boxes_) batch->label.Reshape({batch_size_});
      item_size = batch->data.count(1);
    } else if (shape != first_shape) {
      return DataLoss(records_->where_record() + " gives a " + ShapeString(shape) +
                      " image but this batch's first record gives " + ShapeString(first_shape) +
                      " (set transform_param.resize_param to give every image one size)");
    }
    DT_RETURN_IF_ERROR(
        transformer_
            ->Transform(image, rng, batch->data.mutable_data() + item * item_size, &record_.boxes)
            .WithContext(records_->where_record()));
    if (!boxes_) {
      batch->label.mutable_data()[item] = static_cast<float>(record_.label);
      continue;
    }
    for (const AnnotatedBox& box : record_.boxes) {
      const detection::NormalizedBox& b = box.box;
      rows_.insert(rows_.end(), {static_cast<float>(item), static_cast<float>(b.label),
                                 static_cast<float>(box.instance_id), b.xmin, b.ymin, b.xmax,
                                 b.ymax, b.difficult ? 1.f : 0.f});
    }
  }
  if (boxes_) {
    const int rows = static_cast<int>(rows_.size() / 8);
    batch->label.Reshape({1, 1, std::max(rows, 1), 8});
    float* label = batch->label.mutable_data();
    if (rows == 0) {
      std::fill(label, label + 8, -1.f);
    } else {
      std::copy(rows_.begin(), rows_.end(), label);
    }
  }
  batch->state = LoaderState();
  return Status::Ok();
}

}  // namespace dtrain
