"""The frame every hook runs in: read stdin, let the handler answer, fail open on anything.

A hook's stdout is a protocol, so the handler returns its answer and only this frame writes it,
once, after the handler finished; an exception means no answer, exit 0 and a line in errors.log.
"""
import sys

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    import re
    from collections.abc import Callable

MAX_STDIN_BYTES = 64 * 1024 * 1024
FOREGROUND_ENV = "MEMORY_HOOKS_FOREGROUND"  # set: detached hooks work in the foreground (debugging)


class Context:
    """What a handler gets: the raw stdin, its argv, and a place to say where the memory lives."""

    def __init__(self, raw: bytes, argv: "list[str]") -> None:
        self.raw = raw
        self.argv = argv
        self.memory_dir: str | None = None
        self.problems: list[str] = []  # payload oddities for errors.log (the hook goes on)
        self.recall: tuple[str, str] | None = None  # recall_swap's answer, once `recall_known`
        self.recall_known = False


def read_stdin() -> tuple[bytes, int]:
    """All of stdin (the writer must never block on us), keeping at most MAX_STDIN_BYTES; and how many bytes
    past them were dropped."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        return b"", 0
    chunks, kept, dropped = [], 0, 0
    while True:
        chunk = stream.read(1 << 20)
        if not chunk:
            break
        if kept < MAX_STDIN_BYTES:
            chunks.append(chunk)
            kept += len(chunk)
        else:
            dropped += len(chunk)
    return b"".join(chunks), dropped


def _looks_like_object(raw: bytes) -> bool:
    """O(1) shape test on the raw bytes (the hot path must not parse JSON it will not use)."""
    i = 0
    while i < len(raw) and raw[i] in b" \t\r\n":
        i += 1
    return raw[i:i + 1] == b"{"


def fork_detached() -> str:
    """"parent", or "child" (its own session, stdio on /dev/null), or "inline" where there is no fork
    (Windows) or MEMORY_HOOKS_FOREGROUND asks for the foreground (debugging, tests)."""
    import os

    if not hasattr(os, "fork") or os.environ.get(FOREGROUND_ENV):
        return "inline"
    if os.fork():
        return "parent"
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    return "child"


def run(hook: str, handler: "Callable[[Context], str | None]", argv: "list[str] | None" = None,
        prefilter: "Callable[[bytes], bool] | None" = None, detach: bool = False) -> int:
    """Run `handler` fail-open; returns the exit code (always 0). With `detach`, the handler runs in a
    detached child and its answer is dropped (for hooks whose work is a side effect)."""
    ctx = Context(b"", list(sys.argv[1:] if argv is None else argv))
    in_child = False
    answer = None
    try:
        ctx.raw, dropped = read_stdin()
        if dropped:  # cut short, it would only fail to parse: said as what it is
            _record(hook, f"stdin over {MAX_STDIN_BYTES >> 20} MiB ({len(ctx.raw) + dropped} bytes): not read, "
                          "nothing done")
            return 0
        if not _looks_like_object(ctx.raw):
            _record(hook, f"stdin is not a JSON object ({len(ctx.raw)} bytes); nothing done")
            return 0
        if prefilter is not None and not prefilter(ctx.raw):
            return 0
        if detach:
            # the parent exits at once, so the work survives a client that kills hooks still running
            # at its end (`claude -p` does, for async ones)
            where = fork_detached()
            if where == "parent":
                return 0
            in_child = where == "child"
        answer = handler(ctx)  # a detached child's answer is dropped: it exits below, before writing
        if ctx.problems:
            _record(hook, "payload: " + "; ".join(ctx.problems), ctx.memory_dir)
    except BaseException as exc:  # noqa: BLE001 - a hook must never break the agent
        if not (isinstance(exc, SystemExit) and exc.code in (0, None)):
            _record(hook, f"{type(exc).__name__}: {exc}", ctx.memory_dir)
        answer = None
    finally:
        if in_child:
            import os
            os._exit(0)  # the detached child never returns into its caller
    if answer:
        try:
            answer = runnable_recall(answer, ctx)
        except Exception as exc:  # noqa: BLE001 - the answer as it is: where recall.sh runs from is a nicety
            _record(hook, f"{type(exc).__name__}: {exc}", ctx.memory_dir)
        try:  # UTF-8 bytes whatever the locale: a Latin-1 terminal setting must not eat the answer
            out = getattr(sys.stdout, "buffer", None)
            if out is None:
                sys.stdout.write(answer)
            else:
                out.write(answer.encode("utf-8", "replace"))
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
    return 0


def _record(hook: str, message: str, memory_dir: "str | None" = None) -> None:
    """errors.log's line, or one on stderr when even that cannot be written: the error log's own code missing
    from a half-copied install must not turn a failure into a traceback and exit 1."""
    try:
        from memory.core import errorlog

        errorlog.record(hook, message, memory_dir)
    except BaseException:  # noqa: BLE001
        try:
            sys.stderr.write(f"memory-hooks {hook}: {message}\n")
        except Exception:  # noqa: BLE001 - a closed stderr
            pass


def plugin_recall(memory_dir: "str | None") -> "tuple[str, str] | None":
    """The Claude Code plugin installs no `.beads/memory/recall.sh` into the repository: (that path, the
    plugin's own bin/recall.sh quoted for a shell) — run from the project, it searches the project's memory.
    None when the project has one (an install beside the plugin) or the plugin's is missing."""
    import os
    import shlex

    from memory.core import layout

    if memory_dir and os.path.isfile(os.path.join(memory_dir, layout.RECALL_SCRIPT)):
        return None
    recall = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bin",
                          layout.RECALL_SCRIPT)
    if not os.path.isfile(recall):
        return None
    return os.path.join(layout.MEMORY_SUBDIR, layout.RECALL_SCRIPT), shlex.quote(recall)


def recall_swap(ctx: Context) -> "tuple[str, str] | None":
    """(`.beads/memory/recall.sh` as an answer names it, what the agent's shell must run instead), or None when
    it runs as named: the plugin's own recall.sh when the project has none (plugin_recall); else, when the
    session's shell is not at the project's top (Codex started in a subfolder, a Bash `cd`: the payload's cwd),
    the path from there, relative inside the project and absolute outside it."""
    if not ctx.recall_known:
        from memory.core import layout

        ctx.recall = plugin_recall(ctx.memory_dir) if layout.FLAG_PLUGIN in ctx.argv else None
        if ctx.recall is None and ctx.memory_dir:
            ctx.recall = _recall_from_cwd(ctx.raw, ctx.memory_dir)
        ctx.recall_known = True
    return ctx.recall


def _recall_from_cwd(raw: bytes, memory_dir: str) -> "tuple[str, str] | None":
    import json
    import os
    import shlex

    from memory.core import layout
    from memory.runtimes import payload

    try:
        data = json.loads(raw)
    except ValueError:
        return None
    here = payload.cwd(data) if isinstance(data, dict) else None
    if not here:
        return None
    named = os.path.join(layout.MEMORY_SUBDIR, layout.RECALL_SCRIPT)
    script = os.path.realpath(os.path.join(memory_dir, layout.RECALL_SCRIPT))
    here, root = os.path.realpath(here), os.path.realpath(os.path.dirname(os.path.dirname(memory_dir)))
    try:
        inside = os.path.commonpath([here, root]) == root
        path = os.path.relpath(script, here) if inside else script
    except ValueError:  # another drive (Windows)
        return None
    path = path.replace(os.sep, "/")
    if "/" not in path:
        path = "./" + path  # in the memory folder itself: a bare name is looked up in PATH
    return None if path == named else (named, shlex.quote(path))


def _named(named: str) -> "re.Pattern[str]":
    """`named` as a command names it: not the tail of a longer path an entry's text holds (`/ci/.beads/…`)."""
    import re

    return re.compile(r"(?<![\w./~-])" + re.escape(named))


def runnable_recall(answer: str, ctx: Context) -> str:
    """The answer with every `.beads/memory/recall.sh` it names as the agent's shell must run it (recall_swap);
    in a JSON answer, escaped as JSON."""
    import os

    from memory.core import layout

    if os.path.join(layout.MEMORY_SUBDIR, layout.RECALL_SCRIPT) not in answer:
        return answer
    swap = recall_swap(ctx)
    if swap is None:
        return answer
    import json

    named, runnable = swap
    to = json.dumps(runnable)[1:-1] if answer.lstrip().startswith("{") else runnable
    return _named(named).sub(lambda _: to, answer)


def answered_length(ctx: Context, text: str) -> int:
    """How long the context `text` is once this frame has answered with it: every recall.sh it names becomes the
    path the agent's shell runs (runnable_recall). A handler that holds a budget measures with it."""
    swap = recall_swap(ctx)
    if swap is None or swap[0] not in text:
        return len(text)
    return len(text) + len(_named(swap[0]).findall(text)) * (len(swap[1]) - len(swap[0]))
