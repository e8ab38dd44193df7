#include "cluster/parallelcluster.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "cluster/ec2_instance_types.h"
#include "cluster/yaml_writer.h"

namespace dtrain {
namespace {

ParallelClusterOptions Options() {
  ParallelClusterOptions o;
  o.nodes = 8;
  o.instance_type = "c5n.18xlarge";
  o.key_name = "my-key";
  o.subnet = "subnet-0123456789abcdef0";
  o.region = "us-east-1";
  o.efa = true;
  o.bootstrap_s3 = "s3://dtrain-bucket/setup/bootstrap.sh";
  return o;
}

TEST(ParallelClusterTest, TheWholeConfig) {
  auto files = ParallelClusterConfig(Options());
  ASSERT_TRUE(files.ok()) << files.status().message();
  EXPECT_EQ(files->cluster_yaml,
            R"(# AWS ParallelCluster 3 configuration for dtrain, written by `dtrain cluster aws`.
# pcluster create-cluster --cluster-name dtrain --cluster-configuration cluster.yaml
Region: us-east-1
Image:
  Os: ubuntu2204
# Builds dtrain (for its processor, which is the compute nodes'), runs Slurm's controller;
# ssh here.
HeadNode:
  InstanceType: c5.xlarge
  Networking:
    SubnetId: subnet-0123456789abcdef0
  Ssh:
    KeyName: my-key
  # Fetches dtrain to /shared/dtrain, installs its packages, builds it.
  CustomActions:
    OnNodeConfigured:
      Script: s3://dtrain-bucket/setup/bootstrap.sh
      Args:
        - head
  Iam:
    S3Access:
      - BucketName: dtrain-bucket
        EnableWriteAccess: false
Scheduling:
  Scheduler: slurm
  SlurmQueues:
    - Name: compute
      CapacityType: ONDEMAND
      # Up to 8 x c5n.18xlarge (72 vCPUs each), started when jobs need them.
      ComputeResources:
        - Name: c5n18xlarge
          InstanceType: c5n.18xlarge
          MinCount: 0
          MaxCount: 8
          Efa:
            Enabled: true
      Networking:
        SubnetIds:
          - subnet-0123456789abcdef0
        PlacementGroup:
          Enabled: true
      # Installs dtrain's packages; runs the head node's build from /shared.
      CustomActions:
        OnNodeConfigured:
          Script: s3://dtrain-bucket/setup/bootstrap.sh
          Args:
            - compute
      Iam:
        S3Access:
          - BucketName: dtrain-bucket
            EnableWriteAccess: false
# On every node at /shared: dtrain's source and build, data, snapshots.
SharedStorage:
  - MountDir: /shared
    Name: dtrain-shared
    StorageType: Efs
    EfsSettings:
      PerformanceMode: generalPurpose
      ThroughputMode: bursting
      Encrypted: true
# The head node installs dtrain's packages and builds it while the cluster is
# created: allow it an hour (ParallelCluster's default is 30 minutes).
DevSettings:
  Timeouts:
    HeadNodeBootstrapTimeout: 3600
)");
  // The source defaults to a tarball next to bootstrap.sh, which the notes say to upload.
  EXPECT_NE(files->bootstrap_sh.find("\nSOURCE=s3://dtrain-bucket/setup/dtrain-src.tar.gz\n"),
            std::string::npos);
  EXPECT_NE(files->bootstrap_sh.find("\nDTRAIN=/shared/dtrain\n"), std::string::npos);
  ASSERT_EQ(files->notes.size(), 1u);
  EXPECT_NE(files->notes[0].find("git archive"), std::string::npos);
}

TEST(ParallelClusterTest, FsxNoEfaOtherHeadAndSources) {
  ParallelClusterOptions o = Options();
  o.instance_type = "c5.xlarge";
  o.efa = false;
  o.shared_storage = "fsx";
  o.head_instance_type = "c5.2xlarge";
  o.source = "s3://other-bucket/dtrain.tar.gz";
  auto files = ParallelClusterConfig(o);
  ASSERT_TRUE(files.ok()) << files.status().message();
  const std::string& y = files->cluster_yaml;
  EXPECT_EQ(y.find("Efa"), std::string::npos);
  EXPECT_NE(y.find("  InstanceType: c5.2xlarge\n"), std::string::npos);
  EXPECT_NE(
      y.find("    StorageType: FsxLustre\n    FsxLustreSettings:\n      StorageCapacity: 1200\n"
             "      DeploymentType: SCRATCH_2\n"),
      std::string::npos)
      << y;
  EXPECT_NE(y.find("      - BucketName: dtrain-bucket\n        EnableWriteAccess: false\n"
                   "      - BucketName: other-bucket\n"),
            std::string::npos)
      << y;
  EXPECT_TRUE(files->notes.empty());
  o.source = "https://github.com/example/dtrain.git";
  files = ParallelClusterConfig(o);
  ASSERT_TRUE(files.ok());
  EXPECT_NE(files->bootstrap_sh.find("\nSOURCE=https://github.com/example/dtrain.git\n"),
            std::string::npos);
}

// A Debian package as the source: every node installs it (scripts/check-deb.sh installs a .deb the
// same way on a fresh root), nothing is built, and the script is valid bash.
TEST(ParallelClusterTest, APackageSourceIsInstalledOnEveryNode) {
  ParallelClusterOptions o = Options();
  o.source = "s3://dtrain-bucket/dtrain_0.5.0_amd64.deb";
  auto files = ParallelClusterConfig(o);
  ASSERT_TRUE(files.ok()) << files.status().message();
  const std::string& sh = files->bootstrap_sh;
  EXPECT_NE(sh.find("\nSOURCE=s3://dtrain-bucket/dtrain_0.5.0_amd64.deb\n"), std::string::npos);
  const size_t branch = sh.find("  *.deb)\n    install_package\n");
  ASSERT_NE(branch, std::string::npos) << sh;
  EXPECT_LT(branch, sh.find("bash \"$DTRAIN/scripts/build.sh\""));
  EXPECT_NE(sh.find("apt-get install -y -qq \"$deb\""), std::string::npos);
  EXPECT_NE(sh.find("bash /usr/share/dtrain/spot-interruption-watch.sh"), std::string::npos);
  const std::string path = ::testing::TempDir() + "/bootstrap_deb.sh";
  {
    std::ofstream out(path);
    out << sh;
  }
  EXPECT_EQ(std::system(("bash -n " + path).c_str()), 0);
}

TEST(ParallelClusterTest, PlaceholdersAreNamedInNotes) {
  ParallelClusterOptions o = Options();
  o.bootstrap_s3 = "";
  o.os = "alinux2";
  auto files = ParallelClusterConfig(o);
  ASSERT_TRUE(files.ok()) << files.status().message();
  EXPECT_NE(files->cluster_yaml.find("Script: s3://your-bucket/dtrain/bootstrap.sh\n"),
            std::string::npos);
  EXPECT_NE(files->cluster_yaml.find("  Os: alinux2\n"), std::string::npos);
  ASSERT_EQ(files->notes.size(), 3u);
  EXPECT_NE(files->notes[0].find("--bootstrap-s3"), std::string::npos);
  EXPECT_NE(files->notes[2].find("alinux2"), std::string::npos);
}

TEST(ParallelClusterTest, BadOptionsAreClearErrors) {
  auto error = [](void (*change)(ParallelClusterOptions&)) {
    ParallelClusterOptions o = Options();
    change(o);
    auto files = ParallelClusterConfig(o);
    return files.ok() ? std::string("ok") : files.status().message();
  };
  EXPECT_EQ(error([](ParallelClusterOptions& o) { o.nodes = 0; }),
            "--nodes must be 1 to 1000, got 0");
  EXPECT_EQ(error([](ParallelClusterOptions& o) { o.nodes = 1001; }),
            "--nodes must be 1 to 1000, got 1001");
  EXPECT_EQ(
      error([](ParallelClusterOptions& o) { o.instance_type = "p4d.24xlarge"; })
          .rfind(
              "--instance-type 'p4d.24xlarge' is not one dtrain knows; known: c5.large, c5.xlarge,",
              0),
      0u);
  EXPECT_EQ(error([](ParallelClusterOptions& o) { o.instance_type = "c5.xlarge"; })
                .rfind("--efa: c5.xlarge has no EFA; types with EFA: c5n.9xlarge, c5n.18xlarge, "
                       "c6i.32xlarge",
                       0),
            0u);
  EXPECT_EQ(error([](ParallelClusterOptions& o) { o.head_instance_type = "c7i.xlarge"; }),
            "--head-instance-type c7i.xlarge has a sapphirerapids processor, the compute nodes "
            "(c5n.18xlarge) a skylake one: the head node builds dtrain for its own processor "
            "(-march=native) and the compute nodes run that build, so they must match");
  EXPECT_EQ(
      error([](ParallelClusterOptions& o) {
        o.instance_type = "hpc6id.32xlarge";
        o.head_instance_type = "hpc6id.32xlarge";
      }),
      "--head-instance-type hpc6id.32xlarge is an HPC type: ParallelCluster refuses hpc6id for a "
      "head node, and the others idle at HPC prices; use e.g. c6i.xlarge");
  EXPECT_EQ(error([](ParallelClusterOptions& o) { o.region = "us-east"; }),
            "--region 'us-east': expected a region name like us-east-1");
  EXPECT_EQ(error([](ParallelClusterOptions& o) { o.region = "US-EAST-1"; }),
            "--region 'US-EAST-1': expected a region name like us-east-1");
  EXPECT_EQ(error([](ParallelClusterOptions& o) { o.region = "us-gov-west-1"; }), "ok");
  EXPECT_EQ(
      error([](ParallelClusterOptions& o) { o.subnet = "sub-123"; }),
      "--subnet 'sub-123': expected subnet- and 8 or 17 hex digits (subnet-0123456789abcdef0)");
  EXPECT_EQ(
      error([](ParallelClusterOptions& o) { o.subnet = "subnet-xyz12345"; }).rfind("--subnet", 0),
      0u);
  EXPECT_EQ(error([](ParallelClusterOptions& o) {
              o.key_name = "my key";
            }).rfind("--key-name 'my key'", 0),
            0u);
  EXPECT_EQ(error([](ParallelClusterOptions& o) { o.shared_storage = "nfs"; }),
            "--shared-storage 'nfs': expected efs or fsx");
  EXPECT_EQ(error([](ParallelClusterOptions& o) { o.os = "centos7"; }),
            "--os 'centos7': expected ubuntu2204 or alinux2");
  EXPECT_EQ(error([](ParallelClusterOptions& o) {
              o.bootstrap_s3 = "https://x/b.sh";
            }).rfind("--bootstrap-s3 'https://x/b.sh': expected s3://BUCKET/KEY", 0),
            0u);
  EXPECT_EQ(error([](ParallelClusterOptions& o) { o.source = "/home/me/dtrain"; }),
            "--source '/home/me/dtrain': expected s3://BUCKET/KEY.tar.gz or a git URL (https://... "
            "or git@...)");
}

TEST(Ec2InstanceTypesTest, KnownFacts) {
  for (const char* efa :
       {"c5n.18xlarge", "c6in.32xlarge", "hpc6a.48xlarge", "c7i.48xlarge", "c6i.32xlarge"}) {
    ASSERT_NE(FindEc2InstanceType(efa), nullptr) << efa;
    EXPECT_TRUE(FindEc2InstanceType(efa)->efa) << efa;
  }
  for (const char* plain :
       {"c5.xlarge", "c5.18xlarge", "m5.24xlarge", "r5.24xlarge", "c5n.4xlarge"}) {
    ASSERT_NE(FindEc2InstanceType(plain), nullptr) << plain;
    EXPECT_FALSE(FindEc2InstanceType(plain)->efa) << plain;
  }
  EXPECT_EQ(FindEc2InstanceType("c5n.18xlarge")->vcpus, 72);
  EXPECT_EQ(FindEc2InstanceType("hpc6a.48xlarge")->vcpus, 96);
  EXPECT_EQ(FindEc2InstanceType("c5x.large"), nullptr);
  EXPECT_STREQ(SmallestWithCpu("icelake", 4)->name, "c6i.xlarge");
  EXPECT_STREQ(SmallestWithCpu("milan", 4)->name, "c6a.xlarge");
  EXPECT_STREQ(SmallestWithCpu("graviton3", 4)->name, "c7g.xlarge");
  for (const Ec2InstanceType& t : Ec2InstanceTypes()) {
    EXPECT_NE(SmallestWithCpu(t.cpu, 4), nullptr) << t.name << ": no head node type";
  }
}

TEST(YamlWriterTest, ScalarsReadBackAsWritten) {
  EXPECT_EQ(YamlScalar("us-east-1"), "us-east-1");
  EXPECT_EQ(YamlScalar("s3://b/k.sh"), "s3://b/k.sh");
  EXPECT_EQ(YamlScalar("/shared"), "/shared");
  for (const char* quoted : {"yes", "no", "on", "off", "true", "null", "Y", "NO"}) {
    EXPECT_EQ(YamlScalar(quoted), "\"" + std::string(quoted) + "\"");
  }
  EXPECT_EQ(YamlScalar("123"), "\"123\"");
  EXPECT_EQ(YamlScalar(""), "\"\"");
  EXPECT_EQ(YamlScalar("a: b"), "\"a: b\"");
  EXPECT_EQ(YamlScalar("x #y"), "\"x #y\"");
  EXPECT_EQ(YamlScalar("-dash"), "\"-dash\"");
  EXPECT_EQ(YamlScalar("say \"hi\"\\"), "\"say \\\"hi\\\"\\\\\"");
  EXPECT_EQ(YamlScalar("tab\there"), "\"tab\\x09here\"");
}

TEST(YamlWriterTest, BlocksListsAndComments) {
  Yaml doc = Yaml::Map();
  doc.Set("A", Yaml::Int(1), "first\nsecond")
      .Set("B", Yaml::Map().Set("C", Yaml::Bool(true)).Set("D", Yaml::List()))
      .Set(
          "E",
          Yaml::List()
              .Add(Yaml::String("x"))
              .Add(Yaml::Map().Set("F", Yaml::String("y")).Set("G", Yaml::List().Add(Yaml::Int(2))))
              .Add(Yaml::List().Add(Yaml::String("z"))));
  EXPECT_EQ(doc.Emit(),
            "# first\n# second\nA: 1\nB:\n  C: true\n  D: []\nE:\n  - x\n  - F: \"y\"\n    G:\n    "
            "  - 2\n"
            "  - - z\n");
}

}  // namespace
}  // namespace dtrain
