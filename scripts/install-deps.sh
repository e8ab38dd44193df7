#!/usr/bin/env bash
# Installs every Debian 12 package that dtrain's build, tests and examples need.
# Idempotent: packages already present are skipped; safe to re-run. Extra package names given as
# arguments are installed too (bench/install-bench-deps.sh uses this); packages named in
# DTRAIN_SKIP_PACKAGES (space-separated) are not (the AWS bootstrap of `dtrain cluster aws` skips
# Slurm and munge, which ParallelCluster brings its own of).
set -euo pipefail

packages=(
  build-essential cmake pkg-config ninja-build
  libprotobuf-dev protobuf-compiler
  liblmdb-dev lmdb-utils
  libopenblas-dev
  # Debian's dnnl-config.cmake requires OpenCL, which libdnnl-dev only recommends.
  libdnnl-dev ocl-icd-opencl-dev
  openmpi-bin libopenmpi-dev
  iproute2 iputils-ping util-linux  # tests/cluster/: network-namespace hosts
  # tests/cluster/slurm_cluster.sh: slurmctld, slurmd, srun and munged. Slurm's mpi_pmix_v4.so
  # (slurm-wlm-basic-plugins) loads the unversioned libpmix.so at run time, which only libpmix-dev has.
  slurm-wlm munge libpmix-dev
  zlib1g-dev nlohmann-json3-dev
  libturbojpeg0-dev libpng-dev   # ImageData layer, convert imageset, encoded Datums
  libxml2-dev                    # convert annoset: PASCAL VOC XML annotations
  libhdf5-dev                    # HDF5Data and HDF5Output layers
  libavformat-dev libavcodec-dev libswscale-dev libavutil-dev  # VideoData layer: FFmpeg
  libasio-dev libssl-dev         # data server: TCP transport (standalone Asio), HMAC (OpenSSL)
  libcairo2-dev                  # dtrain plot: training curves as PNG or SVG
  libonnx-dev                    # dtrain export onnx: ONNX's schema, checker and shape inference
  libgtest-dev
  clang libclang-rt-14-dev libomp-14-dev  # scripts/fuzz.sh: libFuzzer, ASan, UBSan, clang's OpenMP
  clang-format  # scripts/check-format.sh: the code follows .clang-format
  dataset-fashion-mnist
  python3-dev pybind11-dev      # the Python module (src/python/)
  file dpkg-dev                 # cpack -G DEB: dpkg-shlibdeps finds the package's dependencies
  python3 python3-numpy python3-venv  # python3-venv: scripts/install-test-oracles.sh
  python3-protobuf                 # caffe.proto.caffe_pb2 of the caffe package (src/python/caffe/)
  python3-yaml python3-jsonschema  # tests: generated ParallelCluster configs against deploy/aws/ schema
  python3-h5py                     # tests: HDF5 files written and read by h5py, as Caffe users do
  curl procps  # deploy/aws/spot-interruption-watch.sh (and its test): IMDS requests, pgrep
  "$@"
)

missing=()
skip=" ${DTRAIN_SKIP_PACKAGES:-} "
for p in "${packages[@]}"; do
  [[ "$skip" == *" $p "* ]] && continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
