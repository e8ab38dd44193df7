#include "layers/base_convolution_layer.h"

#include <string>

#include "core/filler.h"
#include "proto/layer_params.pb.h"

namespace dtrain {
namespace {

// A repeated spatial field (kernel_size, pad, stride, dilation): empty means `fallback`, one
// value applies to both axes, two give (h, w).
Status ReadPair(const google::protobuf::RepeatedField<uint32_t>& field, const char* name,
                int fallback, int* h, int* w) {
  if (field.size() > 2) {
    return InvalidArgument(std::string(name) +
                           " must be given once, or once per spatial axis (2), "
                           "got " +
                           std::to_string(field.size()) + " values");
  }
  *h = field.empty() ? fallback : static_cast<int>(field.Get(0));
  *w = field.empty() ? fallback : static_cast<int>(field.Get(field.size() - 1));
  return Status::Ok();
}

}  // namespace

Status ReadConvolutionWindow(const ConvolutionParameter& p, kernels::Window2d* window) {
  kernels::Window2d& w = *window;
  if (p.has_kernel_h() || p.has_kernel_w()) {
    if (p.kernel_size_size() > 0) {
      return InvalidArgument("give kernel_size or kernel_h/kernel_w, not both");
    }
    if (!p.has_kernel_h() || !p.has_kernel_w()) {
      return InvalidArgument("kernel_h and kernel_w must be given together");
    }
    w.kernel_h = static_cast<int>(p.kernel_h());
    w.kernel_w = static_cast<int>(p.kernel_w());
  } else {
    if (p.kernel_size_size() == 0) {
      return InvalidArgument("kernel_size (or kernel_h/kernel_w) is required");
    }
    DT_RETURN_IF_ERROR(ReadPair(p.kernel_size(), "kernel_size", 0, &w.kernel_h, &w.kernel_w));
  }
  if (p.has_stride_h() || p.has_stride_w()) {
    if (p.stride_size() > 0) return InvalidArgument("give stride or stride_h/stride_w, not both");
    if (!p.has_stride_h() || !p.has_stride_w()) {
      return InvalidArgument("stride_h and stride_w must be given together");
    }
    w.stride_h = static_cast<int>(p.stride_h());
    w.stride_w = static_cast<int>(p.stride_w());
  } else {
    DT_RETURN_IF_ERROR(ReadPair(p.stride(), "stride", 1, &w.stride_h, &w.stride_w));
  }
  if (p.has_pad_h() || p.has_pad_w()) {
    if (p.pad_size() > 0) return InvalidArgument("give pad or pad_h/pad_w, not both");
    w.pad_h = static_cast<int>(p.pad_h());
    w.pad_w = static_cast<int>(p.pad_w());
  } else {
    DT_RETURN_IF_ERROR(ReadPair(p.pad(), "pad", 0, &w.pad_h, &w.pad_w));
  }
  DT_RETURN_IF_ERROR(ReadPair(p.dilation(), "dilation", 1, &w.dilation_h, &w.dilation_w));
  if (w.kernel_h <= 0 || w.kernel_w <= 0) {
    return InvalidArgument("kernel dimensions must be positive, got " + std::to_string(w.kernel_h) +
                           "x" + std::to_string(w.kernel_w));
  }
  if (w.stride_h <= 0 || w.stride_w <= 0) return InvalidArgument("stride must be positive");
  if (w.dilation_h <= 0 || w.dilation_w <= 0) return InvalidArgument("dilation must be positive");
  return Status::Ok();
}

Status BaseConvolutionLayer::ReadWindow() {
  return ReadConvolutionWindow(param_.convolution_param(), &window_);
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
  Status window = ReadWindow();
  if (!window.ok()) return Error(window.message());
  const Tensor& in = *bottom[0];
  if (in.num_axes() != 4) {
    return Error("needs a 4-D (N, C, H, W) bottom, got shape " + in.ShapeString());
  }
  if (p.axis() != 1 && p.axis() != -3) {
    return Error("only axis 1 (the channel axis of NCHW) is supported, got axis " +
                 std::to_string(p.axis()));
  }
  DT_ASSIGN_OR_RETURN(num_output_,
                      Dimension("convolution_param.num_output", p.num_output(), false));
  DT_ASSIGN_OR_RETURN(group_, Dimension("convolution_param.group", p.group(), false));
  bias_term_ = p.bias_term();
  channels_ = in.shape(1);
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
  // Weights: (conv output channels, conv input channels / group, kh, kw) in the kernel's terms.
  const std::vector<int> weight_shape =
      reverse_dimensions()
          ? std::vector<int>{channels_, num_output_ / group_, window_.kernel_h, window_.kernel_w}
          : std::vector<int>{num_output_, channels_ / group_, window_.kernel_h, window_.kernel_w};
  DT_RETURN_IF_ERROR(SetUpBlob(0, weight_shape, p.weight_filler(), "weight"));
  if (bias_term_) DT_RETURN_IF_ERROR(SetUpBlob(1, {num_output_}, p.bias_filler(), "bias"));
  return Status::Ok();
}

Status BaseConvolutionLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& in = *bottom[0];
  if (in.num_axes() != 4 || in.shape(1) != channels_) {
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
  const kernels::Window2d& w = window_;
  const int out_h = OutputSize(in.shape(2), w.kernel_h, w.pad_h, w.stride_h, w.dilation_h);
  const int out_w = OutputSize(in.shape(3), w.kernel_w, w.pad_w, w.stride_w, w.dilation_w);
  if (out_h <= 0 || out_w <= 0) {
    return Error("kernel " + std::to_string(w.DilatedKernelH()) + "x" +
                 std::to_string(w.DilatedKernelW()) + " (dilated) with pad " +
                 std::to_string(w.pad_h) + "x" + std::to_string(w.pad_w) +
                 " gives no output for bottom shape " + in.ShapeString());
  }
  const std::vector<int> top_shape = {in.shape(0), num_output_, out_h, out_w};
  for (Tensor* t : top) t->Reshape(top_shape);

  // The kernel problem: bottom -> top, or top -> bottom for Deconvolution.
  const std::vector<int>& src = reverse_dimensions() ? top_shape : in.shape();
  const std::vector<int>& dst = reverse_dimensions() ? in.shape() : top_shape;
  conv_.batch = in.shape(0);
  conv_.in_channels = src[1];
  conv_.in_h = src[2];
  conv_.in_w = src[3];
  conv_.out_channels = dst[1];
  conv_.out_h = dst[2];
  conv_.out_w = dst[3];
  conv_.groups = group_;
  conv_.window = window_;
  return ReshapeKernel();
}

}  // namespace dtrain
