#include "kernels/relu.h"

#include "kernels/onednn/relu.h"
#include "kernels/reference/relu.h"

namespace dtrain::kernels {
namespace {

const KernelList<UnaryKernel, ReluProblem> kImplementations(
    "ReLU", {
                {Engine::kOnednn, "onednn", "oneDNN", &onednn::Relu::Create},
                {Engine::kReference, "reference", "the reference", &reference::Relu::Create},
            });

}  // namespace

StatusOr<std::unique_ptr<UnaryKernel>> ChooseKernel(const ReluProblem& problem,
                                                    const KernelRequest& request,
                                                    std::string* report) {
  return kImplementations.Choose(problem, request, report);
}

}  // namespace dtrain::kernels
