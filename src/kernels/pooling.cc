#include "kernels/pooling.h"

#include <cmath>

#include "kernels/onednn/pooling.h"
#include "kernels/reference/pooling.h"

namespace dtrain::kernels {
namespace {

const Implementation<PoolingKernel, PoolingProblem> kImplementations[] = {
    {Engine::kOnednn, "onednn", "oneDNN", &onednn::Pooling::Create},
    {Engine::kReference, "reference", "the reference", &reference::Pooling::Create},
};

}  // namespace

int PooledSize(int in, int kernel, int pad, int stride, bool round_up, bool padded) {
  const float ratio = static_cast<float>(in + 2 * pad - kernel) / stride;
  int out = static_cast<int>(round_up ? std::ceil(ratio) : std::floor(ratio)) + 1;
  if (padded && (out - 1) * stride >= in + pad) --out;
  return out;
}

StatusOr<std::unique_ptr<PoolingKernel>> ChooseKernel(const PoolingProblem& problem,
                                                      const KernelRequest& request,
                                                      std::string* report) {
  return ChooseFrom(kImplementations, problem, request, report);
}

}  // namespace dtrain::kernels
