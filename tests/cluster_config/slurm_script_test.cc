#include "cluster/slurm_script.h"

#include <gtest/gtest.h>

#include "cluster/shell_quote.h"

namespace dtrain {
namespace {

SlurmScriptOptions Options() {
  SlurmScriptOptions o;
  o.nodes = 4;
  o.ntasks_per_node = 2;
  o.time = "1-02:00:00";
  o.partition = "compute";
  o.job_name = "lenet";
  o.dtrain = "/shared/dtrain/build/dtrain";
  o.train_args = {"train", "--solver=models/lenet_fashion/solver.prototxt", "--metrics=m.jsonl"};
  return o;
}

TEST(SlurmScriptTest, TheWholeScript) {
  auto script = SlurmScript(Options());
  ASSERT_TRUE(script.ok()) << script.status().message();
  EXPECT_EQ(*script, R"(#!/bin/bash
# dtrain train on 4 node(s) x 2 rank(s), started by Slurm (srun --mpi=pmix).
# Written by `dtrain cluster slurm-script`; submit with: sbatch THIS_FILE
#SBATCH --job-name=lenet
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=1-02:00:00
#SBATCH --partition=compute
#SBATCH --output=%x-%j.out
set -euo pipefail

# Compute threads per rank: the cores Slurm gives each task (--cpus-per-task), else this
# node's cores shared among its 2 rank(s).
if [ -n "${SLURM_CPUS_PER_TASK:-}" ]; then
  export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
else
  export OMP_NUM_THREADS=$(( $(nproc) / 2 > 0 ? $(nproc) / 2 : 1 ))
fi
echo "dtrain: Slurm job ${SLURM_JOB_ID:-?} on ${SLURM_JOB_NODELIST:-?}:" \
  "${SLURM_NTASKS:-?} rank(s), $OMP_NUM_THREADS thread(s) each"

srun --mpi=pmix --kill-on-bad-exit=1 /shared/dtrain/build/dtrain train --solver=models/lenet_fashion/solver.prototxt --metrics=m.jsonl
)");
}

TEST(SlurmScriptTest, OptionalLinesAndQuotedArguments) {
  SlurmScriptOptions o;
  o.nodes = 1;
  o.cpus_per_task = 36;
  o.log = "logs/train-%j.log";
  o.dtrain = "/opt/my dtrain/dtrain";
  o.train_args = {"train", "-solver", "my solver.prototxt", "--log-dir=it's here", ""};
  auto script = SlurmScript(o);
  ASSERT_TRUE(script.ok()) << script.status().message();
  EXPECT_NE(
      script->find("#SBATCH --job-name=dtrain\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n"
                   "#SBATCH --cpus-per-task=36\n#SBATCH --output=logs/train-%j.log\nset -euo"),
      std::string::npos)
      << *script;
  EXPECT_EQ(script->find("--time"), std::string::npos);
  EXPECT_EQ(script->find("--partition"), std::string::npos);
  EXPECT_NE(
      script->find("\nsrun --mpi=pmix --kill-on-bad-exit=1 '/opt/my dtrain/dtrain' train -solver "
                   "'my solver.prototxt' '--log-dir=it'\\''s here' ''\n"),
      std::string::npos)
      << *script;
}

TEST(SlurmScriptTest, ShellQuoting) {
  EXPECT_EQ(ShellQuote("--solver=a/b_c-1.prototxt"), "--solver=a/b_c-1.prototxt");
  EXPECT_EQ(ShellQuote("a b"), "'a b'");
  EXPECT_EQ(ShellQuote("$HOME"), "'$HOME'");
  EXPECT_EQ(ShellQuote("x;rm -rf /"), "'x;rm -rf /'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellJoin({"a", "b c"}), "a 'b c'");
}

TEST(SlurmScriptTest, TimeLimits) {
  for (const char* ok : {"90", "0", "02:30:00", "1-12:00:00", "100:00:00", "7-23:59:59"}) {
    EXPECT_TRUE(IsSlurmTimeLimit(ok)) << ok;
  }
  for (const char* bad :
       {"", "1h", "2:3:4", "02:60:00", "1-24:00:00", "-1", "1-", "1:00", "01:00:61"}) {
    EXPECT_FALSE(IsSlurmTimeLimit(bad)) << bad;
  }
}

TEST(SlurmScriptTest, BadOptionsAreClearErrors) {
  auto error = [](void (*change)(SlurmScriptOptions&)) {
    SlurmScriptOptions o = Options();
    change(o);
    return SlurmScript(o).status().message();
  };
  EXPECT_EQ(error([](SlurmScriptOptions& o) { o.nodes = 0; }), "--nodes must be at least 1, got 0");
  EXPECT_EQ(error([](SlurmScriptOptions& o) { o.ntasks_per_node = -2; }),
            "--ntasks-per-node must be at least 1, got -2");
  EXPECT_EQ(error([](SlurmScriptOptions& o) { o.time = "2h"; }),
            "bad --time '2h': give MINUTES (90) or [D-]HH:MM:SS (02:30:00, 1-12:00:00)");
  EXPECT_EQ(error([](SlurmScriptOptions& o) { o.partition = "a b"; }),
            "bad --partition 'a b': up to 64 letters, digits, '_', '-' or '.'");
  EXPECT_EQ(error([](SlurmScriptOptions& o) { o.job_name = "x;y"; }),
            "bad --job-name 'x;y': 1 to 128 letters, digits, '_', '-', '.' or '+'");
  EXPECT_EQ(error([](SlurmScriptOptions& o) { o.log = "a b.log"; }),
            "bad --log 'a b.log': a file name without blanks or quotes");
  EXPECT_EQ(error([](SlurmScriptOptions& o) { o.train_args = {}; }),
            "give the training command after '--': -- train --solver=S [flags]");
  EXPECT_EQ(error([](SlurmScriptOptions& o) {
              o.train_args = {"test", "--solver=s"};
            }),
            "give the training command after '--': -- train --solver=S [flags]");
  EXPECT_EQ(error([](SlurmScriptOptions& o) {
              o.train_args = {"train", "--weights=w"};
            }),
            "the training command after '--' needs --solver=S");
}

}  // namespace
}  // namespace dtrain
