// dtrain upgrade net | solver: rewrite an old Caffe file in the current syntax, as Caffe's
// upgrade_net_proto_text, upgrade_net_proto_binary and upgrade_solver_proto_text do. The rules
// are net/upgrade_net.h's and solver/upgrade_solver.h's (docs/upgrade.md); the output is written
// atomically, so IN and OUT may be the same file.
#include "cli/command.h"
#include "core/logging.h"
#include "core/proto_io.h"
#include "net/read_net.h"
#include "solver/upgrade_solver.h"

namespace dtrain {
namespace {

Status TwoPaths(const Flags& flags) {
  if (flags.positional().size() != 2) {
    return InvalidArgument("expected IN and OUT, got " + std::to_string(flags.positional().size()) +
                           " argument(s)");
  }
  return Status::Ok();
}

Status RunUpgradeNet(const Flags& flags) {
  DT_RETURN_IF_ERROR(TwoPaths(flags));
  const std::string& in = flags.positional()[0];
  const std::string& out = flags.positional()[1];
  const bool binary = flags.GetBool("binary");
  DT_ASSIGN_OR_RETURN(NetParameter net, binary ? ReadBinaryNetParameter(in) : ReadNetParameter(in));
  // Whatever the input's syntax, the output is a net: a layer without a type would be written
  // as one that no reader can build. Nothing is written then.
  for (int i = 0; i < net.layer_size(); ++i) {
    if (net.layer(i).type().empty()) {
      return InvalidArgument(in + ": layer #" + std::to_string(i) + " '" + net.layer(i).name() +
                             "' has no type; nothing written to " + out);
    }
  }
  net.clear_dtrain_checksum();  // the written file is a new one
  DT_RETURN_IF_ERROR(binary ? WriteBinaryProtoAtomically(out, net)
                            : WriteTextProtoAtomically(out, net));
  DT_LOG(INFO) << "Wrote upgraded net to " << out;
  return Status::Ok();
}

Status RunUpgradeSolver(const Flags& flags) {
  DT_RETURN_IF_ERROR(TwoPaths(flags));
  DT_ASSIGN_OR_RETURN(const SolverParameter solver, ReadSolverParameter(flags.positional()[0]));
  DT_RETURN_IF_ERROR(WriteTextProtoAtomically(flags.positional()[1], solver));
  DT_LOG(INFO) << "Wrote upgraded solver to " << flags.positional()[1];
  return Status::Ok();
}

}  // namespace

CommandGroup UpgradeCommands() {
  return {"upgrade",
          "rewrite old (V0/V1) Caffe nets and solvers in the current syntax",
          {{"net",
            "upgrade a V0/V1 net prototxt (or, with --binary, a .caffemodel) to the current syntax",
            "IN OUT",
            {{"binary", "IN and OUT are binary .caffemodel files (weights kept)", true}},
            RunUpgradeNet},
           {"solver",
            "upgrade a solver prototxt (solver_type enum, inline V0/V1 nets)",
            "IN OUT",
            {},
            RunUpgradeSolver}}};
}

}  // namespace dtrain
