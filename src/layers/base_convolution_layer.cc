#include "layers/base_convolution_layer.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "core/filler.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

using kernels::SpatialAxis;
using Field = google::protobuf::RepeatedField<uint32_t>;

constexpr int64_t kMaxDimension = INT32_MAX;

// "3x5x5": one field of every axis.
std::string Joined(const std::vector<SpatialAxis>& axes, int64_t (*value)(const SpatialAxis&)) {
  std::string text;
  for (const SpatialAxis& a : axes) text += (text.empty() ? "" : "x") + std::to_string(value(a));
  return text;
}

int64_t DilatedKernel(const SpatialAxis& a) { return int64_t{a.dilation} * (a.kernel - 1) + 1; }

// A repeated spatial field (kernel_size, pad, stride, dilation) over `n` axes: empty keeps
// `fallback`, one value applies to every axis, n values give one per axis.
Status ReadField(const Field& field, const std::string& name, int n, int fallback,
                 int SpatialAxis::*member, std::vector<SpatialAxis>* axes) {
  const int given = field.size();
  if (given > 1 && given != n) {
    return InvalidArgument(name + " must be given once, or once per spatial axis (" +
                           std::to_string(n) + "), got " + std::to_string(given) + " values");
  }
  for (int i = 0; i < n; ++i) {
    const int64_t value = given == 0 ? fallback : field.Get(given == 1 ? 0 : i);
    if (value > kMaxDimension) {
      return InvalidArgument(name + " is " + std::to_string(value) +
                             ", more than a dimension may be (2147483647)");
    }
    (*axes)[i].*member = static_cast<int>(value);
  }
  return Status::Ok();
}

// One of the 2-D forms (`name`_h, `name`_w) of a field whose list form is `list`, where either
// is given: refused over other than two spatial axes, beside the list form, or (when `pair`)
// with one of the two missing (Caffe would read the missing one as 0).
Status ReadHw(const std::string& name, const std::string& list, int list_size, bool has_h,
              bool has_w, uint32_t h, uint32_t w, bool pair, int n, int SpatialAxis::*member,
              std::vector<SpatialAxis>* axes) {
  const std::string forms = name + "_h/" + name + "_w";
  if (n != 2) {
    return InvalidArgument(forms + " apply to 2-D convolution only, but the bottom has " +
                           std::to_string(n) + " spatial axes; give " + list + " instead");
  }
  if (list_size > 0) return InvalidArgument("give " + list + " or " + forms + ", not both");
  if (pair && (!has_h || !has_w)) {
    return InvalidArgument(name + "_h and " + name + "_w must be given together");
  }
  const uint32_t values[2] = {h, w};
  for (int index = 0; index < 2; ++index) {
    if (values[index] > kMaxDimension) {
      return InvalidArgument(name + (index == 0 ? "_h" : "_w") + " is " +
                             std::to_string(values[index]) +
                             ", more than a dimension may be (2147483647)");
    }
    (*axes)[index].*member = static_cast<int>(values[index]);
  }
  return Status::Ok();
}

// The window over the last two of `axes` (over one axis: a unit H axis and that one).
kernels::Window2d LastTwo(const SpatialAxis& h, const SpatialAxis& w) {
  return {h.kernel, w.kernel, h.pad, w.pad, h.stride, w.stride, h.dilation, w.dilation};
}

}  // namespace

Status ReadConvolutionAxes(const ConvolutionParameter& p, int n, std::vector<SpatialAxis>* out) {
  std::vector<SpatialAxis> axes(n);
  if (p.has_kernel_h() || p.has_kernel_w()) {
    DT_RETURN_IF_ERROR(ReadHw("kernel", "kernel_size", p.kernel_size_size(), p.has_kernel_h(),
                              p.has_kernel_w(), p.kernel_h(), p.kernel_w(), true, n,
                              &SpatialAxis::kernel, &axes));
  } else {
    if (p.kernel_size_size() == 0) {
      return InvalidArgument("kernel_size (or kernel_h/kernel_w) is required");
    }
    DT_RETURN_IF_ERROR(
        ReadField(p.kernel_size(), "kernel_size", n, 0, &SpatialAxis::kernel, &axes));
  }
  if (p.has_stride_h() || p.has_stride_w()) {
    DT_RETURN_IF_ERROR(ReadHw("stride", "stride", p.stride_size(), p.has_stride_h(),
                              p.has_stride_w(), p.stride_h(), p.stride_w(), true, n,
                              &SpatialAxis::stride, &axes));
  } else {
    DT_RETURN_IF_ERROR(ReadField(p.stride(), "stride", n, 1, &SpatialAxis::stride, &axes));
  }
  if (p.has_pad_h() || p.has_pad_w()) {
    DT_RETURN_IF_ERROR(ReadHw("pad", "pad", p.pad_size(), p.has_pad_h(), p.has_pad_w(), p.pad_h(),
                              p.pad_w(), false, n, &SpatialAxis::pad, &axes));
  } else {
    DT_RETURN_IF_ERROR(ReadField(p.pad(), "pad", n, 0, &SpatialAxis::pad, &axes));
  }
  DT_RETURN_IF_ERROR(ReadField(p.dilation(), "dilation", n, 1, &SpatialAxis::dilation, &axes));
  for (const SpatialAxis& a : axes) {
    if (a.kernel <= 0) {
      return InvalidArgument("kernel dimensions must be positive, got " +
                             Joined(axes, [](const SpatialAxis& x) { return int64_t{x.kernel}; }));
    }
    if (a.stride <= 0) return InvalidArgument("stride must be positive");
    if (a.dilation <= 0) return InvalidArgument("dilation must be positive");
  }
  *out = std::move(axes);
  return Status::Ok();
}

Status ReadConvolutionWindow(const ConvolutionParameter& p, kernels::Window2d* window) {
  std::vector<SpatialAxis> axes;
  DT_RETURN_IF_ERROR(ReadConvolutionAxes(p, 2, &axes));
  *window = LastTwo(axes[0], axes[1]);
  return Status::Ok();
}

Status BaseConvolutionLayer::SetUpBlob(int index, const std::vector<int>& shape,
                                       const FillerParameter& filler, const char* what) {
  if (static_cast<int>(blobs_.size()) > index) {
    if (blobs_[index]->shape() != shape) {
      return Error(std::string("incorrect ") + what + " shape: expected " + ShapeToString(shape) +
                   ", got " + blobs_[index]->ShapeString());
    }
    return Status::Ok();
  }
  Status valid = ValidateFiller(filler);
  if (!valid.ok())
    return Status(valid.code(), Error(std::string(what) + "_filler: " + valid.message()).message());
  blobs_.push_back(std::make_shared<Tensor>(shape));
  DT_RETURN_IF_ERROR(Fill(filler, rng_, blobs_.back().get()));
  return Status::Ok();
}

Status BaseConvolutionLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const ConvolutionParameter& p = param_.convolution_param();
  const Tensor& in = *bottom[0];
  const int num_axes = in.num_axes();
  if (p.axis() < -num_axes || p.axis() >= num_axes) {
    return Error("convolution_param.axis " + std::to_string(p.axis()) +
                 " is out of range for bottom shape " + in.ShapeString() + " (" +
                 std::to_string(num_axes) + " axes)");
  }
  channel_axis_ = p.axis() < 0 ? p.axis() + num_axes : p.axis();
  const int spatial = num_axes - channel_axis_ - 1;
  if (spatial < 1) {
    return Error("needs a spatial axis after the channel axis " + std::to_string(channel_axis_) +
                 ", got bottom shape " + in.ShapeString());
  }
  if (spatial > kernels::kMaxSpatialAxes) {
    return Error("takes at most " + std::to_string(kernels::kMaxSpatialAxes) +
                 " spatial axes, got " + std::to_string(spatial) + " after the channel axis " +
                 std::to_string(channel_axis_) + " of bottom shape " + in.ShapeString());
  }
  Status window = ReadConvolutionAxes(p, spatial, &axes_);
  if (!window.ok()) return Error(window.message());
  window_ = LastTwo(spatial >= 2 ? axes_[spatial - 2] : SpatialAxis(), axes_.back());
  DT_ASSIGN_OR_RETURN(num_output_,
                      Dimension("convolution_param.num_output", p.num_output(), false));
  DT_ASSIGN_OR_RETURN(group_, Dimension("convolution_param.group", p.group(), false));
  bias_term_ = p.bias_term();
  channels_ = in.shape(channel_axis_);
  // The forks' depthwise types (ConvolutionDepthwise, DepthwiseConvolution) mean one group per
  // input channel; a group that says otherwise is ambiguous.
  if (param_.type() == "ConvolutionDepthwise" || param_.type() == "DepthwiseConvolution") {
    if (p.has_group() && group_ != channels_) {
      return Error("type " + param_.type() + " has one group per input channel (" +
                   std::to_string(channels_) + "), but group is " + std::to_string(group_));
    }
    group_ = channels_;
  }
  if (num_output_ <= 0) return Error("num_output must be positive");
  if (group_ <= 0) return Error("group must be positive");
  if (channels_ % group_ != 0) {
    return Error("input channels (" + std::to_string(channels_) +
                 ") must be a multiple of group (" + std::to_string(group_) + ")");
  }
  if (num_output_ % group_ != 0) {
    return Error("num_output (" + std::to_string(num_output_) + ") must be a multiple of group (" +
                 std::to_string(group_) + ")");
  }
  const int expected_blobs = bias_term_ ? 2 : 1;
  if (!blobs_.empty() && static_cast<int>(blobs_.size()) != expected_blobs) {
    return Error("expected " + std::to_string(expected_blobs) + " learnable blob(s), got " +
                 std::to_string(blobs_.size()));
  }
  // Weights: (conv output channels, conv input channels / group, kernel per spatial axis) in the
  // kernel's terms.
  std::vector<int> weight_shape = reverse_dimensions()
                                      ? std::vector<int>{channels_, num_output_ / group_}
                                      : std::vector<int>{num_output_, channels_ / group_};
  for (const SpatialAxis& a : axes_) weight_shape.push_back(a.kernel);
  DT_RETURN_IF_ERROR(SetUpBlob(0, weight_shape, p.weight_filler(), "weight"));
  if (bias_term_) DT_RETURN_IF_ERROR(SetUpBlob(1, {num_output_}, p.bias_filler(), "bias"));
  return Status::Ok();
}

Status BaseConvolutionLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& in = *bottom[0];
  const int spatial = static_cast<int>(axes_.size());
  const int first_spatial = channel_axis_ + 1;
  if (in.num_axes() != first_spatial + spatial) {
    return Error("bottom shape " + in.ShapeString() + " has " + std::to_string(in.num_axes()) +
                 " axes, but the layer was set up for " + std::to_string(first_spatial + spatial));
  }
  if (in.shape(channel_axis_) != channels_) {
    return Error("bottom shape " + in.ShapeString() + " does not match the " +
                 std::to_string(channels_) + " input channels the layer was set up with");
  }
  for (size_t i = 1; i < bottom.size(); ++i) {
    if (bottom[i]->shape() != in.shape()) {
      return Error("all bottoms must have one shape: bottom[0] is " + in.ShapeString() +
                   ", bottom[" + std::to_string(i) + "] is " + bottom[i]->ShapeString());
    }
  }
  num_bottoms_ = static_cast<int>(bottom.size());
  int64_t images = 1;
  for (int i = 0; i < channel_axis_; ++i) images *= in.shape(i);
  DT_ASSIGN_OR_RETURN(const int batch,
                      Dimension("the batch (the axes before the channel axis)", images, false));

  std::vector<int> top_shape(in.shape().begin(), in.shape().begin() + channel_axis_);
  top_shape.push_back(num_output_);
  for (int i = 0; i < spatial; ++i) {
    SpatialAxis& a = axes_[i];
    const int size = in.shape(first_spatial + i);
    const int64_t out = OutputSize(a, size);
    if (out <= 0) {
      return Error("kernel " + Joined(axes_, DilatedKernel) + " (dilated) with pad " +
                   Joined(axes_, [](const SpatialAxis& x) { return int64_t{x.pad}; }) +
                   " gives no output for bottom shape " + in.ShapeString());
    }
    // The convolution's input, padded (for Deconvolution the top), must be an int like every
    // extent the kernels compute with.
    const int64_t padded = (reverse_dimensions() ? out : size) + 2 * int64_t{a.pad};
    if (out > kMaxDimension || padded > kMaxDimension) {
      return Error("along spatial axis " + std::to_string(i) + " the " +
                   (out > kMaxDimension ? "top would be " + std::to_string(out)
                                        : "padded input would be " + std::to_string(padded)) +
                   ", more than a dimension may be (2147483647), for bottom shape " +
                   in.ShapeString());
    }
    a.in = size;
    a.out = static_cast<int>(out);
    top_shape.push_back(a.out);
  }
  for (Tensor* t : top) t->Reshape(top_shape);
  conv_.batch = batch;
  StateProblem();
  return ReshapeKernel();
}

void BaseConvolutionLayer::StateProblem() {
  const bool reverse = reverse_dimensions();
  conv_.in_channels = reverse ? num_output_ : channels_;
  conv_.out_channels = reverse ? channels_ : num_output_;
  conv_.groups = group_;
  // The problem's src is the bottom, or the top for Deconvolution.
  auto problem_axis = [&](int i) {
    SpatialAxis a = axes_[i];
    if (reverse) std::swap(a.in, a.out);
    return a;
  };
  const int n = static_cast<int>(axes_.size());
  const SpatialAxis h = n >= 2 ? problem_axis(n - 2) : SpatialAxis();
  const SpatialAxis w = problem_axis(n - 1);
  conv_.in_h = h.in;
  conv_.out_h = h.out;
  conv_.in_w = w.in;
  conv_.out_w = w.out;
  conv_.window = LastTwo(h, w);
  conv_.leading.resize(std::max(0, n - 2));
  for (int i = 0; i + 2 < n; ++i) conv_.leading[i] = problem_axis(i);
}

}  // namespace dtrain
