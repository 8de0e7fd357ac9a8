"""runner_internals through file descriptors: non-test code that writes to, closes or hands on the
descriptors of the harness (3 and above: the report pipe among them), or names /dev/fd or /proc/*/fd.
A descriptor is a number the code certainly computes: literals, simple arithmetic, and module-level
names always bound to such a value."""

import ast
import re

from ..ast_tools import SCOPES

# calls taking file descriptors: qualified name -> positional indexes holding one
FD_FUNCS = {
    "os.write": (0,),
    "os.pwrite": (0,),
    "os.writev": (0,),
    "os.fdopen": (0,),
    "os.dup": (0,),
    "os.dup2": (0, 1),
    "os.close": (0,),
    "os.set_inheritable": (0,),
    "os.sendfile": (0,),
    "os.ftruncate": (0,),
    "os.fsync": (0,),
    "os.lseek": (0,),
    "builtins.open": (0,),
    "io.open": (0,),
    "io.FileIO": (0,),
    "_io.open": (0,),
    "_io.FileIO": (0,),
    "codecs.open": (0,),
    "socket.fromfd": (0,),
    "socket.socket": (),
}
FD_KEYWORDS = frozenset({"fd", "fd2", "file", "fileno", "out_fd"})
STD_STREAM_KEYWORDS = frozenset({"stdin", "stdout", "stderr"})
FIRST_FREE_FD = 3  # 0-2 are the standard streams; the report pipe and the rest start at 3
FD_PATH_RE = re.compile(r"/(?:dev|proc/[^/\s'\"]+)/fd(?:/|$)")


def int_value(node, consts):
    """The integer an expression certainly evaluates to (literals, simple
    arithmetic, int("3"), names always bound to such a value), else None."""
    if isinstance(node, ast.Constant):
        v = node.value
        return v if isinstance(v, int) else None
    if isinstance(node, ast.Name):
        return consts.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub, ast.Invert)):
        v = int_value(node.operand, consts)
        if v is None:
            return None
        return +v if isinstance(node.op, ast.UAdd) else -v if isinstance(node.op, ast.USub) else ~v
    if isinstance(node, ast.BinOp):
        a = int_value(node.left, consts)
        b = int_value(node.right, consts)
        if a is None or b is None or abs(a) > 1 << 32 or abs(b) > 1 << 32:
            return None
        op = node.op
        try:
            if isinstance(op, ast.Add):
                return a + b
            if isinstance(op, ast.Sub):
                return a - b
            if isinstance(op, ast.Mult):
                return a * b
            if isinstance(op, ast.FloorDiv):
                return a // b
            if isinstance(op, ast.Mod):
                return a % b
            if isinstance(op, ast.BitOr):
                return a | b
            if isinstance(op, ast.BitAnd):
                return a & b
            if isinstance(op, ast.BitXor):
                return a ^ b
            if isinstance(op, ast.LShift) and 0 <= b <= 32:
                return a << b
            if isinstance(op, ast.RShift) and 0 <= b:
                return a >> b
        except ZeroDivisionError:
            return None
        return None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "int"
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Constant)
    ):
        try:
            return int(node.args[0].value)
        except (TypeError, ValueError, OverflowError):
            return None
    return None


def int_constants(tree):
    """Names that every binding in the module sets to a known integer: name -> largest value."""
    values = {}
    other = set()
    simple = set()
    for node in ast.walk(tree):  # breadth-first: an assignment comes before its target
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load) and id(node) not in simple:
                other.add(node.id)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name) and node.value is not None:
                simple.add(id(targets[0]))
                values.setdefault(targets[0].id, []).append(node.value)
        elif isinstance(node, ast.arg):
            other.add(node.arg)
        elif isinstance(node, ast.alias):
            other.add((node.asname or node.name).split(".", 1)[0])
        elif isinstance(node, SCOPES):
            other.add(node.name)
    out = {}
    for name, exprs in values.items():
        if name in other:
            continue
        ints = [int_value(e, {}) for e in exprs]
        if ints and all(v is not None for v in ints):
            out[name] = max(ints)
    return out


class DescriptorRules:
    """The scoped rules on file descriptors (a part of ScopedRules)."""

    def _fd(self, expr):
        v = int_value(expr, self.consts)
        return v if v is not None and v >= FIRST_FREE_FD else None

    def _check_fds(self, q, node):
        fq = "os." + q[len("posix.") :] if q and q.startswith("posix.") else q
        if fq == "os.closerange":
            lo = int_value(node.args[0], self.consts) if node.args else None
            hi = int_value(node.args[1], self.consts) if len(node.args) > 1 else None
            if not (hi is not None and hi <= FIRST_FREE_FD) and not (lo is not None and hi is not None and lo >= hi):
                self.add(
                    "runner_internals",
                    node,
                    "os.closerange() may close file descriptors %d and above" % FIRST_FREE_FD,
                )
            return
        if fq in FD_FUNCS:
            exprs = [node.args[i] for i in FD_FUNCS[fq] if i < len(node.args)]
            exprs += [k.value for k in node.keywords if k.arg in FD_KEYWORDS]
            for e in exprs:
                fd = self._fd(e)
                if fd is not None:
                    self.add("runner_internals", node, "%s() on file descriptor %d" % (fq.replace("builtins.", ""), fd))
                    return
        for k in node.keywords:
            if k.arg in STD_STREAM_KEYWORDS and self._fd(k.value) is not None:
                self.add("runner_internals", node, "passes file descriptor %d as %s" % (self._fd(k.value), k.arg))
            elif k.arg == "pass_fds":
                elts = k.value.elts if isinstance(k.value, (ast.Tuple, ast.List, ast.Set)) else [k.value]
                fds = [self._fd(e) for e in elts]
                if any(fd is not None for fd in fds):
                    self.add(
                        "runner_internals",
                        node,
                        "passes file descriptor %d to a child process" % max(f for f in fds if f is not None),
                    )

    def visit_Constant(self, node):
        value = node.value
        if isinstance(value, bytes):
            value = value.decode("latin-1")
        if isinstance(value, str) and FD_PATH_RE.search(value):
            self.add("runner_internals", node, "refers to the file-descriptor directory %r" % value[:80])

    def visit_Expr(self, node):
        # a bare string statement (docstring) is documentation, not a path in use
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return
        self.generic_visit(node)
