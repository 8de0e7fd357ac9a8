#!/usr/bin/env bash
# Installs the agent harnesses of shared/harnesses.json offline, for every sandbox, and prints the folder that sandboxes
# mount read-only at /opt/agentrl/harnesses (docs/harnesses.md).
#
# Each harness is downloaded on the host (PyPI wheels pinned by hash in its lock file; an npm tarball checked against
# its integrity) and installed once per machine into the harness cache (AGENTRL_HARNESS_CACHE, else
# ~/.cache/agentrl/harnesses/<name>-<version>), shared by every checkout as the model cache is: a Python harness into a
# venv made by a throwaway container of agentrl-base:latest with no network, at the path sandboxes see it under. Then
# the checkout's own folder, $AGENTRL_STATE_DIR/harnesses (default .agentrl/harnesses), gets hard links to those
# installs with this checkout's launcher (launch.py) and registry (harnesses.json): two checkouts with other pins or
# another launcher never see each other's. A stamp (the hash of the registry, its lock files, this script, the
# launcher and the base image's id) makes a second run a no-op.
#   --stamp   print the stamp and exit (nothing is built)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
script="$root/scripts/build-harnesses.sh"
registry="${AGENTRL_HARNESS_REGISTRY:-$root/shared/harnesses.json}"
launcher="$root/sandbox/harness-launch.py"
cache="${AGENTRL_HARNESS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentrl/harnesses}"
out="${AGENTRL_STATE_DIR:-$root/.agentrl}/harnesses"
mount=/opt/agentrl/harnesses
image=agentrl-base:latest
# the pip that installs Python harnesses inside the image (which has none), run from its wheel; never installed itself
pip_wheel=pip-26.0.1-py3-none-any.whl
pip_hash=bdb1b08f4274833d62c1aa29e20907365a2ceb950410df15fc9521bad440122b
say() { echo "build-harnesses: $*" >&2; }
# a pip configured with index folders this machine lacks warns once per package
quiet_pip() { grep -v 'is ignored: it is neither a file nor a directory' >&2 || true; }

[ -f "$registry" ] || { say "no registry at $registry"; exit 1; }
# one line per harness: name, version, registry, package, lock or integrity, bins (name=path,...); a bad entry stops here
entries=$(python3 - "$registry" "$root" <<'EOF'
import json, os, re, sys
registry, root = sys.argv[1], sys.argv[2]
for entry in json.load(open(registry))["harnesses"]:
    name, version, source = entry["name"], entry["version"], entry["source"]
    if not re.fullmatch(r"[a-z0-9][a-z0-9.-]*", name) or not re.fullmatch(r"[0-9][A-Za-z0-9.+-]*", version):
        sys.exit(f"harness {name!r} {version!r}: a name of lowercase letters, digits, '.', '-' and a pinned version")
    if source["registry"] == "pypi":
        lock = source["lock"]
        if not os.path.isfile(os.path.join(root, lock)):
            sys.exit(f"harness {name}: its lock file {lock} is missing")
        pinned = lock
    elif source["registry"] == "npm":
        pinned = source["integrity"]
    else:
        sys.exit(f"harness {name}: unknown registry {source['registry']!r} (pypi or npm)")
    bins = ",".join(f"{k}={v}" for k, v in source.get("bin", {}).items()) or "-"
    print("\t".join([name, version, source["registry"], source["package"], pinned, bins]))
EOF
)
locks=$(awk -F'\t' '$3 == "pypi" { print $5 }' <<<"$entries")
# a rebuilt base image is checked again (and a venv made again if its python3 changed)
image_id=$(docker image inspect -f '{{.Id}}' "$image" 2>/dev/null || echo none)
stamp=$( (cat "$registry" "$script" "$launcher"; for lock in $locks; do cat "$root/$lock"; done; echo "$image_id") |
  sha256sum | cut -c1-16)
if [ "${1:-}" = "--stamp" ]; then echo "$stamp"; exit 0; fi
if [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then echo "$out"; exit 0; fi

[ "$image_id" != none ] || { say "the image $image is missing: run scripts/build-base-image.sh first"; exit 1; }
mkdir -p "$cache" "$out"
# two checkouts building at once install each harness once
exec 9>"$cache/.lock"
flock 9

# installs one harness into the cache (when its source changed), then checks it runs where sandboxes run it
install_harness() {
  local name=$1 version=$2 kind=$3 package=$4 pinned=$5 bins=$6
  local dir="$cache/$name-$version" identity python=-
  # a venv holds to the interpreter it was made with
  [ "$kind" = pypi ] && python=$(docker run --rm --network none "$image" python3 -c 'import sys; print(sys.version)')
  # what decides the installed files: the source, its lock, the image's python3, and these install steps (not the rest
  # of this script)
  identity=$( (printf '%s\n' "$kind" "$package" "$pinned" "$bins" "$python"; [ "$kind" = pypi ] && cat "$root/$pinned"
    declare -f install_harness) | sha256sum | cut -c1-16)
  if [ "$(cat "$dir/.agentrl-installed" 2>/dev/null)" = "$identity" ]; then return 0; fi
  local started=$SECONDS staging="$cache/.staging-$name-$version" downloads="$cache/.downloads-$name-$version"
  rm -rf "$staging" "$downloads"
  mkdir -p "$staging" "$downloads"
  say "installing $name $version from $kind (into $dir)"
  if [ "$kind" = pypi ]; then
    local platforms=(--platform manylinux2014_x86_64) minor
    for minor in $(seq 17 36); do platforms+=(--platform "manylinux_2_${minor}_x86_64"); done
    python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: "${platforms[@]}" \
      --python-version 3.11 --implementation cp --require-hashes -r "$root/$pinned" -d "$downloads" 2> >(quiet_pip) >&2
    python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: -d "$downloads" \
      "pip==$(cut -d- -f2 <<<"$pip_wheel")" 2> >(quiet_pip) >&2
    echo "$pip_hash  $downloads/$pip_wheel" | sha256sum -c --quiet
    cp "$root/$pinned" "$downloads/lock.txt"
    # the venv is made at the path sandboxes mount it under, so its scripts' #! lines hold there
    docker run --rm --network none --user "$(id -u):$(id -g)" -e HOME=/tmp -e PIP_NO_CACHE_DIR=1 \
      -e PIP_DISABLE_PIP_VERSION_CHECK=1 --tmpfs /tmp -v "$staging:$mount/$name-$version" -v "$downloads:/downloads:ro" \
      "$image" sh -ec '
        python3 -m venv --without-pip "$1"
        "$1/bin/python" "/downloads/$2/pip" install -q --no-index --no-deps --require-hashes --find-links /downloads \
          -r /downloads/lock.txt
        "$1/bin/python" "/downloads/$2/pip" check -q' sh "$mount/$name-$version" "$pip_wheel" >&2
  else
    local tarball integrity
    tarball=$(cd "$downloads" && npm pack --silent --pack-destination "$downloads" "$package" | tail -1)
    integrity="sha512-$(openssl dgst -sha512 -binary "$downloads/$tarball" | base64 -w0)"
    [ "$integrity" = "$pinned" ] || { say "$package: integrity $integrity differs from the registry's $pinned"; exit 1; }
    tar -xzf "$downloads/$tarball" -C "$staging" --no-same-owner
    mkdir -p "$staging/bin"
    local bin
    for bin in ${bins//,/ }; do
      [ -e "$staging/${bin#*=}" ] || { say "$package has no ${bin#*=}"; exit 1; }
      ln -s "../${bin#*=}" "$staging/bin/${bin%%=*}"
    done
  fi
  chmod -R a+rX,go-w "$staging"
  echo "$identity" >"$staging/.agentrl-installed"
  rm -rf "$dir" "$downloads"
  mv "$staging" "$dir"
  say "installed $name $version in $((SECONDS - started)) s ($(du -sh "$dir" | cut -f1))"
}

while IFS=$'\t' read -r name version kind package pinned bins; do
  install_harness "$name" "$version" "$kind" "$package" "$pinned" "$bins"
done <<<"$entries"

# this checkout's folder: hard links to the installs (a copy where the cache is on another file system), its launcher
# and registry; each part replaced whole, so a sandbox that mounts it meanwhile sees the old or the new one
wanted=()
while IFS=$'\t' read -r name version _; do
  wanted+=("$name-$version")
  src="$cache/$name-$version"
  if [ "$(cat "$out/$name-$version/.agentrl-installed" 2>/dev/null)" != "$(cat "$src/.agentrl-installed")" ]; then
    rm -rf "$out/.new-$name-$version"
    cp -al "$src" "$out/.new-$name-$version" 2>/dev/null || cp -a "$src" "$out/.new-$name-$version"
    rm -rf "$out/$name-$version"
    mv "$out/.new-$name-$version" "$out/$name-$version"
  fi
done <<<"$entries"
for old in "$out"/*/; do
  old=$(basename "$old")
  [ -f "$out/$old/.agentrl-installed" ] || continue
  [[ " ${wanted[*]} " == *" $old "* ]] || rm -rf "${out:?}/$old"
done
install -m 0644 "$launcher" "$out/.launch.py.new" && mv "$out/.launch.py.new" "$out/launch.py"
install -m 0644 "$registry" "$out/.harnesses.json.new" && mv "$out/.harnesses.json.new" "$out/harnesses.json"

# every harness starts where sandboxes run it: read-only, no network, the agent's uid, HOME under /tmp
while IFS=$'\t' read -r name version _; do
  mapfile -t check_argv < <(python3 -c 'import json, sys
entry = next(e for e in json.load(open(sys.argv[1]))["harnesses"] if e["name"] == sys.argv[2])
print("\n".join(arg.replace("{dir}", sys.argv[3]) for arg in entry["check"]))' "$registry" "$name" "$mount/$name-$version")
  if ! output=$(docker run --rm --network none --read-only --tmpfs /tmp --cap-drop ALL --security-opt no-new-privileges \
    -u 1000 -e HOME=/tmp/agentrl-home -v "$out:$mount:ro" "$image" "${check_argv[@]}" 2>&1); then
    say "$name $version does not start in a sandbox: ${check_argv[*]}"
    echo "$output" >&2
    exit 1
  fi
done <<<"$entries"
echo "$stamp" >"$out/.stamp"
say "ready: $out"
echo "$out"
