"""memory-doctor --report FILE.html / memory-hooks report FILE.html: the knowledge on one static page.

Entries by type, topic, bead and age; growth over time (inline SVG); stale, duplicate and redacted entries;
what session start shows today (the digest and map, as memory.surface.digest renders them, without recording anything)
and which entries were given to sessions on this machine; a filterable table with each entry's pin, forget and
redact commands. Reads the knowledge files and the machine-local injected.json; writes only FILE
(temp file + os.replace).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter

from memory.commands import report_html
from memory.commands.report_html import GENERATOR, esc
from memory.core import config, focus, fsio, layout, paths, render, state
from memory.search import stale
from memory.store import dedupe, store, view
from memory.surface import digest, knowledge_map, use

AGES = ((86400, "today"), (7 * 86400, "this week"), (30 * 86400, "this month"), (182 * 86400, "last 6 months"))
AGE_ORDER = [name for _, name in AGES] + ["older", "unknown"]
STALE_DAYS = 180


def age_bucket(ts: object, now: float) -> str:
    if not isinstance(ts, (int, float)):
        return "unknown"
    return next((name for limit, name in AGES if now - ts < limit), "older")


def growth(lines: list[dict]) -> list[tuple[float, int]]:
    """(time, distinct keys seen by then): zero at the start of the first day, then the count at the end of
    each day on which a key first appeared."""
    first: dict[str, float] = {}
    for line in lines:
        ts = line.get("ts")
        if view.is_control(line) or not isinstance(ts, (int, float)):
            continue
        key = str(line["key"])
        first[key] = min(first.get(key, ts), ts)
    per_day = Counter(int(ts // 86400) * 86400 for ts in first.values())
    points: list[tuple[float, int]] = []
    total = 0
    for day in sorted(per_day):
        if not points:
            points.append((float(day), 0))  # the line rises from nothing on the first day
        total += per_day[day]
        points.append((float(day + 86400), total))
    return points


def duplicates(latest: list[dict]) -> list[list[dict]]:
    """Live entries of different keys holding the same text (case, spacing and punctuation aside)."""
    groups: dict[str, list[dict]] = {}
    for entry in latest:
        groups.setdefault(dedupe.normalized(str(entry.get("content", ""))), []).append(entry)
    return [group for text, group in groups.items() if text and len(group) > 1]


def session_start_preview(memory_dir: str, root: str) -> str:
    """The knowledge part of what session start would inject now (Claude Code's budget), without recording it: from
    what session start reads (the live entries of both files, the archive's newest: memory.surface.start_cache)."""
    from memory.surface import start_cache

    live = start_cache.live_view(memory_dir, read_large=True)  # a person waits: the whole archive
    latest = live.latest
    settings = config.load(memory_dir)
    git = paths.work_tree_git(root, root)
    beads = focus.bead_candidates(git.branch if git else None, root)
    files = paths.changed_files(git.toplevel) if git and latest else []
    groups = digest.choose(latest, beads, files, [], settings["session_newest"])
    return digest.render_digest(latest, groups, [], config.budget_chars(settings["session_budget_tokens"]),
                                settings["entry_chars"], files, live.topics, use.counts(memory_dir))


def given_counts(memory_dir: str) -> Counter:
    """{key: sessions on this machine (the last day) that were given it}, from injected.json."""
    counts: Counter = Counter()
    for record in state.read(memory_dir, layout.INJECTED).values():
        keys = record.get("keys") if isinstance(record, dict) else None
        counts.update(k for k in set(keys or []) if isinstance(k, str))
    return counts


def build(memory_dir: str, root: str, now: float | None = None) -> str:
    """The report page for the knowledge in `memory_dir` (the repository at `root`)."""
    now = time.time() if now is None else now
    snapshot = store.load(memory_dir, include_archive=True)
    latest = store.latest(snapshot.entries, every_copy=True)  # the duplicates section lists each copy
    topics = knowledge_map.topics(latest, os.path.basename(os.path.abspath(root))) if latest else {}
    checked = stale.find(latest, root, STALE_DAYS, now=now)  # None: git could not tell, no all-clear either
    stale_found = {str(e["key"]): gone for e, gone in checked or ()}
    dupes = duplicates(latest)
    dupe_keys = {str(e["key"]) for group in dupes for e in group}
    given = given_counts(memory_dir)
    uses = use.counts(memory_dir, now=now)
    rows = []
    for entry in latest:
        key = str(entry["key"])
        flags = [name for name, on in (("pinned", entry.get("pinned")), ("stale", key in stale_found),
                                       ("duplicate", key in dupe_keys), ("redacted", entry.get("redacted")),
                                       ("given", given.get(key)), ("used", uses.get(key))) if on]
        rows.append(report_html.entry_row(entry, topics.get(key, ""), age_bucket(entry.get("ts"), now), flags))
    by = report_html.counts_table
    counts = "".join([
        by("type", Counter(str(e.get("type")) for e in latest).most_common()),
        by("topic", Counter(topics.values()).most_common(15)),
        by("bead", Counter(str(e.get("bead") or "-") for e in latest).most_common(15)),
        by("age", sorted(Counter(age_bucket(e.get("ts"), now) for e in latest).items(),
                         key=lambda item: AGE_ORDER.index(item[0]))),
    ])
    summary = (f"<p>{len(latest)} live entries ({len(snapshot.entries)} lines in {esc(layout.KNOWLEDGE)} and "
               f"{esc(layout.ARCHIVE)}, {snapshot.malformed} malformed skipped) in <code>{esc(memory_dir)}</code>; "
               f"written {esc(time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(now)))}.</p>")
    stale_html = "".join(f"<li><code>{esc(k)}</code>: gone {esc(', '.join(g))}</li>" for k, g in stale_found.items())
    dupe_html = "".join("<li>" + ", ".join(f"<code>{esc(e['key'])}</code>" for e in group) + "</li>" for group in dupes)
    redacted = [e for e in latest if e.get("redacted") and isinstance(e["redacted"], list)]  # the store's list
    red_html = "".join(f"<li><code>{esc(e['key'])}</code>: {esc(', '.join(map(str, e['redacted'])))}</li>"
                       for e in redacted)
    preview = session_start_preview(memory_dir, root)
    shown_text = "\n".join(render.strip_control(line) for line in preview.split("\n")) or "(nothing)"
    told = sum(1 for e in latest if given.get(str(e["key"])))
    used = sum(1 for e in latest if uses.get(str(e["key"])))
    sections = [
        ("Summary", summary),
        ("Entries by type, topic, bead and age", f'<div class="counts">{counts}</div>'),
        ("Growth", report_html.growth_svg(growth(snapshot.entries))),
        (f"Stale ({len(stale_found)})" if checked is not None else "Stale (not checked)",
         f"<p>Not re-confirmed for {STALE_DAYS} days and naming files or symbols the repository no longer has.</p>"
         + (f"<ul>{stale_html}</ul>" if checked is not None else "<p>Not checked: git could not list the "
            "repository's files and symbols (not a git repository, or no answer in time).</p>")),
        (f"Duplicates ({len(dupes)})", f"<p>Different keys, same text: forget all but one.</p><ul>{dupe_html}</ul>"),
        (f"Redacted ({len(redacted)})", f"<p>Secrets replaced by a marker when they were recorded.</p>"
                                        f"<ul>{red_html}</ul>"),
        ("What session start shows today", f"<pre>{esc(shown_text)}</pre>"
                                           f"<p>{told} entr{'y was' if told == 1 else 'ies were'} "
                                           "given to agents in sessions of the last day on this machine (flag "
                                           f"<i>given</i>); {used} looked up or acted on in the last 180 days (flag "
                                           "<i>used</i>: kept first in the map when not every title fits).</p>"),
    ]
    return report_html.page("memory-hooks report", sections, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="memory-hooks report", description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", help=f"where to write (.beads/memory/{layout.REPORT}, never committed)")
    parser.add_argument("--memory-dir", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    return write(args.file, args.memory_dir)


def write(file: str | None, memory_dir: str | None = None) -> int:
    """Build the report for the repository you are in and write it to `file` (the memory folder's machine-local
    report.html when None); 0 done, 2 could not."""
    cwd = os.environ.get("MEMORY_HOOKS_ANCHOR") or os.getcwd()
    root = paths.project_root(cwd, None)
    memory_dir = memory_dir or paths.memory_dir(cwd)
    file = file or os.path.join(memory_dir, layout.REPORT)
    if file == "-":
        sys.stdout.write(build(memory_dir, root))
        return 0
    refused = _not_a_report(os.path.abspath(file))
    if refused:
        print(f"report: {file} {refused}: not overwritten; give a new file (or one an earlier --report wrote)",
              file=sys.stderr)
        return 2
    try:
        page = build(memory_dir, root)
        fsio.atomic_write(os.path.abspath(file), page.encode("utf-8"))
    except OSError as exc:
        print(f"report: cannot write {exc.filename or file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"report: {os.path.abspath(file)} ({len(page) // 1024} KiB; open it in a browser, it fetches nothing)")
    if committable(os.path.abspath(file)):
        print(f"report: WARNING {file} is inside the repository and not gitignored: it holds every entry's text as it "
              f"is now (a later --redact does not reach it); keep it out of commits, or write it outside the "
              f"repository (with no FILE it goes to .beads/memory/{layout.REPORT}, ignored)", file=sys.stderr)
    return 0


def _not_a_report(path: str) -> str | None:
    """Why `path` must not be replaced by a report, or None: it is absent, or a report this command wrote. The
    rename went through anything (a tracked README, a FIFO, /dev/full as root)."""
    import stat

    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be checked ({exc.strerror or exc})"
    if not stat.S_ISREG(info.st_mode):
        return "exists and is not a regular file"
    try:
        with open(path, "rb") as fh:
            head = fh.read(512)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    earlier = f'content="{report_html.CSP}"'.encode()  # a report from before the generator line
    return None if GENERATOR.encode() in head or earlier in head else "exists and is not a report"


def committable(path: str) -> bool:
    """Whether `git add .` would pick the file up: inside a work tree and not ignored."""
    folder = os.path.dirname(path)
    if paths.git_lines(["rev-parse", "--is-inside-work-tree"], folder, 5.0) != ["true"]:
        return False
    return not paths.git_lines(["check-ignore", "--", path], folder, 5.0)
