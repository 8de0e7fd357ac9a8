#!/usr/bin/env bash
# A second (third, …) sandbox host on this machine: a Docker daemon of its own, for tests, benchmarks and
# anyone trying the many-host layout without more machines.
#
#   bash scripts/docker-host.sh start [NAME]    start it (idempotent) and give it the base sandbox image
#   bash scripts/docker-host.sh stop [NAME]     stop it (its containers stop with it; its data stays)
#   bash scripts/docker-host.sh env [NAME]      print DOCKER_HOST=… for a worker of that host
#   bash scripts/docker-host.sh status [NAME]   exit 0 when it answers
#
# NAME defaults to agentrl-host2. Each host has its own socket (/run/NAME.sock), data root
# (/var/lib/NAME), exec root (/run/NAME), pid file (/run/NAME.pid), containerd namespace, log
# ($AGENTRL_STATE_DIR/hosts/NAME/dockerd.log) and bridge (an interface named NAME on a /24 of
# 10.231.0.0/16, without NAT: sandboxes run with networking off, image builds need no network). Never
# `--bridge none`: a daemon started so deletes the host's docker0, which the first daemon's builds use.
# A worker serves it with `DOCKER_HOST=unix:///run/NAME.sock AGENTRL_STATE_DIR=… npx agentrl worker`
# (its own state folder: a host's journal and service records are its own).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
action=${1:-status}
name=${2:-agentrl-host2}
[[ "$name" =~ ^[a-z][a-z0-9-]{0,30}$ ]] || { echo "docker-host: invalid host name: $name" >&2; exit 2; }
socket="/run/$name.sock"
pidfile="/run/$name.pid"
logdir="${AGENTRL_STATE_DIR:-$root/.agentrl}/hosts/$name"
say() { echo "docker-host: $*" >&2; }
answers() { DOCKER_HOST="unix://$socket" docker info >/dev/null 2>&1; }

case "$action" in
  start)
    if ! answers; then
      [ "$(id -u)" = 0 ] || { say "starting a Docker daemon needs root"; exit 1; }
      mkdir -p "$logdir"
      if ! ip link show "$name" >/dev/null 2>&1; then
        subnet=$(( $(printf '%s' "$name" | cksum | cut -d' ' -f1) % 200 + 20 ))
        ip link add "$name" type bridge
        ip addr add "10.231.$subnet.1/24" dev "$name"
        ip link set "$name" up
      fi
      say "starting $name (socket $socket, bridge $name, log $logdir/dockerd.log)"
      nohup dockerd --host "unix://$socket" --data-root "/var/lib/$name" --exec-root "/run/$name" \
        --pidfile "$pidfile" --bridge "$name" --iptables=false --ip6tables=false --ip-masq=false \
        --containerd-namespace "$name" --containerd-plugins-namespace "$name-plugins" \
        >"$logdir/dockerd.log" 2>&1 &
      for _ in $(seq 1 60); do answers && break; sleep 0.5; done
      answers || { say "$name did not start; see $logdir/dockerd.log"; tail -20 "$logdir/dockerd.log" >&2; exit 1; }
    fi
    # the base sandbox image, as the first daemon holds it (every tag of it: the versioned one too)
    mapfile -t tags < <(docker image inspect -f '{{range .RepoTags}}{{println .}}{{end}}' agentrl-base:latest | grep .)
    want=$(docker image inspect -f '{{.Id}}' agentrl-base:latest)
    for tag in "${tags[@]}"; do
      if [ "$(DOCKER_HOST="unix://$socket" docker image inspect -f '{{.Id}}' "$tag" 2>/dev/null || true)" != "$want" ]; then
        say "copying agentrl-base to $name"
        docker save "${tags[@]}" | DOCKER_HOST="unix://$socket" docker load >/dev/null
        break
      fi
    done
    echo "DOCKER_HOST=unix://$socket"
    ;;
  stop)
    if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
      pid=$(cat "$pidfile")
      kill "$pid"
      for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -0 "$pid" 2>/dev/null && { say "$name did not stop; killing it"; kill -9 "$pid"; }
    fi
    say "$name stopped"
    ;;
  env) echo "DOCKER_HOST=unix://$socket" ;;
  status) answers ;;
  *) say "usage: docker-host.sh start|stop|env|status [NAME]"; exit 2 ;;
esac
