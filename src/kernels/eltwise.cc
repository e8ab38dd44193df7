#include "kernels/eltwise.h"

#include "kernels/onednn/eltwise_sum.h"
#include "kernels/reference/eltwise.h"

namespace dtrain::kernels {
namespace {

const KernelList<JoinKernel, EltwiseProblem> kImplementations(
    "Eltwise", {
                   {Engine::kOnednn, "onednn", "oneDNN", &onednn::EltwiseSum::Create},
                   {Engine::kReference, "reference", "the reference", &reference::Eltwise::Create},
               });

}  // namespace

StatusOr<std::unique_ptr<JoinKernel>> ChooseKernel(const EltwiseProblem& problem,
                                                   const KernelRequest& request,
                                                   std::string* report) {
  return kImplementations.Choose(problem, request, report);
}

}  // namespace dtrain::kernels
