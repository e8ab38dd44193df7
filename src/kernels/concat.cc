#include "kernels/concat.h"

#include "kernels/onednn/concat.h"
#include "kernels/reference/concat.h"

namespace dtrain::kernels {
namespace {

const KernelList<JoinKernel, ConcatProblem> kImplementations(
    "Concat", {
                  {Engine::kOnednn, "onednn", "oneDNN", &onednn::Concat::Create},
                  {Engine::kReference, "reference", "the reference", &reference::Concat::Create},
              });

}  // namespace

StatusOr<std::unique_ptr<JoinKernel>> ChooseKernel(const ConcatProblem& problem,
                                                   const KernelRequest& request,
                                                   std::string* report) {
  return kImplementations.Choose(problem, request, report);
}

}  // namespace dtrain::kernels
