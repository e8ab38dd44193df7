#include "cluster/ec2_hosts.h"

#include <gtest/gtest.h>

namespace dtrain {
namespace {

using Addresses = std::vector<std::string>;

// As `aws ec2 describe-instances` prints it (trimmed of the many fields dtrain does not read),
// listed out of launch order: two reservations, a stopped and a pending instance, an instance of
// another cluster.
const char* kDescribeInstances = R"({
  "Reservations": [
    {
      "Groups": [],
      "Instances": [
        {
          "AmiLaunchIndex": 1,
          "ImageId": "ami-0fc5d935ebf8bc3bc",
          "InstanceId": "i-0b22a22eec53b9321",
          "InstanceType": "c5n.18xlarge",
          "LaunchTime": "2026-11-30T08:00:05+00:00",
          "Placement": {"AvailabilityZone": "us-east-1a", "GroupName": "dtrain-pg", "Tenancy": "default"},
          "PrivateDnsName": "ip-10-0-1-22.ec2.internal",
          "PrivateIpAddress": "10.0.1.22",
          "PublicIpAddress": "3.91.10.22",
          "State": {"Code": 16, "Name": "running"},
          "SubnetId": "subnet-0a1b2c3d4e5f67890",
          "Tags": [{"Key": "Name", "Value": "dtrain-node"}, {"Key": "cluster", "Value": "dtrain"}]
        },
        {
          "AmiLaunchIndex": 0,
          "InstanceId": "i-0c33a22eec53b9322",
          "InstanceType": "c5n.18xlarge",
          "LaunchTime": "2026-11-30T08:00:05+00:00",
          "PrivateIpAddress": "10.0.1.11",
          "State": {"Code": 16, "Name": "running"},
          "Tags": [{"Key": "cluster", "Value": "dtrain"}]
        },
        {
          "AmiLaunchIndex": 2,
          "InstanceId": "i-0d44a22eec53b9323",
          "LaunchTime": "2026-11-30T08:00:05+00:00",
          "PrivateIpAddress": "10.0.1.33",
          "State": {"Code": 80, "Name": "stopped"},
          "Tags": [{"Key": "cluster", "Value": "dtrain"}]
        }
      ],
      "OwnerId": "123456789012",
      "ReservationId": "r-0123456789abcdef0"
    },
    {
      "Instances": [
        {
          "AmiLaunchIndex": 0,
          "InstanceId": "i-0a11a22eec53b9320",
          "LaunchTime": "2026-11-30T07:59:01+00:00",
          "PrivateIpAddress": "10.0.1.5",
          "State": {"Code": 16, "Name": "running"},
          "Tags": [{"Key": "cluster", "Value": "dtrain"}, {"Key": "role", "Value": "master"}]
        },
        {
          "AmiLaunchIndex": 1,
          "InstanceId": "i-0e55a22eec53b9324",
          "LaunchTime": "2026-11-30T07:59:01+00:00",
          "PrivateIpAddress": "10.0.1.44",
          "State": {"Code": 16, "Name": "running"},
          "Tags": [{"Key": "cluster", "Value": "other"}]
        },
        {
          "AmiLaunchIndex": 2,
          "InstanceId": "i-0f66a22eec53b9325",
          "LaunchTime": "2026-11-30T07:59:01+00:00",
          "State": {"Code": 0, "Name": "pending"}
        }
      ],
      "ReservationId": "r-0fedcba9876543210"
    }
  ]
})";

TEST(Ec2HostsTest, RunningInstancesInLaunchOrder) {
  auto all = Ec2PrivateAddresses(kDescribeInstances, "i.json", std::nullopt);
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(*all, (Addresses{"10.0.1.5", "10.0.1.44", "10.0.1.11", "10.0.1.22"}));
  auto tagged =
      Ec2PrivateAddresses(kDescribeInstances, "i.json", Ec2TagFilter{"cluster", "dtrain"});
  ASSERT_TRUE(tagged.ok()) << tagged.status().message();
  EXPECT_EQ(*tagged, (Addresses{"10.0.1.5", "10.0.1.11", "10.0.1.22"}));
  EXPECT_EQ(
      Ec2PrivateAddresses(kDescribeInstances, "i.json", Ec2TagFilter{"role", "master"}).value(),
      Addresses{"10.0.1.5"});
}

TEST(Ec2HostsTest, TagFilterSyntax) {
  auto tag = ParseEc2TagFilter("aws:parallelcluster:node-type=Compute");
  ASSERT_TRUE(tag.ok());
  EXPECT_EQ(tag->key, "aws:parallelcluster:node-type");
  EXPECT_EQ(tag->value, "Compute");
  EXPECT_EQ(ParseEc2TagFilter("k=a=b")->value, "a=b");
  EXPECT_EQ(ParseEc2TagFilter("k=")->value, "");
  EXPECT_EQ(ParseEc2TagFilter("cluster").status().message(),
            "bad tag filter 'cluster' (expected KEY=VALUE)");
  EXPECT_FALSE(ParseEc2TagFilter("=x").ok());
}

TEST(Ec2HostsTest, ErrorsNameTheFileAndTheInstance) {
  auto error = [](const std::string& json) {
    return Ec2PrivateAddresses(json, "i.json", std::nullopt).status().message();
  };
  EXPECT_EQ(error(R"({"Reservations": [)").rfind("i.json: not valid JSON: ", 0), 0u);
  // nlohmann-json throws out_of_range, not parse_error, for this (found by the fuzzer).
  EXPECT_EQ(error(R"({"Reservations": [], "x": 222e510})").rfind("i.json: not valid JSON: ", 0),
            0u);
  EXPECT_EQ(error(R"({"Instances": []})"),
            "i.json: no Reservations array (expected the output of `aws ec2 describe-instances "
            "--output json`)");
  EXPECT_EQ(error(R"({"Reservations": [{}]})"), "i.json: Reservations[0]: no Instances array");
  EXPECT_EQ(error(R"({"Reservations": [{"Instances": [{"State": {"Name": "running"}}]}]})"),
            "i.json: Reservations[0].Instances[0]: no InstanceId");
  EXPECT_EQ(error(R"({"Reservations": [{"Instances": [{"InstanceId": "i-1"}]}]})"),
            "i.json: Reservations[0].Instances[0] (i-1): no State object");
  EXPECT_EQ(
      error(
          R"({"Reservations": [{"Instances": [{"InstanceId": "i-1", "State": {"Name": "running"}}]}]})"),
      "i.json: Reservations[0].Instances[0] (i-1): no PrivateIpAddress");
  EXPECT_EQ(
      error(R"({"Reservations": [{"Instances": [{"InstanceId": "i-1", "State": {"Name": 16}}]}]})"),
      "i.json: Reservations[0].Instances[0] (i-1).State: Name is not a string");
  EXPECT_EQ(error(R"({"Reservations": []})"),
            "i.json: no running instance (0 instances, 0 running)");
  EXPECT_EQ(Ec2PrivateAddresses(kDescribeInstances, "i.json", Ec2TagFilter{"cluster", "none"})
                .status()
                .message(),
            "i.json: no running instance tagged cluster=none (6 instances, 4 running)");
}

}  // namespace
}  // namespace dtrain
