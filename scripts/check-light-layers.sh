#!/usr/bin/env bash
# Checks that the base headers of layers and nets (layers/layer.h, layers/engine.h, net/net.h) and a
# layer that reads no parameters (SilenceLayer) compile without any generated protobuf header
# (proto/*.pb.h), so that a .proto edit rebuilds only the files that read messages. Each file is
# preprocessed with the compile command that build/compile_commands.json gives its library; the
# check fails naming the file and the .pb.h it reached. Usage: check-light-layers.sh BUILD_DIR
set -euo pipefail
build="${1:?usage: check-light-layers.sh BUILD_DIR}"
cd "$(dirname "$0")/.."
src="$(pwd)/src"
# file to preprocess : the source whose compile command is used
checks=(
  "layers/silence_layer.cc:layers/silence_layer.cc"
  "layers/layer.h:layers/silence_layer.cc"
  "layers/engine.h:layers/silence_layer.cc"
  "net/net.h:net/net.cc"
)
status=0
for check in "${checks[@]}"; do
  file="${check%%:*}" command_of="${check##*:}"
  # The compile command of `command_of`, with its source, output and dependency file left out.
  mapfile -t args < <(python3 - "$build/compile_commands.json" "$src/$command_of" <<'PY'
import json, shlex, sys
entry = next(e for e in json.load(open(sys.argv[1])) if e["file"] == sys.argv[2])
args = shlex.split(entry["command"])
if "ccache" in args[0]: args = args[1:]
out, skip = [], False
for a in args:
    if skip: skip = False; continue
    if a in ("-o", "-MF", "-MT", "-MQ"): skip = True; continue
    if a in ("-c", "-MD", "-MMD", sys.argv[2]): continue
    out.append(a)
print(entry["directory"]); print("\n".join(out))
PY
  )
  directory="${args[0]}"
  reached=$(cd "$directory" && echo "#include \"$src/$file\"" | "${args[@]:1}" -E -x c++ - | sed -n 's/^# [0-9]* "\([^"]*\.pb\.h\)".*/\1/p' | sort -u)
  if [ -n "$reached" ]; then
    echo "src/$file reaches generated headers (include them only where a message is read):"
    echo "$reached" | sed 's/^/  /'
    status=1
  else
    echo "src/$file: no generated header"
  fi
done
exit $status
