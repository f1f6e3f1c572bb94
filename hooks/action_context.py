#!/usr/bin/env python3
"""A file read or edited, a failed command: the knowledge about it, or nothing.
Handler: memory.surface.action_context."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

try:
    from memory.surface.action_context import main
except Exception as error:  # its code does not load (an upgrade copied halfway, a damaged file): fail open
    try:
        from memory import unusable

        main = unusable(__file__, error)
    except Exception as package_error:  # not even the package itself (memory/__init__.py) loads
        problem = f"{type(package_error).__name__}: {package_error}"

        def main(argv: "list[str] | None" = None) -> int:
            sys.stdin.buffer.read()  # the runtime must never block on its write
            sys.stderr.write(f"memory-hooks {os.path.basename(__file__)[:-3]}: its code does not load, nothing "
                             f"done: {problem}\n")
            return 0

if __name__ == "__main__":
    raise SystemExit(main())
