#include "kernels/pooling.h"

#include <algorithm>
#include <cmath>

#include "kernels/blocked/pooling.h"
#include "kernels/onednn/pooling.h"
#include "kernels/reference/pooling.h"

namespace dtrain::kernels {
namespace {

const KernelList<PoolingKernel, PoolingProblem> kImplementations(
    "Pooling",
    {
        {Engine::kOnednn, "onednn", "oneDNN", &onednn::Pooling::Create},
        {Engine::kOnednn, "blocked", "dtrain's blocked loops", &blocked::Pooling::Create},
        {Engine::kReference, "reference", "the reference", &reference::Pooling::Create},
    });

}  // namespace

int PooledSize(int in, int kernel, int pad, int stride, bool round_up, bool padded) {
  const float ratio = static_cast<float>(in + 2 * pad - kernel) / stride;
  int out = static_cast<int>(round_up ? std::ceil(ratio) : std::floor(ratio)) + 1;
  if (padded && (out - 1) * stride >= in + pad) --out;
  return out;
}

PoolSpan PoolingWindow(int o, int in, int kernel, int pad, int stride) {
  const int start = o * stride - pad;
  const int end = std::min(start + kernel, in + pad);
  return {std::max(start, 0), std::min(end, in), end - start};
}

StatusOr<std::unique_ptr<PoolingKernel>> ChooseKernel(const PoolingProblem& problem,
                                                      const KernelRequest& request,
                                                      std::string* report) {
  return kImplementations.Choose(problem, request, report);
}

}  // namespace dtrain::kernels
