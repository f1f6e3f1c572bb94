"""The knowledge map: every live entry that session start does not show in full, as a short title, by topic.

The model judges relevance better than a ranker when it can see what exists, so the map puts a title of
every entry in view and `recall.sh "<words of a title>"` prints one in full. Over its budget, a stated
priority decides which entries keep a title (see `priority`); the rest stand as topic counts.
"""
from __future__ import annotations

import os

from memory import TYPE_CHECKING
from memory.core import focus, render

if TYPE_CHECKING:
    from memory.search.rank import Scored

# Only topics() needs these (a session start whose topics are cached draws titles only): imported and
# compiled there, not here (~0.5 ms).
_WORD = r"[^\W_][\w-]*[^\W_]"

GENERAL = "general"  # the topic of an entry with no vocabulary tag
TITLE_CHARS = (72, 60, 50, 44)  # tried longest first until every title fits
MIN_TITLE = 40  # a title cut shorter than this at a word boundary looks for the next boundary instead
OVERSHOOT = 12  # ...at most this far past the limit; else the cut falls mid-word
TITLE_EXTRA = 40  # titles of entries opening alike run on to where they part, at most this far past the limit
TYPE_ORDER = {"decision": 0, "warning": 0, "pattern": 1}  # everything else (learned) after
USE_TIERS = 3  # uses beyond this rank alike: a long-popular entry does not hold its title against all newer use
TOPIC_HINT = '.beads/memory/recall.sh --topic "<topic>"'  # a title per line (a word's search prints every text)
READ_HINT = '.beads/memory/recall.sh "<words of a title>"'


def title(text: str, limit: int) -> str:
    """The entry's first words on one line: the whole text when it fits in `limit`, else cut at a word
    boundary (in scripts written without spaces, at a character that starts a new one) and marked `…`."""
    flat = " ".join(render.strip_control(text).split())
    if len(flat) <= limit:
        return flat
    cut = flat.rfind(" ", 0, limit + 1)
    if cut < MIN_TITLE:
        later = flat.find(" ", MIN_TITLE)
        cut = later if 0 < later <= limit + OVERSHOOT else limit
        import unicodedata

        # never part a letter from its accent or vowel sign (marks of class 0 too: Thai, Devanagari, a keycap),
        # nor the parts of an emoji joined by ZWJ
        while 0 < cut < len(flat) and (unicodedata.category(flat[cut]).startswith("M")
                                       or "\u200d" in flat[cut - 1:cut + 1]):
            cut -= 1
    return flat[:cut].rstrip() + "…"


TITLE_LOOKAHEAD = 30  # recall.sh ranks this many more to find the entry a title's words open


def _title_words(text: str) -> str:
    """A lookup's words as a title's opening is compared: without the title's `…`, spacing and case folded."""
    return " ".join(text.rstrip().rstrip("…").rstrip(".").split()).casefold()


def _opens(entry: dict, words: str) -> bool:
    """The entry's text opens with `words` (_title_words)."""
    return " ".join(render.strip_control(str(entry.get("content", ""))).split()).casefold().startswith(words)


def _opening(results: list[Scored], words: str) -> list[Scored]:
    """Of `results`, those whose text opens with `words` (_title_words), in their order."""
    return [s for s in results if _opens(s.entry, words)]


def title_first(results: list[Scored], text: str) -> list[Scored]:
    """`recall.sh "<words of a title>"` (ranked results, memory.search.rank.Scored): the entries whose text opens
    with those words (with the title's `…` or without) first, in ranked order, then the others. A title's words
    also stand in entries sharing more of them, which outrank it otherwise."""
    words = _title_words(text)
    opening = _opening(results, words) if " " in words else []
    return opening + [s for s in results if s not in opening] if opening else results


def title_like(text: str) -> bool:
    """Words a map title could be: four or more (a title is an entry's opening, cut at a word), or its `…`."""
    return len(_title_words(text).split()) >= 4 or text.rstrip().endswith("…")


def opening_any(entries: list[dict], text: str) -> list[dict]:
    """Of `entries`, those whose text opens with the words of `text` (a title), in their order."""
    words = _title_words(text)
    return [e for e in entries if _opens(e, words)]


def titled(results: list[Scored], text: str) -> Scored | None:
    """The one entry a map title names (`recall.sh "<words of a title>"`): four words or more (a title is an
    entry's opening, cut at a word), or the title's `…`, that open exactly one of `results`; else None."""
    words = _title_words(text)
    if not title_like(text):
        return None
    opening = _opening(results, words)
    return opening[0] if len(opening) == 1 else None


# instruction words every rule uses: no topic ("never use", "always run", "prefer", "avoid")
_GENERIC = frozenset(["use", "uses", "using", "used", "run", "runs", "running", "avoid", "prefer", "never", "don",
    "dont", "instead", "file", "files", "code", "add", "adds", "should", "must", "new", "make", "makes", "keep",
    "keeps", "check", "checks", "sure", "write", "writes", "note", "default", "only", "first", "want", "wants", "work",
    "works", "set", "sets", "need", "needs", "also", "like", "via", "always", "example", "e.g", "i.e", "one", "two",
    "all", "any", "true", "false", "null", "none"])  # the last four: literals of code, never a subject
_REDACTED = r"<redacted:[\w-]*>"  # what the store writes in place of a credential (memory.store.redact): no topic
TOPIC_TEXT = 240  # an entry's topic word comes from its opening, the part its title shows
_MIN_TOPIC = 3  # entries a word must gather to be a topic
_MAX_SHARE = 0.34  # ...and at most this share of them (a word in half the entries says nothing)


def topics(entries: list[dict], project: str = "") -> dict[str, str]:
    """{key: topic}: a word several entries share, chosen greedily (the word gathering the most entries not
    yet placed first), so `recall.sh WORD` lists a topic; `general` for an entry no such word holds. A chosen
    word's other forms join its topic (`changes` takes the entries saying `change`: one topic, not two), named
    as the entries write it most; the project's own name (`project`, its folder's name) is no topic: in its own
    repository it says nothing."""
    import heapq
    import re

    from memory.search.stemming import stem
    from memory.search.tokenize import STOP_WORDS

    word_pattern, redacted = re.compile(_WORD), re.compile(_REDACTED)
    own_name = _folded(project)
    holders: dict[str, set[str]] = {}  # by word: the greedy choice counts a word as written
    family: dict[str, set[str]] = {}  # by stem: who joins the topic once its word is chosen
    spellings: dict[str, dict[str, int]] = {}  # by stem: its forms as written, and how often
    openings: dict[str, dict[str, int]] = {}  # by stem: `Create` opening a sentence (a name, or just a capital?)
    lowered: dict[str, str] = {}  # by key: the text a topic name must stand in
    roots: dict[str, str | None] = {}  # by word in lower case: its stem, None for no topic (decided once a call)
    for entry in entries:
        key = str(entry["key"])
        text = str(entry.get("content", ""))[:TOPIC_TEXT]
        if "<redacted:" in text:
            text = redacted.sub(" ", text)
        lowered[key] = text.lower()
        held: dict[str, str] = {}  # this entry's topic words, each counted once
        for match in word_pattern.finditer(text):
            word = match.group(0)
            low = word.lower()
            if low in roots:
                root = roots[low]
            else:
                root = roots[low] = None if len(low) < 3 or low in STOP_WORDS or low in _GENERIC or low.isdigit() \
                    or (low if low.isalnum() else _folded(low)) == own_name else stem(low)
            if root is None:
                continue
            held[low] = root
            forms = (openings if _opens_sentence(word, text, match.start()) else spellings).setdefault(root, {})
            forms[word] = forms.get(word, 0) + 1
        for low, root in held.items():
            holders.setdefault(low, set()).add(key)
            family.setdefault(root, set()).add(key)
    _join_plurals(holders)
    most = max(3 * _MIN_TOPIC, int(len(entries) * _MAX_SHARE))
    # lazy greedy set cover: a word's count only shrinks, so a popped word still at least as large as the next
    # one in the heap is the largest now
    heap = [(-len(keys), -len(w), w) for w, keys in holders.items() if _MIN_TOPIC <= len(keys) <= most]
    heapq.heapify(heap)
    placed: dict[str, str] = {}
    named: set[str] = set()  # the stems already naming a topic
    while heap:
        _, minus_length, word = heapq.heappop(heap)
        members = {k for k in holders[word] if k not in placed}
        if len(members) < _MIN_TOPIC:
            continue
        if heap and len(members) < -heap[0][0]:
            heapq.heappush(heap, (-len(members), minus_length, word))
            continue
        root = stem(word)
        # `recall.sh "<topic>"` must list every member: an entry joins only when it holds the name. A form the
        # name does not begin with (`changing` under `changes`) is a topic of its own when chosen later
        name = word if root in named else _name(spellings.get(root, {}), openings.get(root, {}))
        joined = {key for key in members | family[root] if key not in placed and name.lower() in lowered[key]}
        if len(joined) < _MIN_TOPIC:
            continue
        named.add(root)
        placed.update(dict.fromkeys(joined, name))
    return {str(e["key"]): placed.get(str(e["key"]), GENERAL) for e in entries}


def project_name(memory_dir: str) -> str:
    """The project's name as its folder says it: the repository holding `<root>/.beads/memory`."""
    import os

    return os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(memory_dir))))


def _folded(name: str) -> str:
    """A name without case or separators (`Cal.com`, `cal-com` -> `calcom`): how a folder names its project."""
    return "".join(c for c in name.lower() if c.isalnum())


def _opens_sentence(word: str, text: str, start: int) -> bool:
    """`Create` opening a sentence: maybe the word `create`, maybe a name (`Grafana`); `ClickHouse` and `API`
    are names wherever they stand."""
    if not word[:1].isupper() or not word[1:].islower():
        return False
    at = start - 1
    while at >= 0 and text[at].isspace():
        at -= 1
    return at < 0 or text[at] in ".:;!?"


def _name(forms: dict[str, int], openings: dict[str, int]) -> str:
    """The topic's name: a form the others begin with (`package` for `packages`: `recall.sh package`, which
    matches inside words, lists them all), else any; of those the one the entries write most, a capital opening
    a sentence counted as the word in lower case when the entries also write it so (`Create` is `create`;
    `Grafana` stays); among equals a name's capitals (`ClickHouse` over `clickhouse`), then the shortest."""
    counts = dict(forms)
    for form, n in openings.items():
        low = form.lower()
        as_written = low if low in forms else form
        counts[as_written] = counts.get(as_written, 0) + n
    lows = {form.lower() for form in counts}
    covering = [form for form in counts if all(other.startswith(form.lower()) for other in lows)]
    return min(covering or counts, key=lambda form: (-counts[form], form.islower(), len(form), form))


def _join_plurals(holders: dict[str, set[str]]) -> None:
    """A plural (`packages`, `boxes`) counts with its singular when entries use both: the greedy choice weighs
    `package` by all the entries writing either (a map showed `PACKAGE (74)` beside `Packages (49)`)."""
    for low in sorted(holders, key=len, reverse=True):
        for ending in ("s", "es"):
            single = low[:-len(ending)]
            if low.endswith(ending) and single in holders and single != low and low in holders:
                holders[single] |= holders.pop(low)
                break


def priority(entries: list[dict], branch_files: list[str], uses: dict[str, int] | None = None) -> list[dict]:
    """Which entries keep a title first when not all fit: pinned ones (more than session start shows in
    full), then decisions and warnings, then patterns, then the rest; within each, the entries the agent used
    most (memory.surface.use: up to USE_TIERS uses tell apart),
    then those naming a file this branch changed, then the newest."""
    uses = uses or {}

    def rank(entry: dict) -> tuple[int, int, int, int, float]:
        ts = entry.get("ts")
        return (0 if entry.get("pinned") else 1,  # a pin session start could not show in full
                TYPE_ORDER.get(str(entry.get("type")), 2),
                -min(uses.get(str(entry.get("key")), 0), USE_TIERS),
                0 if branch_files and focus.names_a_file(entry, branch_files) else 1,
                -float(ts) if isinstance(ts, (int, float)) else 0.0)

    return sorted(entries, key=rank)


def overflows(entries: list[dict], budget: int) -> bool:
    """True when even the shortest titles of all `entries` cannot fit in `budget`: the map will take all the
    room it is given (a cheap bound, no title drawn)."""
    return sum(min(len(str(e.get("content", ""))), MIN_TITLE) + 5 for e in entries) > budget


def render_map(entries: list[dict], branch_files: list[str], budget: int,
               placed: dict[str, str] | None = None, uses: dict[str, int] | None = None) -> tuple[str, list[dict]]:
    """The map of `entries` within `budget` characters, and the entries it titles; ('', []) when there is
    nothing to map or not even the heading fits. `placed`: topics() of these entries or more, when known;
    `uses`: memory.surface.use.counts, for the priority."""
    if not entries:
        return "", []
    placed = placed if placed is not None else topics(entries)
    per_topic: dict[str, list[dict]] = {}
    for entry in sorted(entries, key=_newest_first):  # titles newest first within a topic
        per_topic.setdefault(placed[str(entry["key"])], []).append(entry)
    grouped = [(name, per_topic[name])
               for name in sorted(per_topic, key=lambda t: (t == GENERAL, -len(per_topic[t]), t))]
    titles: dict[tuple[str, int], str] = {}

    def at(limit: int) -> dict[tuple[str, int], str]:
        if (str(entries[0]["key"]), limit) not in titles:
            titles.update(((key, limit), line) for key, line in distinct_titles(entries, limit).items())
        return titles

    everything = {str(e["key"]) for e in entries}
    for limit in TITLE_CHARS if not overflows(entries, budget) else ():  # else not even the shortest all fit
        text = _compose(len(entries), grouped, everything, limit, at(limit))
        if len(text) <= budget:
            return text, entries
    ordered = priority(entries, branch_files, uses)
    # the most titles that fit: composing is linear, so search for it (a title line takes 6 characters at least)
    low, high = 0, min(len(ordered), budget // 6)
    while low < high:
        middle = (low + high + 1) // 2
        keys = {str(e["key"]) for e in ordered[:middle]}
        if len(_compose(len(entries), grouped, keys, TITLE_CHARS[-1], at(TITLE_CHARS[-1]))) <= budget:
            low = middle
        else:
            high = middle - 1
    text = _compose(len(entries), grouped, {str(e["key"]) for e in ordered[:low]}, TITLE_CHARS[-1], at(TITLE_CHARS[-1]))
    return (text, ordered[:low]) if len(text) <= budget else ("", [])


def _lower(text: str) -> str:
    """`text` in lower case, character for character (a character whose lower case is longer stays as it is)."""
    low = text.lower()
    return low if len(low) == len(text) else "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def distinct_titles(entries: list[dict], limit: int) -> dict[str, str]:
    """key -> its title line (`  - [WARN] …`) at `limit`; entries whose titles would read the same (insights
    opening with the same words) each get theirs cut a little past where their texts part, so the map never
    lists one line twice and `recall.sh "<words of a title>"` finds each."""
    texts = {str(e["key"]): " ".join(render.strip_control(str(e.get("content", ""))).split()) for e in entries}
    cut = {key: title(text, limit) for key, text in texts.items()}
    # alike as recall.sh compares a title's words: whatever their case ("Always use…" and "ALWAYS write…")
    folded = {key: _lower(text) for key, text in texts.items()}
    alike: dict[str, list[str]] = {}
    for key, line in cut.items():
        alike.setdefault(_lower(line), []).append(key)
    for keys in alike.values():
        if len(keys) > 1 and any(cut[k].endswith("…") for k in keys):
            ordered = sorted(keys, key=lambda k: folded[k])
            for i, k in enumerate(ordered):  # through the first word where it parts from its nearest neighbour
                near = [folded[n] for n in (ordered[i - 1] if i else None, ordered[i + 1] if i + 1 < len(ordered)
                                            else None) if n is not None and folded[n] != folded[k]]
                if not near:  # the same text under another key: no word parts them
                    continue
                parted = max(len(os.path.commonprefix([folded[k], other])) for other in near)
                end = texts[k].find(" ", parted)
                end = end if end > 0 else len(texts[k])
                if end <= limit + TITLE_EXTRA:
                    cut[k] = title(texts[k], max(limit, end))
                else:  # a whole opening alike: the title, then the words where it parts (never the whole text)
                    words: list[str] = []
                    for word in texts[k][texts[k].rfind(" ", 0, parted) + 1:].split():
                        if words and len(" ".join(words + [word])) > TITLE_EXTRA // 2:
                            break
                        words.append(word)
                    cut[k] = f"{cut[k]} …{' '.join(words)[:TITLE_EXTRA]}…"
    lines = {}
    for e in entries:
        kind = str(e.get("type"))
        tag = f"[{render.label(kind)}] " if kind in TYPE_ORDER else ""
        lines[str(e["key"])] = f"  - {tag}{cut[str(e['key'])]}"
    return lines


def _compose(total: int, grouped: list[tuple[str, list[dict]]], keys: set[str], limit: int,
             titles: dict[tuple[str, int], str]) -> str:
    lines = [f"  Map of the other {_count(total)} by topic (read one in full: {READ_HINT}):"]
    untitled: list[tuple[str, int]] = []
    for name, members in grouped:
        shown = [e for e in members if str(e["key"]) in keys]
        if not shown:
            untitled.append((name, len(members)))
            continue
        more = f", {len(members) - len(shown)} more" if len(shown) < len(members) else ""
        lines.append(f"  {name} ({len(members)}{more}):")
        lines += [titles[(str(entry["key"]), limit)] for entry in shown]
    hidden = total - len(keys)
    if hidden:
        topics_left = f"; only counted: {_counted(untitled)}" if untitled else ""
        lines.append(f"  Not listed: {_count(hidden)}{topics_left}. List a topic: {TOPIC_HINT}")
    return "\n".join(lines)


COUNTED_CHARS = 600  # the topics only counted, largest first: past this, how many more (756 topics took the map)


def _counted(untitled: list[tuple[str, int]]) -> str:
    parts: list[str] = []
    size = 0
    for at, (name, count) in enumerate(untitled):
        part = f"{name} ({count})"
        if parts and size + len(part) + 2 > COUNTED_CHARS:
            rest = untitled[at:]
            return ", ".join(parts) + f", {len(rest)} smaller topics ({_count(sum(n for _, n in rest))})"
        parts.append(part)
        size += len(part) + 2
    return ", ".join(parts)


def _newest_first(entry: dict) -> float:
    ts = entry.get("ts")
    return -float(ts) if isinstance(ts, (int, float)) else 0.0


def _count(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"
