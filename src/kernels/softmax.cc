#include "kernels/softmax.h"

#include "kernels/onednn/softmax.h"
#include "kernels/reference/softmax.h"

namespace dtrain::kernels {
namespace {

const KernelList<UnaryKernel, SoftmaxProblem> kImplementations(
    "Softmax", {
                   {Engine::kOnednn, "onednn", "oneDNN", &onednn::Softmax::Create},
                   {Engine::kReference, "reference", "the reference", &reference::Softmax::Create},
               });

}  // namespace

StatusOr<std::unique_ptr<UnaryKernel>> ChooseKernel(const SoftmaxProblem& problem,
                                                    const KernelRequest& request,
                                                    std::string* report) {
  return kImplementations.Choose(problem, request, report);
}

}  // namespace dtrain::kernels
