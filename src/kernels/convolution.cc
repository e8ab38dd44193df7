#include "kernels/convolution.h"

#include "kernels/onednn/convolution.h"
#include "kernels/reference/convolution.h"

namespace dtrain::kernels {
namespace {

const KernelList<LinearKernel, ConvolutionProblem> kImplementations(
    "Convolution",
    {
        {Engine::kOnednn, "onednn", "oneDNN", &onednn::Convolution::Create},
        {Engine::kReference, "reference", "the reference", &reference::Convolution::Create},
    });

}  // namespace

SpatialAxis ConvolutionShape::axis(int i) const {
  const int n = static_cast<int>(leading.size());
  if (i < n) return leading[i];
  const Window2d& w = window;
  if (i == n) return {in_h, out_h, w.kernel_h, w.pad_h, w.stride_h, w.dilation_h};
  return {in_w, out_w, w.kernel_w, w.pad_w, w.stride_w, w.dilation_w};
}

int64_t ConvolutionShape::InPixels() const {
  int64_t pixels = int64_t{in_h} * in_w;
  for (const SpatialAxis& a : leading) pixels *= a.in;
  return pixels;
}

int64_t ConvolutionShape::OutPixels() const {
  int64_t pixels = int64_t{out_h} * out_w;
  for (const SpatialAxis& a : leading) pixels *= a.out;
  return pixels;
}

int64_t ConvolutionShape::KernelTaps() const {
  int64_t taps = int64_t{window.kernel_h} * window.kernel_w;
  for (const SpatialAxis& a : leading) taps *= a.kernel;
  return taps;
}

bool ConvolutionShape::IsPointwise() const {
  for (const SpatialAxis& a : leading) {
    if (a.kernel != 1 || a.pad != 0 || a.stride != 1) return false;
  }
  return window.IsPointwise();
}

StatusOr<std::unique_ptr<LinearKernel>> ChooseKernel(const ConvolutionProblem& problem,
                                                     const KernelRequest& request,
                                                     std::string* report) {
  return kImplementations.Choose(problem, request, report);
}

}  // namespace dtrain::kernels
