#include "python/solver_binding.h"

#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/logging.h"
#include "net/read_net.h"
#include "python/net_binding.h"
#include "python/path_args.h"
#include "python/python_errors.h"
#include "python/tensor_views.h"
#include "solver/initial_weights.h"
#include "solver/net_loading.h"
#include "solver/snapshot_output.h"
#include "solver/solver.h"
#include "solver/upgrade_solver.h"

namespace py = pybind11;

namespace dtrain::python {

namespace {

// The solver's nets with every blob keeping its own diff, as Python's nets do: the net files are
// read here (net -> net_param, train_net -> train_net_param, test_net files after the
// test_net_params, so the test nets keep their order) and marked keep_blob_diffs.
void KeepBlobDiffs(SolverParameter* param) {
  if (param->has_net()) {
    *param->mutable_net_param() = ValueOrThrow(ReadNetParameter(param->net()));
    param->clear_net();
  }
  if (param->has_train_net()) {
    *param->mutable_train_net_param() = ValueOrThrow(ReadNetParameter(param->train_net()));
    param->clear_train_net();
  }
  for (const std::string& path : param->test_net()) {
    *param->add_test_net_param() = ValueOrThrow(ReadNetParameter(path));
  }
  param->clear_test_net();
  if (param->has_net_param()) param->mutable_net_param()->set_keep_blob_diffs(true);
  if (param->has_train_net_param()) param->mutable_train_net_param()->set_keep_blob_diffs(true);
  for (NetParameter& p : *param->mutable_test_net_param()) p.set_keep_blob_diffs(true);
}

// A solver as Python holds it; its nets' handles share its lifetime.
struct SolverHandle {
  std::shared_ptr<Solver> solver;

  std::vector<Net*> TestNets() const {
    std::vector<Net*> nets;
    for (const auto& n : solver->test_nets()) nets.push_back(n.get());
    return nets;
  }
  // Runs `work` on the plain values Python sees (python/tensor_views.h). Only the train net's
  // diffs are claimed: test nets never run backward in a solver, and claiming would give each of
  // their blobs a diff buffer it never uses.
  template <typename Work>
  void OnPlainValues(Work work) {
    ClaimPlainValues({&solver->net()}, /*diffs=*/true);
    ClaimPlainValues(TestNets(), /*diffs=*/false);
    const Status status = work();
    PublishPlainValues({&solver->net()}, /*diffs=*/true);
    PublishPlainValues(TestNets(), /*diffs=*/false);
    ThrowIfError(status);
  }
};

// `type` empty: the file's own update rule; else that one (pycaffe's SGDSolver(...) etc.).
SolverHandle MakeSolver(const std::string& path, const std::string& type) {
  SolverParameter param = ValueOrThrow(ReadSolverParameter(path));
  if (!type.empty()) {
    param.set_type(type);
    param.clear_solver_type();
  }
  KeepBlobDiffs(&param);
  ThrowIfError(PrepareSnapshotOutputOf(param));
  std::unique_ptr<Solver> solver = ValueOrThrow(CreateSolver(param));
  // Caffe's Solver starts from the files of its `weights:` field, as `dtrain train` without
  // --weights and --snapshot does (a later restore() replaces them).
  const InitialWeights initial = ChooseInitialWeights(param, "", "");
  if (!initial.weights.empty()) {
    ThrowIfError(LoadWeights(initial.weights, /*strict=*/false, &solver->net()));
  }
  return SolverHandle{std::shared_ptr<Solver>(std::move(solver))};
}

NetHandle NetOf(const SolverHandle& h, Net* net) {
  return NetHandle{std::shared_ptr<Net>(h.solver, net)};
}

void BindSolverClass(py::module_& m, const char* name, const std::string& type, const char* doc) {
  m.def(
      name,
      [type, name = std::string(name)](const py::object& path) {
        return MakeSolver(PathArg(path, name + ": path"), type);
      },
      py::arg("path"), doc);
}

}  // namespace

void BindSolver(py::module_& m) {
  py::class_<SolverHandle>(m, "Solver", "a solver over its train net and test nets")
      .def_property_readonly("net",
                             [](const SolverHandle& h) { return NetOf(h, &h.solver->net()); })
      .def_property_readonly("test_nets",
                             [](const SolverHandle& h) {
                               std::vector<NetHandle> nets;
                               for (const auto& n : h.solver->test_nets())
                                 nets.push_back(NetOf(h, n.get()));
                               return nets;
                             })
      .def_property_readonly("iter", [](const SolverHandle& h) { return h.solver->iter(); })
      .def_property_readonly("type", [](const SolverHandle& h) { return h.solver->type(); })
      .def(
          "step",
          [](SolverHandle& h, int iters) {
            if (iters < 0) throw py::value_error("step: iterations must not be negative");
            h.OnPlainValues([&] { return h.solver->Step(iters); });
          },
          py::arg("iters"), "trains `iters` iterations (tests and snapshots as the solver says)")
      .def(
          "solve",
          [](SolverHandle& h, const py::object& resume) {
            std::optional<std::string> state;
            if (!resume.is_none()) state = PathArg(resume, "solve: resume");
            h.OnPlainValues([&] {
              if (state) {
                const Status restored = h.solver->Restore(*state);
                if (!restored.ok()) return restored;
              }
              return h.solver->Solve();
            });
          },
          py::arg("resume") = py::none(),
          "trains to max_iter (from a .solverstate when `resume` names one), as `dtrain train`")
      .def(
          "snapshot",
          [](SolverHandle& h) { h.OnPlainValues([&] { return h.solver->Snapshot(); }); },
          "writes <prefix>_iter_<N>.caffemodel and .solverstate")
      .def(
          "restore",
          [](SolverHandle& h, const py::object& path) {
            const std::string file = PathArg(path, "restore: path");
            h.OnPlainValues([&] { return h.solver->Restore(file); });
          },
          py::arg("path"), "continues from a .solverstate (its .caffemodel beside it)")
      .def(
          "test",
          [](SolverHandle& h) {
            std::vector<std::vector<std::pair<std::string, float>>> passes;
            h.OnPlainValues([&] {
              StatusOr<std::vector<TestReport>> reports = h.solver->TestAll();
              if (!reports.ok()) return reports.status();
              for (const TestReport& r : *reports) {
                std::vector<std::pair<std::string, float>> scores;
                for (const NamedValue& v : r.scores) scores.emplace_back(v.name, v.value);
                passes.push_back(std::move(scores));
              }
              return Status::Ok();
            });
            return passes;
          },
          "one test pass of every test net: per net, its (output, score) pairs");
  BindSolverClass(m, "get_solver", "",
                  "the solver a solver prototxt describes, with the update rule it names");
  constexpr const char* kTyped = "a solver from a solver prototxt, with this update rule";
  for (const char* type : {"SGD", "Nesterov", "AdaGrad", "RMSProp", "AdaDelta", "Adam"}) {
    BindSolverClass(m, (std::string(type) + "Solver").c_str(), type, kTyped);
  }
}

}  // namespace dtrain::python
