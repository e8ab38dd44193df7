#include "kernels/onednn/convolution.h"

#include <string>

#include "kernels/onednn/memory_layout.h"

namespace dtrain::onednn {

using dnnl::algorithm;
using dnnl::convolution_backward_data;
using dnnl::convolution_backward_weights;
using dnnl::convolution_forward;
using dnnl::memory;
using dnnl::prop_kind;
using tag = memory::format_tag;

StatusOr<std::unique_ptr<kernels::LinearKernel>> Convolution::Create(
    const kernels::ConvolutionProblem& problem, const kernels::KernelRequest& request) {
  if (problem.shape.spatial_axes() > 3) {
    return Unsupported("oneDNN convolves over 1, 2 or 3 spatial axes, this problem has " +
                       std::to_string(problem.shape.spatial_axes()));
  }
  return CreateKernel<kernels::LinearKernel, Convolution>(
      "convolution", problem.shape, problem.bias, request.training, request.scratch);
}

// Winograd F(4x4, 3x3) (oneDNN's jit_wino_4x3, AVX-512 only) for training's 3x3 stride-1
// convolutions: against the direct kernels it ran each pass 1.3-2.6x faster on every ResNet-50
// and GoogLeNet 3x3 shape tried, batch 1 to 32, 20 to 512 channels, 56x56 to 7x7 (AMD EPYC, 2
// threads); its transforms round differently, within the reference's tolerance. Where oneDNN
// has no Winograd kernel for a problem (AVX2, padding over 1, ...; oneDNN 3.x has none on the
// CPU), the direct ones run.
// Inference keeps the direct kernels, whose weights stay in an ordinary blocked layout.
Status Convolution::Init(const kernels::ConvolutionShape& s, bool bias, bool training,
                         Scratch* scratch) {
  scratch_ = ScratchRef(scratch);
  const kernels::Window2d& w = s.window;
  const bool winograd_shape = training && s.leading.empty() && s.groups == 1 && w.kernel_h == 3 &&
                              w.kernel_w == 3 && w.stride_h == 1 && w.stride_w == 1 &&
                              w.dilation_h == 1 && w.dilation_w == 1;
  if (winograd_shape && Guarded("winograd convolution", [&] {
                          return Build(s, bias, training, algorithm::convolution_winograd);
                        }).ok()) {
    return Status::Ok();
  }
  return Build(s, bias, training, algorithm::convolution_direct);
}

Status Convolution::Build(const kernels::ConvolutionShape& s, bool bias, bool training,
                          algorithm algo) {
  const kernels::Window2d& w = s.window;
  // Per spatial axis, outermost first (a 3-D problem's depth, then H and W).
  Dims src_dims = {s.batch, s.in_channels}, dst_dims = {s.batch, s.out_channels};
  Dims weight_dims = {s.out_channels, s.in_channels};
  if (s.groups > 1) weight_dims = {s.groups, s.out_channels / s.groups, s.in_channels / s.groups};
  Dims strides, dilates, padding;  // oneDNN counts the dilation's gaps; sizes round down as Caffe's
  for (int i = 0; i < s.spatial_axes(); ++i) {
    const kernels::SpatialAxis a = s.axis(i);
    src_dims.push_back(a.in);
    dst_dims.push_back(a.out);
    weight_dims.push_back(a.kernel);
    strides.push_back(a.stride);
    dilates.push_back(a.dilation - 1);
    padding.push_back(a.pad);
  }
  const memory::desc bias_desc = bias ? PlainDesc({s.out_channels}) : memory::desc();

  auto any = [](const Dims& d) { return memory::desc(d, memory::data_type::f32, tag::any); };
  // With AVX-512's blocks of 16 channels, an output channel count that is not a multiple of 16
  // pads every blocked activation of the layer (LeNet's conv2: 50 -> 64 output channels, 20 -> 32
  // input ones), and oneDNN's channels-last (nhwc) kernels, which pad nothing, ran the three
  // passes faster: LeNet's conv2 6.8 -> 4.3 ms, 50 -> 50 channels 3x3 1.33x, 24 -> 24 3x3 1.31x,
  // 48 -> 50 5x5 1.10x (AMD EPYC, 2 threads). Not where the blocked kernels stayed ahead: 1x1
  // kernels (jit_1x1), output channels in whole blocks (20 -> 64 5x5: blocked 1.29x faster), first
  // layers on raw images (fewer than 8 input channels), groups; nor with AVX2, where both ran even.
  // 3-D problems (not measured) keep oneDNN's choice here and below.
  const bool planar = s.leading.empty();
  const bool channels_last = planar && algo == algorithm::convolution_direct &&
                             BlocksOf16Channels() && s.groups == 1 && s.in_channels >= 8 &&
                             s.out_channels % 16 != 0 && (w.kernel_h > 1 || w.kernel_w > 1);
  auto activation = [&](const Dims& d) {
    return channels_last ? memory::desc(d, memory::data_type::f32, tag::nhwc) : any(d);
  };
  // All primitives exist before any Scratch is reserved, so that a declined Winograd attempt
  // leaves no reservation behind; their scratchpads come from the net's Scratch too.
  const dnnl::primitive_attr attr = UserScratchpad();
  const auto forward_pd = ForwardDesc<convolution_forward>(
      context_, attr, training ? prop_kind::forward_training : prop_kind::forward_inference, algo,
      activation(src_dims), any(weight_dims), bias_desc, activation(dst_dims), strides, dilates,
      padding, padding);
  // With fewer than 8 input channels per group (a first layer on raw images) and AVX2, the
  // blocked backward-weights kernel has nothing to vectorise over and ran several times slower
  // than oneDNN's GEMM-based one on the plain layouts (LeNet's conv1, AMD EPYC), and its jit:avx2
  // kernel on channels-last (nhwc) src and diff_dst is faster again: LeNet's conv1 backward 1.90
  // -> 0.90 ms, cifar10_quick's 10.9 -> 5.9 ms (2 threads, relayouts included). Where oneDNN has
  // no JIT kernel on channels-last for the shape, the plain layouts. With AVX-512 the
  // blocked kernel is the fastest (LeNet's conv1 1.98 -> 0.43 ms, cifar10's 11.1 -> 2.7 ms,
  // GoogLeNet's 76 -> 38 ms against the GEMM-based one), so it runs there. Depthwise
  // convolutions (one input channel per group) always keep oneDNN's depthwise kernels, which
  // vectorise over the groups in the blocked layouts.
  const bool depthwise = s.groups > 1 && s.in_channels == s.groups;
  const bool flat_src =
      planar && !depthwise && s.in_channels / s.groups < 8 && !BlocksOf16Channels();
  convolution_backward_data::primitive_desc data_pd;
  convolution_backward_weights::primitive_desc weights_pd;
  if (training) {
    data_pd = BackwardDesc<convolution_backward_data>(
        context_, attr, forward_pd, algo, activation(src_dims), any(weight_dims),
        activation(dst_dims), strides, dilates, padding, padding);
    auto weights_desc = [&](const memory::desc& src, const memory::desc& dst) {
      return BackwardDesc<convolution_backward_weights>(context_, attr, forward_pd, algo, src,
                                                        any(weight_dims), bias_desc, dst, strides,
                                                        dilates, padding, padding);
    };
    if (!flat_src) {
      weights_pd = weights_desc(activation(src_dims), activation(dst_dims));
    } else {
      const memory::desc nhwc_src(src_dims, memory::data_type::f32, tag::nhwc);
      const memory::desc nhwc_dst(dst_dims, memory::data_type::f32, tag::nhwc);
      weights_pd = weights_desc(nhwc_src, nhwc_dst);
      if (std::string(weights_pd.impl_info_str()).rfind("jit", 0) != 0) {
        weights_pd = weights_desc(PlainDesc(src_dims), PlainDesc(dst_dims));
      }
    }
  }
  // Activations stay in the layouts the forward primitive chose, for the neighbouring layers
  // that take them (core/tensor.h); weights stay plain for the solver.
  layouts_ = {LayoutFor(context_, forward_pd.src_desc()),
              LayoutFor(context_, forward_pd.dst_desc())};
  const UserLayouts user = {DescOf(layouts_.src, src_dims), PlainDesc(weight_dims),
                            DescOf(layouts_.dst, dst_dims), bias_desc};
  passes_.SetForward(context_, scratch_.get(), user, forward_pd);
  implementation_ = forward_pd.impl_info_str();
  if (!training) return Status::Ok();
  passes_.SetBackward(context_, scratch_.get(), user, data_pd, weights_pd);

  const std::string data_impl = data_pd.impl_info_str();
  const std::string weights_impl = weights_pd.impl_info_str();
  if (data_impl != implementation_ || weights_impl != implementation_) {
    implementation_ =
        "fwd " + implementation_ + ", bwd data " + data_impl + ", bwd weights " + weights_impl;
  }
  return Status::Ok();
}

}  // namespace dtrain::onednn
