"""recall.sh's commands besides searching and recording: --stats, --handoffs/--handoff, --setup-git, --stale,
--topic, --similar."""
from __future__ import annotations

import os
import sys
import time

from memory.core import cli, jsonio, paths, render
from memory.store import store


def stats(memory_dir: str, include_archive: bool) -> int:
    """--stats: the counts (stats_report) of the active knowledge, or both files."""
    from memory.core.cli import FOUND, NOTHING

    try:
        snapshot = store.load(memory_dir, include_archive=include_archive)
        latest = store.latest(snapshot.entries, include_held=True, cache_dir=memory_dir)
        report = stats_report(memory_dir, snapshot, latest)
    except OSError as exc:  # not a regular file, a symlink, no permission: say which file and why
        return cli.cannot_read(exc, memory_dir)
    print(report)
    return FOUND if snapshot.entries else NOTHING


def stats_report(memory_dir: str, snapshot: store.Snapshot, latest: list[dict]) -> str:
    """Counts per type, source and tag, with the archive's size and malformed lines."""
    from collections import Counter


    archive = store.read_file(store.path(memory_dir, store.ARCHIVE))
    types = Counter(str(e.get("type")) for e in latest)
    sources = Counter(str(e.get("source")) for e in latest)
    tags = Counter(t for e in latest for t in (e["tags"] if isinstance(e.get("tags"), list) else [])
                   if isinstance(t, str) and t != e.get("type"))

    def fmt(counter: Counter) -> str:
        return ", ".join(f"{k} {v}" for k, v in counter.most_common(10)) or "-"

    rows = [
        ("memory", memory_dir),
        ("entries", f"{len(snapshot.entries)} lines, {len(latest)} unique keys"),
        ("by type", fmt(types)),
        ("by source", fmt(sources)),
        ("top tags", fmt(tags)),
        ("archive", f"{store.read('', archive).lines} lines, {len(archive) / 1024:.1f} KiB"),
        ("malformed", f"{snapshot.malformed} line(s) skipped"),
    ]
    return "\n".join(f"{name + ':':<11} {render.strip_control(value)}" for name, value in rows)


def handoffs(memory_dir: str, newest: int | None, wanted: str | None) -> int:
    """--handoffs [N]: one line each, newest first; --handoff ID: that one, whole."""
    from memory.core.cli import FOUND, NOTHING
    from memory.runtimes import handoff_read
    from memory.surface import lastsession

    found = handoff_read.load(memory_dir)
    if wanted:
        match = [h for h in found if h["id"] == wanted]
        if match:
            import json

            sys.stdout.write(json.dumps(match[-1], indent=2, ensure_ascii=True) + "\n")  # escapes every control char
        else:
            print(f"recall.sh: no handoff {wanted} (recall.sh --handoffs lists them)", file=sys.stderr)
        return FOUND if match else NOTHING
    now = time.time()
    for h in list(reversed(found))[:newest]:
        ended = h.get("ended") if isinstance(h.get("ended"), (int, float)) else now
        task = ((h.get("task") or {}).get("latest") or "") if isinstance(h.get("task"), dict) else ""
        sys.stdout.write(f"{h['id']}  {lastsession.age(now - ended):<14} {str(h.get('event')):<12} "
                         f"{render.one_line(str(h.get('branch') or '-'), 30):<20} {render.one_line(task, 80)}\n")
    if not found:
        print("recall.sh: no handoffs yet (written at compaction and session end)", file=sys.stderr)
    return FOUND if found else NOTHING


def setup_git() -> int:
    """--setup-git: the merge driver's git config, for a clone that has the attributes but not the config; a
    merge that already stopped on a text conflict in the knowledge files is merged again with the driver."""
    from memory.core.cli import FOUND, USAGE
    from memory.store import gitmerge

    root = paths.project_root(os.environ.get("MEMORY_HOOKS_ANCHOR") or os.getcwd(), None)
    if not gitmerge.configure(root):
        print(f"recall.sh: git config could not be set in {root}", file=sys.stderr)
        return USAGE
    print(f"merge driver set: git config merge.{gitmerge.DRIVER}.driver = {gitmerge.driver_command()}")
    for rel in gitmerge.remerge(root):  # a merge that already stopped on them: merged as the driver would have
        print(f"merged {rel} again with the driver and staged it; finish the merge or rebase as usual")
    for rel in gitmerge.unresolved(root):
        print(f"recall.sh: {rel} is still unmerged (the merge driver could not merge it); "
              "resolve it by hand, then git add it", file=sys.stderr)
    _apply_redactions(paths.memory_dir(os.environ.get("MEMORY_HOOKS_ANCHOR") or os.getcwd()))
    if not gitmerge.has_attributes(root):
        print("recall.sh: note: .gitattributes does not name it yet (install.sh writes those lines)", file=sys.stderr)
    return FOUND


def _apply_redactions(memory_dir: str) -> None:
    """What another clone's `recall.sh --redact` rewrote (memory.store.redactions), applied here too: a merge
    that stopped on an inbox file that clone redacted and this one had folded leaves the old line otherwise."""
    from memory.core import locking
    from memory.store import redactions

    if not os.path.exists(os.path.join(memory_dir, redactions.RECORDS)):
        return
    try:
        done = store.apply_redactions(memory_dir)
    except (OSError, locking.LockTimeout) as exc:
        print(f"recall.sh: recorded redactions not applied ({exc}); run recall.sh --doctor --repair", file=sys.stderr)
        return
    for name, n in done.rewritten.items():
        print(f"rewrote {n} line(s) of {name} that another clone redacted ({redactions.RECORDS}); commit it")


def stale(memory_dir: str, days: int, as_json: bool) -> int:
    """--stale: old entries naming what the repository no longer has, with what is gone."""
    from memory.core.cli import FAILED, FOUND, NOTHING
    from memory.core.render import format_entry
    from memory.search import stale as stale_mod

    root = paths.project_root(os.environ.get("MEMORY_HOOKS_ANCHOR") or os.getcwd(), None)
    try:
        snapshot = store.load(memory_dir)
    except OSError as exc:
        return cli.cannot_read(exc, memory_dir)
    found = stale_mod.find(store.latest(snapshot.entries, cache_dir=memory_dir), root, days)
    sys.stderr.write(render.found_notes(snapshot.malformed, True))  # what every read command says of them
    if found is None:
        print(f"recall.sh: nothing checked: git could not list {root}'s files and symbols (not a git repository, "
              f"no git, or no answer within {stale_mod.GIT_TIMEOUT:.0f} s)", file=sys.stderr)
        return FAILED
    for entry, gone in found:
        if as_json:
            sys.stdout.write(render.escape_control(jsonio.dumps(dict(entry, gone=gone))) + "\n")
        else:
            sys.stdout.write(f"{format_entry(entry)}\n    gone: {render.strip_control(', '.join(gone))}\n\n")
    if found and not as_json:
        sys.stdout.write(f"{len(found)} stale entr{'y' if len(found) == 1 else 'ies'} (not re-confirmed for "
                         f"{days} days); correct one with LEARNED[key]: …, or recall.sh --forget KEY\n")
    if not found:
        print(f"recall.sh: no entry older than {days} days names a file or symbol that is gone", file=sys.stderr)
    return FOUND if found else NOTHING


def topic(memory_dir: str, name: str, as_json: bool, limit: int | None = None) -> int:
    """--topic NAME: the live entries the session-start map places under NAME (memory.surface.knowledge_map,
    from session start's own view), newest first, one line each (a topic of 180 entries printed in full was
    64 KB in the agent's context); `general` lists those no topic word holds. --json: the entries whole."""
    from memory.core.cli import FOUND, NOTHING
    from memory.surface import knowledge_map, start_cache

    try:
        view = start_cache.live_view(memory_dir, read_large=True)  # a person waits: the whole archive
    except OSError as exc:
        return cli.cannot_read(exc, memory_dir)
    wanted = name.casefold()
    found = [e for e in view.latest if str(view.topics.get(str(e["key"]), "")).casefold() == wanted]
    shown = found[:limit] if limit is not None else found  # newest first
    for entry in shown:
        if as_json:
            sys.stdout.write(render.escape_control(jsonio.dumps(entry)) + "\n")
        else:
            kind = render.label(str(entry.get("type", "")))
            sys.stdout.write(f"  [{kind}] {knowledge_map.title(str(entry.get('content', '')), TOPIC_TITLE)}\n")
    if found and not as_json:
        newest = f"the newest {len(shown)} of " if len(shown) < len(found) else ""
        sys.stdout.write(f"{newest}{len(found)} entr{'y' if len(found) == 1 else 'ies'} of topic "
                         f"{render.one_line(name, 60)}; read one in full: {knowledge_map.READ_HINT}\n")
    if not found:
        print(f"recall.sh: no topic {render.one_line(name, 60)} (session start's map names the topics)",
              file=sys.stderr)
    return FOUND if found else NOTHING


TOPIC_TITLE = 72  # characters of an entry's opening in a --topic listing: the map's longest title


def similar(memory_dir: str, as_json: bool = False, limit: int | None = None) -> int:
    """--similar: pairs of live entries that say nearly the same (memory.search.similar), most alike first,
    each with what a person does about it; nothing is changed. --json: `{"score", "newer", "older"}` lines."""
    from memory.core.cli import FOUND, NOTHING
    from memory.core.render import format_entry
    from memory.search import similar as similar_mod

    try:
        snapshot = store.load(memory_dir)
    except OSError as exc:
        return cli.cannot_read(exc, memory_dir)
    found = similar_mod.pairs(store.latest(snapshot.entries, cache_dir=memory_dir))[:limit]
    for newer, older, score in found:
        if as_json:
            record = {"score": round(score, 3), "newer": newer, "older": older}
            sys.stdout.write(render.escape_control(jsonio.dumps(record)) + "\n")
        else:
            sys.stdout.write(f"{score:.2f} alike:\n{format_entry(newer)}\n{format_entry(older)}\n\n")
    if found and not as_json:
        sys.stdout.write(f"{len(found)} pair{'s' if len(found) > 1 else ''} of near-identical entries; the same "
                         "insight twice: recall.sh --forget KEY (one of them); worth keeping apart: leave them\n")
    else:
        print("recall.sh: no two live entries are near-identical", file=sys.stderr)
    return FOUND if found else NOTHING
