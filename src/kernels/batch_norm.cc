#include "kernels/batch_norm.h"

#include "kernels/blocked/batch_norm.h"
#include "kernels/onednn/batch_norm.h"
#include "kernels/reference/batch_norm.h"

namespace dtrain::kernels {
namespace {

const KernelList<BatchNormKernel, BatchNormProblem> kImplementations(
    "BatchNorm",
    {
        {Engine::kOnednn, "blocked", "dtrain's blocked loops", &blocked::BatchNorm::Create},
        {Engine::kOnednn, "onednn", "oneDNN", &onednn::BatchNorm::Create},
        {Engine::kReference, "reference", "the reference", &reference::BatchNorm::Create},
    });

}  // namespace

StatusOr<std::unique_ptr<BatchNormKernel>> ChooseKernel(const BatchNormProblem& problem,
                                                        const KernelRequest& request,
                                                        std::string* report) {
  return kImplementations.Choose(problem, request, report);
}

}  // namespace dtrain::kernels
