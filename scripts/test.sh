#!/usr/bin/env bash
# The test suite: TypeScript types and lint, Python tests (trainer, harness, tamper detector), bundled task
# validation, then the TypeScript tests in tiers: unit (pure), workflows (the real dev server with stubbed
# activities), and the rest against the real Temporal dev server, Docker engine, pytest, PyTorch and onnxruntime.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== typecheck"; npx --no-install tsc -p .
echo "== lint"; npx --no-install eslint .
echo "== python tests"; .venv/bin/python -m pytest -q --durations=10 trainer/tests
echo "== bundled tasks"; node bin/agentrl.js task validate --all --check
[ "$#" -gt 0 ] || set -- tests/unit/*.test.ts tests/workflows/*.test.ts tests/*.test.ts
echo "== typescript tests"; node --import tsx --test --test-timeout=900000 --test-force-exit --test-concurrency=1 "$@"
