#!/usr/bin/env bash
# The test suite: TypeScript types and lint, Python tests (harness, tamper detector), bundled task validation,
# then the TypeScript tests against the real Temporal dev server, Docker engine and pytest in containers.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== typecheck"; npx --no-install tsc -p .
echo "== lint"; npx --no-install eslint .
echo "== python tests"; .venv/bin/python -m pytest -q trainer/tests
echo "== bundled tasks"; node bin/agentrl.js task validate --all --check
[ "$#" -gt 0 ] || set -- tests/*.test.ts
echo "== typescript tests"; node --import tsx --test --test-timeout=900000 --test-concurrency=1 "$@"
