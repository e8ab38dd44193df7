#include "dist/communicator.h"

namespace dtrain {
namespace {

class SingleProcess : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string description() const override { return "single process"; }
  Status Broadcast(float*, int64_t, int) override { return Status::Ok(); }
  Status AllreduceSum(float*, int64_t) override { return Status::Ok(); }
};

}  // namespace

std::unique_ptr<Communicator> SingleProcessCommunicator() {
  return std::make_unique<SingleProcess>();
}

}  // namespace dtrain
