// The files a dtrain job reads, for `dtrain launch`'s pre-flight: from a job's arguments
// ("train --solver=S --weights=W ..."), the solver, its nets, --weights/--snapshot/--model, and
// what each data layer names (layers/layer_inputs.h: an LMDB directory, an image list and its
// root_folder, an HDF5 list, a window file, mean files; data-server sources are skipped), with
// `%#`/`%*` expanded for the given ranks. TEST-phase
// layers count only when the solver tests (test_iter). Files that
// cannot be read here are listed as they are, for the remote check to report.
#pragma once

#include <string>
#include <vector>

namespace dtrain {

// The value of flag `name` in `args` ("--name=v", "-name=v", "--name v" or "-name v"; the last
// one given, cluster/job_command_line.h); empty if absent.
std::string JobFlagValue(const std::vector<std::string>& args, const std::string& name);

// Input paths of `job` as ranks `ranks` of `world` see them, without duplicates, in a stable order.
std::vector<std::string> JobInputPaths(const std::vector<std::string>& job,
                                       const std::vector<int>& ranks, int world);

// Input paths of a `dtrain data-server` command's arguments (--source, --solver, --auth-file).
std::vector<std::string> DataServerInputPaths(const std::vector<std::string>& args);

}  // namespace dtrain
