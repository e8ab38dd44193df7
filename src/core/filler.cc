#include "core/filler.h"

#include <cmath>

#include "core/gabor_filler.h"
#include "proto/filler.pb.h"

namespace dtrain {
namespace {

float FanScale(const FillerParameter& param, const Tensor& t) {
  const float fan_in = static_cast<float>(t.count() / std::max(1, t.shape(0)));
  const float fan_out = t.num_axes() > 1 ? static_cast<float>(t.count() / std::max(1, t.shape(1)))
                                         : static_cast<float>(t.count());
  switch (param.variance_norm()) {
    case FillerParameter::FAN_OUT:
      return fan_out;
    case FillerParameter::AVERAGE:
      return (fan_in + fan_out) / 2.f;
    default:
      return fan_in;
  }
}

}  // namespace

Status ValidateFiller(const FillerParameter& param) {
  const std::string& t = param.type();
  if (t == "constant" || t == "uniform" || t == "gaussian" || t == "xavier" || t == "msra" ||
      t == "bilinear" || t == "positive_unitball" || t == "gabor") {
    return Status::Ok();
  }
  return Unsupported("unknown filler type \"" + t +
                     "\"; supported: constant, uniform, gaussian, xavier, msra, bilinear, "
                     "positive_unitball, gabor");
}

Status Fill(const FillerParameter& param, Rng& rng, Tensor* tensor) {
  float* x = tensor->mutable_data();
  const int64_t n = tensor->count();
  const std::string& t = param.type();
  if (t == "constant") {
    for (int64_t i = 0; i < n; ++i) x[i] = param.value();
  } else if (t == "uniform") {
    for (int64_t i = 0; i < n; ++i) x[i] = rng.Uniform(param.min(), param.max());
  } else if (t == "gaussian") {
    for (int64_t i = 0; i < n; ++i) x[i] = rng.Gaussian(param.mean(), param.std());
    if (param.sparse() >= 0 && tensor->num_axes() >= 2) {
      // Each output keeps on average `sparse` non-zero inputs.
      const int num_outputs = tensor->shape(0);
      const float keep = static_cast<float>(param.sparse()) * num_outputs / static_cast<float>(n);
      for (int64_t i = 0; i < n; ++i) {
        if (!rng.Bernoulli(keep)) x[i] = 0.f;
      }
    }
  } else if (t == "xavier") {
    const float scale = std::sqrt(3.f / FanScale(param, *tensor));
    for (int64_t i = 0; i < n; ++i) x[i] = rng.Uniform(-scale, scale);
  } else if (t == "msra") {
    // Intel Caffe's `scale` multiplies the deviation (1, BVLC's, by default).
    const float stddev = param.scale() * std::sqrt(2.f / FanScale(param, *tensor));
    for (int64_t i = 0; i < n; ++i) x[i] = rng.Gaussian(0.f, stddev);
  } else if (t == "bilinear") {
    // Upsampling kernel for Deconvolution: each spatial filter is a bilinear interpolation.
    const int w = tensor->shape(-1);
    const int h = tensor->shape(-2);
    const float f = std::ceil(w / 2.f);
    const float c = (2 * f - 1 - static_cast<int>(f) % 2) / (2.f * f);
    for (int64_t i = 0; i < n; ++i) {
      const float xi = static_cast<float>(i % w);
      const float yi = static_cast<float>((i / w) % h);
      x[i] = (1 - std::fabs(xi / f - c)) * (1 - std::fabs(yi / f - c));
    }
  } else if (t == "positive_unitball") {
    for (int64_t i = 0; i < n; ++i) x[i] = rng.Uniform(0.f, 1.f);
    const int64_t dim = n / std::max(1, tensor->shape(0));
    for (int64_t i = 0; i < n; i += dim) {
      float sum = 0;
      for (int64_t j = 0; j < dim; ++j) sum += x[i + j];
      for (int64_t j = 0; j < dim; ++j) x[i + j] /= sum;
    }
  } else if (t == "gabor") {
    return FillGabor(tensor);
  } else {
    DT_CHECK(false && "filler not validated");
  }
  return Status::Ok();
}

}  // namespace dtrain
