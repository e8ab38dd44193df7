// Generated ParallelCluster configs checked offline against deploy/aws/parallelcluster3.schema.json
// by a real JSON Schema validator: Debian's /usr/bin/python3 with python3-yaml and
// python3-jsonschema (scripts/install-deps.sh), through deploy/aws/check_config.py. Skipped where
// those are missing.
#include <gtest/gtest.h>

#include "cluster/parallelcluster.h"
#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

const std::string kCheck =
    std::string("/usr/bin/python3 '") + DTRAIN_SOURCE_DIR + "/deploy/aws/check_config.py' ";

class ParallelClusterSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::RunShell("/usr/bin/python3 -c 'import yaml, jsonschema'").exit_code != 0) {
      GTEST_SKIP() << "/usr/bin/python3 with python3-yaml and python3-jsonschema is not installed "
                      "(scripts/install-deps.sh)";
    }
  }

  // check_config.py's verdict on `yaml`.
  testing::CommandResult Check(const std::string& yaml) {
    const std::string path = dir_.Path("cluster.yaml");
    testing::WriteTextFile(path, yaml);
    return testing::RunShell(kCheck + path);
  }

  testing::TempDir dir_;
};

ParallelClusterOptions Base() {
  ParallelClusterOptions o;
  o.nodes = 4;
  o.instance_type = "c5n.18xlarge";
  o.key_name = "lab-key";
  o.subnet = "subnet-0a1b2c3d";
  o.region = "us-east-1";
  o.bootstrap_s3 = "s3://dtrain-lab/bootstrap.sh";
  return o;
}

TEST_F(ParallelClusterSchemaTest, EveryGeneratedConfigPasses) {
  std::vector<ParallelClusterOptions> configs;
  configs.push_back(Base());
  {
    ParallelClusterOptions o = Base();
    o.efa = true;
    o.nodes = 1000;
    configs.push_back(o);
  }
  {
    ParallelClusterOptions o = Base();
    o.instance_type = "c6in.32xlarge";
    o.efa = true;
    o.shared_storage = "fsx";
    o.region = "eu-central-1";
    o.subnet = "subnet-0123456789abcdef0";
    configs.push_back(o);
  }
  {
    ParallelClusterOptions o = Base();
    o.instance_type = "hpc6a.48xlarge";
    o.efa = true;
    o.os = "alinux2";
    o.bootstrap_s3 = "";  // the placeholder must pass too
    configs.push_back(o);
  }
  {
    ParallelClusterOptions o = Base();
    o.instance_type = "c5.xlarge";
    o.nodes = 1;
    o.head_instance_type = "c5.2xlarge";
    o.source = "s3://other-bucket/src/dtrain.tar.gz";
    o.key_name = "team.key@2024";
    configs.push_back(o);
  }
  {
    ParallelClusterOptions o = Base();
    o.instance_type = "hpc7g.16xlarge";
    o.efa = true;
    o.region = "us-gov-west-1";
    o.source = "https://github.com/example/dtrain.git";
    configs.push_back(o);
  }
  for (size_t i = 0; i < configs.size(); ++i) {
    auto files = ParallelClusterConfig(configs[i]);
    ASSERT_TRUE(files.ok()) << i << ": " << files.status().message();
    auto r = Check(files->cluster_yaml);
    EXPECT_EQ(r.exit_code, 0) << "config " << i << ":\n" << r.output << files->cluster_yaml;
    EXPECT_NE(r.output.find(": ok"), std::string::npos) << r.output;
  }
}

// The emitter's quoting, read back by PyYAML: every value is the string, number or boolean
// that was meant.
TEST_F(ParallelClusterSchemaTest, YamlReadsBackAsMeant) {
  ParallelClusterOptions o = Base();
  o.key_name = "no";  // a YAML 1.1 boolean when bare
  o.efa = true;
  auto files = ParallelClusterConfig(o);
  ASSERT_TRUE(files.ok());
  testing::WriteTextFile(dir_.Path("c.yaml"), files->cluster_yaml);
  auto r = testing::RunShell(
      "/usr/bin/python3 -c 'import sys, yaml; c = yaml.safe_load(open(sys.argv[1])); "
      "q = c[\"Scheduling\"][\"SlurmQueues\"][0][\"ComputeResources\"][0]; "
      "print(repr(c[\"HeadNode\"][\"Ssh\"][\"KeyName\"]), repr(q[\"MaxCount\"]), "
      "repr(q[\"Efa\"][\"Enabled\"]), "
      "repr(c[\"HeadNode\"][\"CustomActions\"][\"OnNodeConfigured\"][\"Args\"]))' " +
      dir_.Path("c.yaml"));
  EXPECT_EQ(r.output, "'no' 4 True ['head']\n");
}

// The schema is not a rubber stamp: a wrong key or value anywhere fails, saying where.
TEST_F(ParallelClusterSchemaTest, WrongKeysAndValuesFail) {
  auto files = ParallelClusterConfig(Base());
  ASSERT_TRUE(files.ok());
  const std::string good = files->cluster_yaml;
  auto replaced = [&good](const std::string& from, const std::string& to) {
    const size_t at = good.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    std::string bad = good;
    return at == std::string::npos ? bad : bad.replace(at, from.size(), to);
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {replaced("HeadNode:", "Headnode:"), "'Headnode' was unexpected"},
      {replaced("Scheduler: slurm", "Scheduler: pbs"), "Scheduling/Scheduler: 'pbs' is not one of"},
      {replaced("Os: ubuntu2204", "Os: windows"), "Image/Os: 'windows' is not one of"},
      {replaced("Region: us-east-1", "Region: useast"), "Region: 'useast' does not match"},
      {replaced("SubnetId: subnet-0a1b2c3d", "SubnetId: sub-1"), "HeadNode/Networking/SubnetId"},
      {replaced("MaxCount: 4", "MaxCount: 0"), "MaxCount: 0 is less than the minimum of 1"},
      {replaced("MinCount: 0", "MinCount: -1"), "MinCount: -1 is less than the minimum of 0"},
      {replaced("MaxCount: 4", "MaxCount: four"), "MaxCount: 'four' is not of type 'integer'"},
      {replaced("InstanceType: c5n.18xlarge", "InstanceType: C5N 18XL"),
       "ComputeResources/0/InstanceType"},
      {replaced("Enabled: true", "Enabled: \"yes\""),
       "PlacementGroup/Enabled: 'yes' is not of type 'boolean'"},
      {replaced("StorageType: Efs", "StorageType: Nfs"),
       "SharedStorage/0/StorageType: 'Nfs' is not one of"},
      {replaced("MountDir: /shared", "MountDir: shared"), "SharedStorage/0/MountDir"},
      {replaced("PerformanceMode: generalPurpose", "PerformanceMode: fast"),
       "EfsSettings/PerformanceMode"},
      {replaced("      CapacityType: ONDEMAND\n",
                "      CapacityType: ONDEMAND\n      Colour: red\n"),
       "'Colour' was unexpected"},
      {replaced("Script: s3://dtrain-lab/bootstrap.sh", "Script: /tmp/bootstrap.sh"),
       "OnNodeConfigured"},
      {replaced("HeadNodeBootstrapTimeout: 3600", "HeadNodeBootstrapTimeout: 0"),
       "HeadNodeBootstrapTimeout: 0 is less than the minimum of 1"},
  };
  for (const auto& [yaml, message] : cases) {
    auto r = Check(yaml);
    EXPECT_EQ(r.exit_code, 1) << message << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  }
  auto r = Check("Region: [unclosed\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("not YAML"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace dtrain
