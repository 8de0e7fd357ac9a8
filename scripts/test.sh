#!/usr/bin/env bash
# The test suite in tiers, fastest first; the first tier that fails stops the run, and each tier's
# time is printed at the end.
#   static       types, lint, formatting (prettier, ruff); the Python tests that start no container run
#                meanwhile in the background, through this tier and the next three (their tier reports below)
#   unit         pure functions, golden vectors, exact error messages (tests/unit)
#   activities   one activity at a time in MockActivityEnvironment (tests/activities; the cancellation tests need Docker)
#   workflows    the real dev server with stubbed activities, and the replay of recorded histories (tests/workflows)
#   python       the trainer (trainer/tests), the checker's Python (activities/checker/tests) and the sandbox's
#                (sandbox/tests), no container
#   tasks        the bundled tasks are sound (task validate --check: a task whose digest matches is not run again)
#   integration  real Temporal, Docker, pytest in containers, PyTorch and onnxruntime (tests/integration, three
#                files at a time, the longest first, and the Python tests marked docker beside them)
# With arguments, runs only the node test runner on the named files.
set -uo pipefail
cd "$(dirname "$0")/.."
# no --test-force-exit: it drops tests that ran (or never runs them) from a file whose known tests are done
# (nodejs/node#54327); a file that hangs instead meets its tier's time limit below
node_test=(node --import tsx --test --test-timeout=900000 --test-concurrency=1)
# the integration tier runs three files at a time: a file spends most of its time waiting (heartbeat and
# schedule-to-start timeouts, workers and services starting, containers), and each has its own dev server,
# task queues, ports, state folder and Docker labels, so none sees another's work
integration_test=(node --import tsx --test --test-timeout=900000 --test-concurrency=3)
# every temporary file the tests make (node's tmpdir(), Python's tempfile, pytest's tmp_path, the state folders of
# the runs they start) goes under one folder, removed when the run ends however it ends: runs that each left a few
# GB behind filled the disk
# (world-writable and sticky like /tmp itself: tests run programs as other users, the audit's runner among them)
test_tmp=$(mktemp -d "${TMPDIR:-/tmp}/agentrl-tests-XXXXXX")
chmod 1777 "$test_tmp"
export TMPDIR=$test_tmp
if [ "$#" -gt 0 ]; then
  trap 'rm -rf "$test_tmp"' EXIT
  "${node_test[@]}" "$@"
  exit
fi
# a tier that hangs is stopped (TERM, then KILL 30 s later) long before CI's own limit
limited() {
  local seconds=$1
  shift
  timeout --kill-after=30 "$seconds" "$@"
}

timings=()
report() {
  [ -n "${python_pid:-}" ] && kill "$python_pid" 2>/dev/null
  echo "== tier times"
  for line in "${timings[@]}"; do echo "  $line"; done
  echo "  total        $((SECONDS))s"
  rm -rf "$test_tmp"
}
trap report EXIT

tier() {
  local name=$1 start=$SECONDS rc
  shift
  echo "== $name"
  "$@"
  rc=$?
  timings+=("$(printf '%-12s %5ss' "$name" $((SECONDS - start)))$([ "$rc" = 0 ] || echo '  FAILED')")
  if [ "$rc" != 0 ]; then
    echo "tier $name failed (exit $rc); the later tiers did not run" >&2
    exit "$rc"
  fi
}

static() {
  npx --no-install tsc -p . &&
    npx --no-install eslint . &&
    npx --no-install prettier --check --log-level warn . &&
    .venv/bin/ruff format --check --quiet . &&
    .venv/bin/ruff check --quiet .
}

python_log=$(mktemp)
python_started=0
python_rc_file=$(mktemp)
start_python() {
  python_started=$SECONDS
  (
    timeout --kill-after=30 1800 .venv/bin/python -m pytest -q --durations=10 -m 'not docker' -p no:cacheprovider \
      trainer/tests activities/checker/tests sandbox/tests >"$python_log" 2>&1
    echo $? >"$python_rc_file"
  ) &
  python_pid=$!
}
wait_python() {
  wait "$python_pid"
  cat "$python_log"
  echo "(ran in the background for $((SECONDS - python_started)) s)"
  return "$(cat "$python_rc_file")"
}

# the Python tests take longer than the static, unit, activity and workflow tiers together, and the static
# checks keep one core busy: started first, they finish about when the workflow tier does
start_python
tier static static
tier unit limited 900 "${node_test[@]}" tests/unit/*.test.ts
tier activities limited 300 "${node_test[@]}" tests/activities/*.test.ts
tier workflows limited 900 "${node_test[@]}" tests/workflows/*.test.ts
tier python wait_python
tier tasks limited 1800 node bin/agentrl.js task validate --all --check
# the longest files first (in seconds, two at a time on the development machine: cli 350, the real model's 260,
# harness 195, async-training 125, training 105, hosts, durability, swebench-tasks, harbor-tasks, attacks, services
# and harness-worker-kill 80-100), so the lanes end together; the Python tests that need Docker run beside them
longest=(cli real-model harness async-training training hosts durability swebench-tasks harbor-tasks attacks services
  harness-worker-kill)
integration() {
  local files=() file name rc=0
  for name in "${longest[@]}"; do files+=("tests/integration/$name.test.ts"); done
  for file in tests/integration/*.test.ts; do
    name=$(basename "$file" .test.ts)
    [[ " ${longest[*]} " == *" $name "* ]] || files+=("$file")
  done
  local pytest_log
  pytest_log=$(mktemp)
  .venv/bin/python -m pytest -q -m docker -p no:cacheprovider trainer/tests activities/checker/tests >"$pytest_log" 2>&1 &
  local pytest_pid=$!
  limited 2400 "${integration_test[@]}" "${files[@]}" || rc=$?
  wait "$pytest_pid" || rc=$?
  echo "== the Python tests marked docker"
  cat "$pytest_log"
  return "$rc"
}
tier integration integration
