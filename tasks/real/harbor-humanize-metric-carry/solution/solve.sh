#!/bin/bash
# the upstream fix (7574e0c), applied to the repository
set -euo pipefail
cd /app
git apply <<'AGENTRL_PATCH'
diff --git a/src/humanize/number.py b/src/humanize/number.py
index 1cbfc2b..9224a10 100644
--- a/src/humanize/number.py
+++ b/src/humanize/number.py
@@ -543,14 +543,22 @@ def metric(value: float, unit: str = "", precision: int = 3) -> str:
     if exponent >= 33 or exponent < -30:
         return scientific(value, precision - 1) + unit
 
-    value /= 10 ** (exponent // 3 * 3)
+    old_bucket = exponent // 3 * 3
+    value /= 10**old_bucket
+    digits = int(max(0, precision - exponent % 3 - 1))
+    if exponent < 30 and round(abs(value), digits) >= 1000:
+        exponent += 3 - exponent % 3
+        new_bucket = exponent // 3 * 3
+        value /= 10 ** (new_bucket - old_bucket)
+        digits = int(max(0, precision - exponent % 3 - 1))
+
     if exponent >= 3:
         ordinal_ = "kMGTPEZYRQ"[exponent // 3 - 1]
     elif exponent < 0:
         ordinal_ = "mμnpfazyrq"[(-exponent - 1) // 3]
     else:
         ordinal_ = ""
-    value_ = format(value, f".{int(max(0, precision - exponent % 3 - 1))}f")
+    value_ = format(value, f".{digits}f")
     if not (unit or ordinal_) or unit in ("°", "′", "″"):
         space = ""
     else:
AGENTRL_PATCH
