#include "kernels/batch_norm.h"

#include "kernels/onednn/batch_norm.h"
#include "kernels/onednn/blocked_batch_norm.h"
#include "kernels/reference/batch_norm.h"

namespace dtrain::kernels {
namespace {

const Implementation<BatchNormKernel, BatchNormProblem> kImplementations[] = {
    {Engine::kOnednn, "onednn", "dtrain's loops on oneDNN's layout",
     &onednn::BlockedBatchNorm::Create},
    {Engine::kOnednn, "onednn", "oneDNN", &onednn::BatchNorm::Create},
    {Engine::kReference, "reference", "the reference", &reference::BatchNorm::Create},
};

}  // namespace

StatusOr<std::unique_ptr<BatchNormKernel>> ChooseKernel(const BatchNormProblem& problem,
                                                        const KernelRequest& request,
                                                        std::string* report) {
  return ChooseFrom(kImplementations, problem, request, report);
}

}  // namespace dtrain::kernels
