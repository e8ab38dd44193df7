#!/usr/bin/env bash
# Runs a command on the committed HEAD of this checkout inside a brand-new minimal Debian 12 root,
# the machine a new user starts from: debootstrap's minbase plus git and ca-certificates, nothing
# else. A package dtrain needs but scripts/install-deps.sh does not install fails here even when
# the development machine happens to have it. .ci/run runs the README's test command this way.
#
#   bash scripts/fresh-machine.sh [--keep] [--no-shared] [--with FILE]... -- COMMAND...  (as root)
#
# What a run gets: a fresh copy of the cached base root, HEAD cloned to /root/dtrain (committed
# files only), ../shared copied to /root/shared when it exists and --no-shared is not given,
# each --with FILE copied to /root/ (a .deb to install, say), /proc, /sys, /dev, a tmpfs /run
# and /tmp, CI=true, and COMMAND run from /root/dtrain. The copy
# is removed afterwards (--keep leaves it and prints where).
#
# Cached between runs on one machine, under DTRAIN_FRESH_CACHE (default /var/tmp/dtrain-fresh):
# the base root as a tarball (made once, about 3 minutes) and the .deb files apt downloads (so a
# rerun installs the same packages without fetching them again; what gets installed is decided
# inside the new root each time). DTRAIN_FRESH_MIRROR overrides the Debian archive (default: the
# first one in this machine's apt sources).
set -euo pipefail

usage="usage: bash scripts/fresh-machine.sh [--keep] [--no-shared] [--with FILE]... -- COMMAND..."
keep=0
with_shared=1
with_files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=1; shift ;;
    --no-shared) with_shared=0; shift ;;
    --with) [ -f "${2:-}" ] || { echo "fresh-machine: --with needs a file, got '${2:-}'" >&2; exit 2; }
            with_files+=("$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"); shift 2 ;;
    --) shift; break ;;
    *) echo "fresh-machine: unknown argument '$1' ($usage)" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "fresh-machine: no command given ($usage)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "fresh-machine: must run as root (debootstrap, chroot and mounts need it)" >&2; exit 2; }

checkout=$(cd "$(dirname "$0")/.." && pwd)
shared=$checkout/../shared
cache=${DTRAIN_FRESH_CACHE:-/var/tmp/dtrain-fresh}
suite=bookworm
base=$cache/$suite-minbase.tar
debs=$cache/apt-archives
mkdir -p "$cache" "$debs/partial"

find_mirror() {
  grep -rhoE 'https?://[^ ]*debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null |
    grep -v security | head -n1 | tr -d ' '
}

make_base_root() {
  local mirror=${DTRAIN_FRESH_MIRROR:-$(find_mirror || true)}
  [ -n "$mirror" ] || { echo "fresh-machine: no Debian archive in /etc/apt/sources*; set DTRAIN_FRESH_MIRROR" >&2; exit 2; }
  if ! command -v debootstrap >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  fi
  echo "fresh-machine: making the $suite base root from $mirror (once; about 3 minutes)"
  local dir
  dir=$(mktemp -d "$cache/base.XXXXXX")
  if ! debootstrap --variant=minbase --include=ca-certificates,git "$suite" "$dir" "$mirror" \
      >"$cache/debootstrap.log" 2>&1; then
    echo "fresh-machine: debootstrap failed; its log: $cache/debootstrap.log" >&2
    rm -rf --one-file-system "$dir"
    exit 1
  fi
  # This machine's apt sources: the same archive, security updates included.
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    cp /etc/apt/sources.list.d/debian.sources "$dir/etc/apt/sources.list.d/"
    : >"$dir/etc/apt/sources.list"
  fi
  tar -C "$dir" -cf "$base.part" . && mv "$base.part" "$base"
  rm -rf --one-file-system "$dir"
}

[ -s "$base" ] || make_base_root

root=$(mktemp -d "$cache/run.XXXXXX")
mounts=()
cleanup() {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
  if [ "$keep" -eq 1 ]; then
    echo "fresh-machine: kept the root at $root"
  else
    rm -rf --one-file-system "$root"
  fi
}
trap cleanup EXIT
mount_in_root() { mount "$@"; mounts+=("${@: -1}"); }

tar -C "$root" -xf "$base"
# mktemp made the root 0700; an installed machine's / is 0755, and package scripts that run as
# another user (munge's) need to traverse it.
chmod 755 "$root"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# An installed machine has a hostname and /etc/hosts; minbase has neither, and `ip netns exec`
# (the multi-host tests) bind-mounts over /etc/hosts, so it must exist.
[ -s "$root/etc/hostname" ] || echo dtrain-fresh >"$root/etc/hostname"
[ -s "$root/etc/hosts" ] ||
  printf '127.0.0.1\tlocalhost\n127.0.1.1\tdtrain-fresh\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"

git clone -q "$checkout" "$root/root/dtrain"
if [ "$with_shared" -eq 1 ] && [ -d "$shared" ]; then cp -r "$shared" "$root/root/shared"; fi
for file in "${with_files[@]}"; do cp "$file" "$root/root/"; done

# The root must be a mount point: `ip netns` runs `mount --make-rslave /` inside it.
mount_in_root --bind "$root" "$root"
mount_in_root -t proc proc "$root/proc"
mount_in_root --rbind /sys "$root/sys"; mount --make-rslave "$root/sys"
mount_in_root --rbind /dev "$root/dev"; mount --make-rslave "$root/dev"
mount_in_root -t tmpfs tmpfs "$root/run"
mount_in_root -t tmpfs -o size=50% tmpfs "$root/tmp"
mount_in_root --bind "$debs" "$root/var/cache/apt/archives"

# This machine's own certificate authorities (a TLS-inspecting egress proxy's): like resolv.conf,
# the network's, which a user's machine on this network has too. pip, which otherwise trusts only
# the bundle it carries, is pointed at the system's.
network_env=()
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null 2>&1 || true
  network_env+=(PIP_CERT=/etc/ssl/certs/ca-certificates.crt)
fi

echo "fresh-machine: $(git -C "$checkout" rev-parse --short HEAD) on a new $suite root: $*"
start=$SECONDS
set +e
chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb CI=true "${network_env[@]}" \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/bash -c 'cd /root/dtrain && "$@"' fresh-machine "$@"
status=$?
set -e
echo "fresh-machine: exit $status after $((SECONDS - start)) s"
exit "$status"
