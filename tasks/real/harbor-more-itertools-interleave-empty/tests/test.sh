#!/bin/bash
# The verifier: the fix's version of tests/test_more.py (unittest classes, run by pytest); reward 1 when
# every test passes, else 0
cd /app
if python3 -m pytest -q -p no:cacheprovider /tests/test_more.py > /logs/verifier/pytest.txt 2>&1; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
