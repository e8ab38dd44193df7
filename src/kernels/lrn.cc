#include "kernels/lrn.h"

#include "kernels/onednn/lrn.h"
#include "kernels/reference/lrn.h"

namespace dtrain::kernels {
namespace {

const KernelList<UnaryKernel, LrnProblem> kImplementations(
    "LRN", {
               {Engine::kOnednn, "onednn", "oneDNN", &onednn::Lrn::Create},
               {Engine::kReference, "reference", "the reference", &reference::Lrn::Create},
           });

}  // namespace

StatusOr<std::unique_ptr<UnaryKernel>> ChooseKernel(const LrnProblem& problem,
                                                    const KernelRequest& request,
                                                    std::string* report) {
  return kImplementations.Choose(problem, request, report);
}

}  // namespace dtrain::kernels
