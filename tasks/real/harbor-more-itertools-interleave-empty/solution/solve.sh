#!/bin/bash
# the upstream fix (f51a53b), applied to the repository
set -euo pipefail
cd /app
git apply <<'AGENTRL_PATCH'
diff --git a/more_itertools/more.py b/more_itertools/more.py
index 4f2cfa9..5607346 100755
--- a/more_itertools/more.py
+++ b/more_itertools/more.py
@@ -1338,6 +1338,9 @@ def interleave_evenly(iterables, lengths=None):
 
     dims = len(lengths)
 
+    if not dims:
+        return
+
     # sort iterables by length, descending
     lengths_permute = sorted(
         range(dims), key=lambda i: lengths[i], reverse=True
AGENTRL_PATCH
