"""recall.sh's quick path: `recall.sh KEYWORD --all` answered from a current index before anything heavy
is loaded (site-packages, argparse, json, re, the store, git), since a person or an agent waits for it.

recall.sh starts Python without its site step (`-S`); every other command line, and a keyword whose
index is not current (a capture since), goes on to memory.commands.recall after `site.main()`, exactly as before.
The answer is the one memory.commands.recall prints (render.found, the same stderr lines), which
tests/commands/test_recall_quick.py holds it to.
"""
from __future__ import annotations

import os
import sys

from memory.core import cli, paths, render, textmatch
from memory.search import find


def run() -> None:
    """recall.sh's entry point: the quick answer, else memory.commands.recall's."""
    cli.prepare_stdout()
    try:
        status = quick(sys.argv[1:])
        if status is not None:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)  # the answer is out: the interpreter's teardown would only add ~1.5 ms
    except BrokenPipeError:  # `recall.sh deploy --all | head`
        os._exit(0)
    except Exception:  # noqa: S110 - nothing was printed yet: the full path answers, and says what is wrong
        pass
    cli.run_cli(_full)


def _full() -> int:
    import site

    site.main()  # what -S left out: the virtualenv's packages (orjson for large files)
    from memory.commands import recall

    return recall.main()


def quick(argv: list[str]) -> int | None:
    """The exit status after answering `KEYWORD --all` from the index, or None (nothing printed) when
    memory.commands.recall must answer."""
    words = [arg for arg in argv if arg != "--all"]
    if len(words) != 1 or len(argv) != 2 or words[0].startswith("-"):
        return None
    terms = textmatch.terms_of(words)
    memory_dir = _memory_dir()
    if len(terms) != 1 or memory_dir is None:
        return None  # several words are ranked; an unusual checkout asks git
    found = find.find(memory_dir, terms, refresh=False)
    if found is None:
        return None
    entries, malformed = found
    sys.stdout.write(render.found(entries))
    sys.stderr.write(render.found_notes(malformed, bool(entries)))
    return 0 if entries else 1


def _memory_dir() -> str | None:
    """memory.core.paths' answer for recall.sh's anchor when it needs no git call, else None (git decides)."""
    return paths.memory_dir_without_git(os.environ.get("MEMORY_HOOKS_ANCHOR") or os.getcwd())
