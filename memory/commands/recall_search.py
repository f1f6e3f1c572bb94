"""recall.sh's searches: a keyword (the derived index, else only the lines that can match), a filter (type,
recency, --history), and several words ranked against the knowledge."""
from __future__ import annotations

import sys

from memory import TYPE_CHECKING
from memory.commands.recall_options import RANKED_LIMIT
from memory.core import render
from memory.core.cli import FOUND, NOTHING
from memory.core.render import format_entry
from memory.core.textmatch import fold, matches

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memory.commands.recall_options import Options

# Characters whose fold holds ASCII or vanishes (ß -> ss, ﬁ -> fi, KELVIN SIGN -> k, İ -> i, U+0307 -> ""):
# a line holding one may match an ASCII keyword its bytes do not contain, so the fast path parses it.
# tests/commands/test_recall_search.py checks that the list is complete for the running Python's Unicode tables.
FOLDS_TO_ASCII = ("\u00df\u0130\u0131\u0149\u017f\u01f0\u0307\u037e\u1e96\u1e97\u1e98\u1e99\u1e9a\u1e9e"
                  "\u1fef\u212a\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06")
# printable ASCII except the two characters JSON escapes: what a keyword shares byte for byte with a line
PLAIN_ASCII = r'[ !#-\[\]-~]+'


def select(latest: list[dict], terms: Sequence[str], entry_type: str | None, recent: int | None) -> list[dict]:
    """Entries (newest first) passing the filters, cut to `recent` when given."""
    chosen = [e for e in latest
              if (entry_type is None or e.get("type") == entry_type) and (not terms or matches(e, terms))]
    return chosen[:recent] if recent is not None else chosen


def search(memory_dir: str, terms: Sequence[str], entry_type: str | None, recent: int | None,
           include_archive: bool, history: bool = False) -> tuple[list[dict], int]:
    """The chosen entries and how many malformed lines the files hold.

    A keyword is looked up in the derived index (memory.search.find), which reads only the matching lines.
    Where the index cannot answer, only the lines that can match are parsed: those holding the longest plain-ASCII run
    of a term (every line whose fold holds the term holds that run in its lowercased bytes) plus the
    lines bytes cannot judge (FOLDS_TO_ASCII, JSON escapes). `select` then decides on the parsed entries.
    tests/commands/test_recall_search.py holds this path to the answer of parsing every line.
    """
    if terms and not history:
        from memory.search import find

        found = find.find(memory_dir, terms, include_archive=include_archive)
        if found is not None:  # the index answered: only the matching lines were read
            return select(found[0], (), entry_type, recent), found[1]  # every one holds the terms
    import re

    from memory.store import store

    runs = [run for term in terms for run in re.findall(PLAIN_ASCII, term)]
    if runs:
        needle = max(runs, key=len)
        # a character can only add to a match of the needle with a letter the needle has (ß: an "s");
        # one that folds to nothing (U+0307) joins its neighbours, so it always counts
        unsure = "".join(c for c in FOLDS_TO_ASCII if not fold(c) or set(fold(c)) & set(needle))
        snapshot = store.load_matching(memory_dir, needle.encode("ascii"), include_archive, unsure)
    else:
        snapshot = store.load(memory_dir, include_archive)
    if history:
        return versions(snapshot.entries, terms, entry_type), snapshot.malformed
    latest = store.latest(snapshot.entries, include_held=True, cache_dir=memory_dir)  # a person reads: held marked
    return select(latest, terms, entry_type, recent), snapshot.malformed


def versions(lines: list[dict], terms: Sequence[str], entry_type: str | None) -> list[dict]:
    """Every line (versions, forgets, pins) of each key that has a matching version, key by key, each
    key's lines oldest first; keys ordered by their newest line."""
    from memory.store import view

    keys = {e["key"] for e in lines if not view.is_control(e) and (entry_type is None or e.get("type") == entry_type)
            and (not terms or matches(e, terms))}
    grouped = [view.history(lines, key) for key in keys]
    grouped.sort(key=lambda group: (max(_ts(e) for e in group), group[0]["key"]), reverse=True)
    return [line for group in grouped for line in group]


def _ts(line: dict) -> float:
    ts = line.get("ts", 0)
    return ts if isinstance(ts, (int, float)) else 0


def ranked(memory_dir: str, text: str, args: Options) -> int:
    """Several words: the knowledge ranked against them (memory.search.rank over the index, both files), best
    first, each with its score; no gate, since a person asked. An error pasted as the words first brings the
    entries captured right after that same error ("seen", memory.search.recurrence)."""
    from memory.core import jsonio
    from memory.search import index, rank

    corpus = index.load(memory_dir)
    seen = _seen_before(memory_dir, text, args)
    from memory.surface import knowledge_map

    limit = args.limit or RANKED_LIMIT
    results = rank.search(corpus, text, limit=(limit if not args.entry_type else 10 * limit)
                          + knowledge_map.TITLE_LOOKAHEAD)
    results = knowledge_map.title_first(results, text)  # the map's lookup: the titled entry is the answer
    if knowledge_map.title_like(text) and not (results and knowledge_map.opening_any([results[0].entry], text)):
        results = _titled_anyway(memory_dir, text, results)
    shown = {e["key"] for e in seen}
    results = [s for s in results if (not args.entry_type or s.entry.get("type") == args.entry_type)
               and s.entry.get("key") not in shown][:max(0, limit - len(seen))]
    titled = knowledge_map.titled(results, text) if args.limit is None and not (seen or args.json) else None
    more = len(results) - 1 if titled is not None else 0
    if titled is not None:  # "read one in full": that one, not nine neighbours (3 KB) with it
        results = [titled]
    out = sys.stdout
    for found in seen:  # recorded right after a failure that printed this line: first, whatever their words
        if args.json:
            out.write(render.escape_control(jsonio.dumps(dict(found, seen_before=True))) + "\n")
        else:
            out.write(f"  seen  {format_entry(found)}\n\n")
    for scored in results:
        if args.json:
            record = dict(scored.entry, score=round(scored.score, 3))
            if args.explain:
                record["why"] = scored.why
            out.write(render.escape_control(jsonio.dumps(record)) + "\n")
            continue
        why = f"  [{', '.join(scored.why)}]" if args.explain else ""
        out.write(f"{scored.score:6.2f}{why}  {format_entry(scored.entry)}\n\n")
    if (results or seen) and not args.json:
        from memory.surface import use

        # a lookup (the map's `recall.sh "<words of a title>"`): its answer rises in the map
        use.credit(memory_dir, [e["key"] for e in seen] + [str(s.entry.get("key")) for s in results[:1]])
        also = f"{len(seen)} recorded right after this error (\"seen\"), " if seen else ""
        if more:
            out.write(f"the entry this title opens ({more} more rank below it: --limit {RANKED_LIMIT})\n")
        else:
            out.write(f"{also}{len(results)} ranked entr{'y' if len(results) == 1 else 'ies'} (both files, latest "
                      "per key; --exact: only entries holding every word)\n")
    sys.stderr.write(render.found_notes(corpus.malformed, bool(results or seen)))
    return FOUND if results or seen else NOTHING


def _titled_anyway(memory_dir: str, text: str, results: list) -> list:
    """A title whose entry ranked past the look-ahead: its words differ from its neighbours' only by words the
    ranker leaves out ("… on CI if you…" among 150 entries opening "When running the integration tests on CI"),
    so another entry came first. The entries opening with those words, read from the files, first."""
    from memory.search.rank import Scored
    from memory.store import store
    from memory.surface import knowledge_map

    found = knowledge_map.opening_any(store.latest(store.load(memory_dir, include_archive=True).entries), text)
    if not found:
        return results
    keys = {e.get("key") for e in found}
    top = results[0].score if results else 0.0
    return [Scored(e, top, ["opens with these words"]) for e in found] + \
        [s for s in results if s.entry.get("key") not in keys]


def _seen_before(memory_dir: str, text: str, args: Options) -> list[dict]:
    """The live entries captured right after a failure that printed a line of `text` (an error pasted as the
    query: memory.search.path_cues.seen_in_text), as stored, newest first."""
    from memory.search import path_cues

    found = path_cues.seen_in_text(memory_dir, text, rebuild=True)
    if not found:
        return []
    from memory.store import store

    wanted = [key for key, kind, _, _ in found if not args.entry_type or kind == args.entry_type]
    by_key = {e.get("key"): e for e in store.latest(store.load(memory_dir).entries) if e.get("key") in wanted}
    return [by_key[key] for key in wanted if key in by_key][:args.limit or RANKED_LIMIT]
