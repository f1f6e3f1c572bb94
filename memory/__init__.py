"""memory-hooks: a project memory for coding agents, fed by `LEARNED:` insights.

Import cost rules the hook path, because every hook is a fresh interpreter and the capture hook runs on
every shell command. Measured per import on the reference machine (2 cores, bare interpreter ~12 ms):
`typing` ~3 ms (with what it pulls in, up to 10 ms cold), `subprocess` ~7 ms, `json` ~2 ms, `numpy`
~100 ms, `orjson` ~25 ms, `filelock` ~65 ms, `from __future__` ~0.3 ms. Hence three conventions, used in
every module:

- Annotations use the builtin syntax (`list[str]`, `str | None`) and are never evaluated: every module
  starts with `from __future__ import annotations`, except the two on the path of every shell command
  (`hookrun`, `capture_gate`), whose annotations are quoted strings instead.
- `typing` is never imported at run time: names needed only by the type checker are imported under
  `if TYPE_CHECKING:`, with the flag below (type checkers treat any `TYPE_CHECKING` as true).
- An import that a hook does not always need (subprocess, orjson, numpy, the ranker in recall) is made
  inside the function that needs it; everything else is imported at the top.

Only the standard library is imported at import time; orjson (faster bulk reads) and filelock (the lock
where `fcntl` is missing) are optional accelerators loaded where they pay for themselves.
"""
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
__version__ = "0.1.0"  # the one place: pyproject.toml reads it (setuptools dynamic version), so does `--version`


def unusable(hook_file: str, error: Exception) -> "Callable[..., int]":
    """What a hook runs when its own code can't be imported (an upgrade copied halfway, a damaged file, a
    bytecode file cut short by a full disk): hooks fail open, so it reads stdin (the runtime must never block
    on a write), leaves one line in errors.log (stderr when that can't load either) and exits 0."""

    def fail_open(argv: object = None) -> int:
        import os
        import sys

        try:
            sys.stdin.buffer.read()
        except Exception:
            pass
        hook = os.path.splitext(os.path.basename(hook_file))[0]
        problem = f"the hook's code does not load, nothing done: {type(error).__name__}: {error}"
        if isinstance(error, (EOFError, ValueError)):  # bytecode that does not unmarshal: the next run recompiles
            problem += f"; damaged bytecode files removed: {_drop_damaged_bytecode(os.path.dirname(__file__))}"
        try:
            from memory.core import errorlog

            errorlog.record(hook, problem)
        except Exception:
            try:
                sys.stderr.write(f"memory-hooks {hook}: {problem}\n")
            except Exception:
                pass
        return 0

    return fail_open


def _drop_damaged_bytecode(package: str) -> int:
    """Remove the package's .pyc files that do not unmarshal (the interpreter reuses them as long as their
    source is unchanged: one cut short would fail every later run); how many were removed."""
    import marshal
    import os

    removed = 0
    for folder, _, names in os.walk(package):
        for name in names if os.path.basename(folder) == "__pycache__" else ():
            path = os.path.join(folder, name)
            try:
                with open(path, "rb") as fh:
                    marshal.loads(fh.read()[16:])
            except OSError:
                continue
            except Exception:
                try:
                    os.unlink(path)
                    removed += 1
                except OSError:
                    pass
    return removed
