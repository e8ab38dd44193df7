#include "cluster/parallelcluster_bootstrap.h"

#include "cluster/shell_quote.h"

namespace dtrain {

std::string ParallelClusterBootstrap(const std::string& source, const std::string& shared) {
  std::string s = R"SH(#!/bin/bash
# dtrain's node bootstrap for AWS ParallelCluster 3 (CustomActions: OnNodeConfigured), written by
# `dtrain cluster aws`. Argument: head | compute.
#   head:    fetch dtrain's source to $DTRAIN (once), install its packages, build it there;
#   compute: wait for the head node's build, install the packages, use that build from $DTRAIN.
# When the source is a Debian package (SOURCE ends in .deb: s3://, https:// or a path), every
# node installs it with apt-get instead (its libraries come with it) and nothing is built.
set -euo pipefail
ROLE=${1:-}
case "$ROLE" in
  head | compute) ;;
  *) echo "usage: bootstrap.sh head|compute" >&2; exit 2 ;;
esac
)SH";
  s += "SOURCE=" + ShellQuote(source) + "\n";
  s += "DTRAIN=" + ShellQuote(shared + "/dtrain") + "\n";
  s += R"SH(# ParallelCluster runs its own Slurm and munge: keep Debian's off the nodes.
export DTRAIN_SKIP_PACKAGES="slurm-wlm munge libpmix-dev clang libclang-rt-14-dev"
exec > >(tee -a /var/log/dtrain-bootstrap.log) 2>&1
echo "dtrain bootstrap ($ROLE) on $(hostname) at $(date -u +%FT%TZ)"

fetch_source() {
  if [ -f "$DTRAIN/CMakeLists.txt" ]; then
    echo "dtrain bootstrap: $DTRAIN is already there; keeping it"
    return
  fi
  mkdir -p "$DTRAIN"
  case "$SOURCE" in
    s3://*)
      aws s3 cp "$SOURCE" /tmp/dtrain-src.tar.gz
      tar -xzf /tmp/dtrain-src.tar.gz -C "$DTRAIN"
      rm -f /tmp/dtrain-src.tar.gz ;;
    *)
      command -v git > /dev/null || { apt-get update -qq && apt-get install -y -qq git; }
      git clone --depth 1 "$SOURCE" "$DTRAIN" ;;
  esac
}

# A package built for the nodes' release (scripts/build-deb.sh on it), installed on each node.
install_package() {
  command -v apt-get > /dev/null || { echo "dtrain bootstrap: no apt-get here for $SOURCE"; exit 1; }
  local deb=/tmp/dtrain.deb
  case "$SOURCE" in
    s3://*) aws s3 cp "$SOURCE" "$deb" ;;
    http://* | https://*)
      command -v curl > /dev/null || { apt-get update -qq && apt-get install -y -qq curl; }
      curl -fsSL -o "$deb" "$SOURCE" ;;
    *) cp "$SOURCE" "$deb" ;;
  esac
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb"
  rm -f "$deb"
  echo "dtrain bootstrap: installed $(dtrain version) from $SOURCE"
}

case "$SOURCE" in
  *.deb)
    install_package
    if [ "$ROLE" = compute ]; then
      nohup bash /usr/share/dtrain/spot-interruption-watch.sh > /var/log/dtrain-spot-watch.log 2>&1 &
    fi
    exit 0 ;;
esac

case "$ROLE" in
  head)
    fetch_source
    if ! command -v apt-get > /dev/null; then
      echo "dtrain bootstrap: no apt-get here: source fetched to $DTRAIN; install the packages" \
        "of scripts/install-deps.sh and run scripts/build.sh by hand (docs/aws.md)"
      exit 0
    fi
    bash "$DTRAIN/scripts/install-deps.sh"
    bash "$DTRAIN/scripts/build.sh" -DDTRAIN_BUILD_TESTS=OFF
    ln -sf "$DTRAIN/build/dtrain" /usr/local/bin/dtrain
    touch "$DTRAIN/build/.bootstrap-done"
    echo "dtrain bootstrap: built $DTRAIN/build/dtrain" ;;
  compute)
    command -v apt-get > /dev/null || { echo "dtrain bootstrap: no apt-get here: nothing to do"; exit 0; }
    for _ in $(seq 150); do  # the head node has built before compute nodes start; wait 25 min at most
      [ -f "$DTRAIN/build/.bootstrap-done" ] && break
      sleep 10
    done
    [ -f "$DTRAIN/build/.bootstrap-done" ] || { echo "dtrain bootstrap: no build in $DTRAIN/build"; exit 1; }
    bash "$DTRAIN/scripts/install-deps.sh"
    ln -sf "$DTRAIN/build/dtrain" /usr/local/bin/dtrain
    # A spot interruption notice becomes a snapshot and a restart without this node (docs/aws.md);
    # an on-demand node never gets one.
    nohup bash "$DTRAIN/deploy/aws/spot-interruption-watch.sh" > /var/log/dtrain-spot-watch.log 2>&1 &
    echo "dtrain bootstrap: using $DTRAIN/build/dtrain" ;;
esac
)SH";
  return s;
}

}  // namespace dtrain
