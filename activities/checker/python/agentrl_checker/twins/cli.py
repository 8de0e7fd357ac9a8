"""The planner's command line: the request on stdin, the response on stdout, exit 2 on bad input."""

import json
import sys

from .plan import make_twins
from .request import BadInput


def main():
    """Reads the request on stdin and prints the response; returns 0, or 2 on bad input."""
    try:
        try:
            data = json.loads(sys.stdin.buffer.read().decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as e:
            raise BadInput("input is not valid JSON: %s" % e) from None
        result = make_twins(data)
    except BadInput as e:
        sys.stderr.write("make-twins: %s\n" % e)
        return 2
    sys.stdout.write(json.dumps(result) + "\n")
    return 0
