#!/usr/bin/env bash
# Sanity checks for the bundled tasks. For every tasks/<id>/ folder:
#   0. layout: task.yaml id == folder name; no conftest.py / pytest.ini / __pycache__ in repo/
#   1. the visible tests fail on the starting repo
#   2. the hidden tests fail on the starting repo, and it misses at least one oracle.json call
#   3. after `git apply solution.patch`, visible + hidden pass and every oracle.json call matches
#   4. wrong-fix.patch (if present): visible tests pass; visible + hidden fail and it misses an oracle call
#   5. replaying examples/policies/<id>/fix.jsonl (if present) makes visible + hidden pass and every
#      oracle.json call match
# oracle.json calls run through sandbox/oracle_values.py (`check`), in a fresh host python3.
# Usage: bash tasks/check-tasks.sh [task-id...]   Exits non-zero on any failure.
set -u
cd "$(dirname "$0")"
TASKS_DIR=$(pwd)
POLICIES_DIR=$(cd .. && pwd)/examples/policies
ORACLE_VALUES=$(cd .. && pwd)/sandbox/oracle_values.py
export PYTHONDONTWRITEBYTECODE=1
PYTEST=(python3 -m pytest -q -p no:cacheprovider)
failures=0
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

ok() { echo "  ok   $1"; }
bad() { echo "  FAIL $1"; failures=$((failures + 1)); }

# fresh copy of repo/ (as a git repository) in $WORK/<name>; prints its path
fresh() {
  local dir="$WORK/$2"
  mkdir -p "$dir" && cp -R "$1/repo/." "$dir/"
  git -C "$dir" init -q 2>/dev/null && git -C "$dir" add -A &&
    git -C "$dir" -c user.name=check -c user.email=check@localhost commit -qm start
  echo "$dir"
}

# copy_extra <task> <dir> hidden: copy the hidden test files into the repo copy
copy_extra() { [ -d "$1/$3" ] && cp -R "$1/$3/." "$2/"; }

# extra_files <task> hidden: relative paths of the hidden test files
extra_files() { (cd "$1/$2" && find . -type f -name '*.py' | sed 's|^\./||' | sort); }

# pytest_rc <dir> [args...]: run pytest quietly in <dir>, print its exit status
pytest_rc() {
  local dir=$1; shift
  (cd "$dir" && "${PYTEST[@]}" "$@" >"$WORK/last.log" 2>&1); echo $?
}

expect_fail() { # <label> <dir> [args...]  (rc 1 = tests ran and some failed)
  local label=$1 rc; shift
  rc=$(pytest_rc "$@")
  if [ "$rc" = 1 ]; then ok "$label"; else bad "$label (pytest rc=$rc, want 1)"; tail -5 "$WORK/last.log"; fi
}

expect_pass() { # <label> <dir> [args...]
  local label=$1 rc; shift
  rc=$(pytest_rc "$@")
  if [ "$rc" = 0 ]; then ok "$label"; else bad "$label (pytest rc=$rc, want 0)"; tail -15 "$WORK/last.log"; fi
}

# oracle_rc <task> <dir>: run the task's oracle.json calls against <dir>, print the exit status
# (0 every call matches, 1 some call misses, 2 the oracle could not be run)
oracle_rc() {
  python3 -I -B "$ORACLE_VALUES" check "$1/oracle.json" "$2" >"$WORK/last.log" 2>&1; echo $?
}

expect_oracle() { # <label> <want rc> <task> <dir>
  local label=$1 want=$2 rc
  rc=$(oracle_rc "$3" "$4")
  if [ "$rc" = "$want" ]; then ok "$label"; else bad "$label (oracle rc=$rc, want $want)"; tail -5 "$WORK/last.log"; fi
}

# replay <jsonl> <dir>: run the bash/write_file actions of a scripted policy until submit
replay() {
  python3 - "$1" "$2" <<'PY'
import json, pathlib, subprocess, sys
policy, repo = sys.argv[1], pathlib.Path(sys.argv[2])
for line in open(policy):
    action = json.loads(line)
    if action["tool"] == "submit":
        break
    if action["tool"] == "bash":
        subprocess.run(["bash", "-c", action["command"]], cwd=repo, timeout=60,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elif action["tool"] == "write_file":
        path = repo / action["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(action["content"])
    else:
        sys.exit(f"unknown tool {action['tool']!r}")
else:
    sys.exit("policy does not submit")
PY
}

if [ $# -gt 0 ]; then ids=("$@"); else ids=(); for t in */task.yaml; do ids+=("${t%/task.yaml}"); done; fi

for id in "${ids[@]}"; do
  task="$TASKS_DIR/$id"
  echo "== $id"

  # 0. layout
  yaml_id=$(sed -n 's/^id:[[:space:]]*//p' "$task/task.yaml")
  [ "$yaml_id" = "$id" ] && ok "task.yaml id matches folder" || bad "task.yaml id '$yaml_id' != folder '$id'"
  grep -Eq '^(image|testCommand|protectedPaths):' "$task/task.yaml" &&
    bad "task.yaml sets image/testCommand/protectedPaths" || ok "task.yaml uses default image/testCommand/protectedPaths"
  junk=$(find "$task/repo" \( -name conftest.py -o -name pytest.ini -o -name __pycache__ -o -name .pytest_cache \) -print)
  [ -z "$junk" ] && ok "repo/ has no conftest.py, pytest.ini or caches" || bad "repo/ contains: $junk"
  for f in solution.patch hidden oracle.json; do [ -e "$task/$f" ] || bad "missing $f"; done
  [ -e "$task/oracle" ] && bad "oracle/ is obsolete: the oracle is oracle.json"

  # 1-2. starting repo
  dir=$(fresh "$task" "$id-start")
  expect_fail "visible tests fail on the starting repo" "$dir"
  copy_extra "$task" "$dir" hidden
  mapfile -t hidden < <(extra_files "$task" hidden)
  expect_fail "hidden tests fail on the starting repo" "$dir" "${hidden[@]}"
  expect_oracle "the starting repo misses an oracle call" 1 "$task" "$dir"

  # 3. reference fix
  dir=$(fresh "$task" "$id-solution")
  if git -C "$dir" apply "$task/solution.patch"; then
    ok "solution.patch applies"
    expect_pass "visible tests pass with solution.patch" "$dir"
    copy_extra "$task" "$dir" hidden
    expect_pass "visible + hidden pass with solution.patch" "$dir"
    expect_oracle "every oracle call matches with solution.patch" 0 "$task" "$dir"
  else
    bad "solution.patch does not apply"
  fi

  # 4. wrong fix
  if [ -f "$task/wrong-fix.patch" ]; then
    dir=$(fresh "$task" "$id-wrong")
    if git -C "$dir" apply "$task/wrong-fix.patch"; then
      ok "wrong-fix.patch applies"
      expect_pass "visible tests pass with wrong-fix.patch" "$dir"
      copy_extra "$task" "$dir" hidden
      expect_fail "visible + hidden fail with wrong-fix.patch" "$dir"
      expect_oracle "wrong-fix.patch misses an oracle call" 1 "$task" "$dir"
    else
      bad "wrong-fix.patch does not apply"
    fi
  fi

  # 5. scripted fix policy
  policy="$POLICIES_DIR/$id/fix.jsonl"
  if [ -f "$policy" ]; then
    dir=$(fresh "$task" "$id-policy")
    if replay "$policy" "$dir"; then
      copy_extra "$task" "$dir" hidden
      expect_pass "visible + hidden pass after replaying fix.jsonl" "$dir"
      expect_oracle "every oracle call matches after replaying fix.jsonl" 0 "$task" "$dir"
    else
      bad "fix.jsonl replay failed"
    fi
  else
    echo "  --   no $policy"
  fi
done

if [ "$failures" -gt 0 ]; then echo "FAILED: $failures check(s)"; exit 1; fi
echo "all task checks passed"
