#!/usr/bin/env python3
"""Validate the relevance set; print every violation, exit 1 on any.

    python bench/relevance/validate.py

Checks: entries (count, projects, format, keys/tags as build.py derives them, no reserved repo), prompts
(schema, labels point at real entries, counts per kind and project, the deterministic stratified split),
action events (check_actions: the payload shape Claude Code sends, labels, negatives with their closest
entry, where each path was seen, counts, split),
and the central rule: a `paraphrase` prompt shares NO distinctive term with any of its relevant entries,
while a `lexical` one shares at least one (else it is mislabelled).

"Distinctive term": text is split into words at non-alphanumerics and camelCase humps (so `useState` gives
"use", "state"), lowercased; stop words and common request filler (STOP below), single characters dropped.
Two terms clash when their crude stems are equal, when the shorter (4+ characters) occurs inside the longer
(what a grep would hit: zone/timezone, prod/production), or when both are 6+ characters and share their first 6
(catches configure/configuration, migrate/migrations that the stemmer misses). Deliberately stricter than
a grep: a paraphrase that survives it cannot be found by a keyword match on its answer.
"""
from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))

import build  # noqa: E402
import dataset  # noqa: E402

MIN_ENTRIES = 300
MIN_PROJECTS = 4
MIN_ANSWERABLE = 150
MIN_UNRELATED = 20
MIN_UNRELATED_PER_PROJECT = 4
MIN_LABELLED_ACTIONS = 40  # per kind (file, error)
MIN_NEGATIVE_ACTIONS = 20  # per kind
FILE_TOOLS = ("Read", "Edit", "Write", "MultiEdit")
PROJECT_REPOS = {"calcom": "calcom/cal.com", "grafana": "grafana/grafana", "posthog": "PostHog/posthog",
                 "uv": "astral-sh/uv"}
_EXIT_LINE = re.compile(r"(Exit code \d+|Command timed out after [^\n]+)(\n|$)")

STOP = frozenset([
    "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be",
    "because", "been", "before", "being", "below", "between", "both", "but", "by", "did", "do", "does", "doing",
    "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here",
    "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most",
    "my", "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "out", "over", "own",
    "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "then",
    "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we",
    "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your",
    "yours", "can", "could", "may", "might", "must", "shall", "also", "else", "etc", "e", "g", "eg", "ie", "i.e",
    "via", "per", "vs", "let", "lets", "s", "t", "don", "doesn", "isn", "aren", "wasn", "won", "shouldn", "ve",
    "ll", "re", "d", "m", "o", "y", "please", "pls", "thanks", "thank", "hey", "hi", "ok", "okay", "just", "really",
    "actually", "basically", "maybe", "still", "again", "already", "now", "soon", "want", "wanted", "need", "needs",
    "needed", "like", "would", "think", "know", "see", "look", "looks", "looking", "help", "quick", "quickly",
    "thing", "things", "stuff", "something", "anything", "everything", "someone", "one", "way", "bit", "lot",
    "lots", "kind", "sort", "get", "gets", "got", "getting", "go", "goes", "going", "gone", "make", "makes", "made",
    "making", "use", "uses", "used", "using", "add", "adds", "added", "adding", "new", "do", "done", "let's",
    "here's", "what's", "it's", "that's", "i'm", "we're", "i've", "you're", "can't", "don't",
])

_WORDS = re.compile(r"[A-Za-z0-9]+")
_HUMPS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_SUFFIXES = ("izations", "ization", "ational", "ations", "ation", "ments", "ment", "ness", "ings", "ing",
             "ities", "ity", "ives", "ive", "ers", "er", "ies", "ied", "ed", "es", "ly", "s", "e", "y")


def words(text: str) -> set[str]:
    """The distinctive words of a text (see the module docstring)."""
    out = set()
    for raw in _WORDS.findall(text):
        for part in _HUMPS.findall(raw) or [raw]:
            w = part.lower()
            if len(w) > 1 and w not in STOP:
                out.add(w)
    return out


def stem(word: str) -> str:
    """A crude suffix stripper: good enough to call "migrations" and "migrated" the same word."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _clash(a: str, b: str) -> bool:
    short, long_ = sorted((a, b), key=len)
    return (a == b or stem(a) == stem(b)
            or (len(short) >= 4 and short in long_)  # what a grep for the shorter word would hit
            or (len(short) >= 6 and a[:6] == b[:6]))


def shared_terms(prompt: str, content: str) -> list[str]:
    """Pairs "prompt-word~entry-word" of distinctive terms the two texts share."""
    entry_words = words(content)
    return sorted(f"{a}~{b}" if a != b else a for a in words(prompt) for b in entry_words if _clash(a, b))


def check_entries(projects: dict[str, list[dict]]) -> list[str]:
    errors = []
    if len(projects) < MIN_PROJECTS:
        errors.append(f"{len(projects)} projects, want >= {MIN_PROJECTS}")
    total = sum(len(es) for es in projects.values())
    if total < MIN_ENTRIES:
        errors.append(f"{total} entries, want >= {MIN_ENTRIES}")
    for name, entries in projects.items():
        if name in build.PROJECTS and entries != build.build_project(name):
            errors.append(f"{name}: knowledge.jsonl differs from build.py output (run build.py)")
        for e in entries:
            repo = e.get("origin", {}).get("repo", "")
            if repo.lower() in build.EXCLUDED_REPOS:
                errors.append(f"{name}: {e['key']} comes from reserved repo {repo}")
            for field in ("key", "type", "content", "source", "tags", "ts", "bead", "origin"):
                if field not in e:
                    errors.append(f"{name}: entry without {field}: {e.get('key')}")
    return errors


def check_prompts(projects: dict[str, list[dict]], prompts: list[dict]) -> list[str]:
    errors = []
    keys = {name: {e["key"]: e for e in es} for name, es in projects.items()}
    ids = Counter(p.get("id") for p in prompts)
    errors += [f"duplicate prompt id {pid}" for pid, n in ids.items() if n > 1]
    split_of = dataset.expected_split(prompts)
    for p in prompts:
        errors += _check_prompt(p, keys, split_of)
    return errors + _check_prompt_counts(projects, prompts)


def _check_prompt(p: dict, keys: dict[str, dict[str, dict]], split_of: dict) -> list[str]:
    """The problems of one labelled prompt."""
    errors = []
    pid, kind, project = p.get("id"), p.get("kind"), p.get("project")
    if kind not in dataset.KINDS or project not in keys or p.get("split") not in dataset.SPLITS:
        return [f"{pid}: bad kind/project/split {kind!r}/{project!r}/{p.get('split')!r}"]
    if p["split"] != split_of[pid]:
        errors.append(f"{pid}: split {p['split']} but the stratified hash split says {split_of[pid]}")
    relevant = p.get("relevant", [])
    if kind == "unrelated":
        if relevant:
            errors.append(f"{pid}: unrelated prompt with relevant entries")
        return errors
    if not 1 <= len(relevant) <= 3 or len(set(relevant)) != len(relevant):
        errors.append(f"{pid}: wants 1-3 distinct relevant entries, has {len(relevant)}")
    missing = [k for k in relevant if k not in keys[project]]
    if missing:
        errors.append(f"{pid}: unknown keys {missing}")
        return errors
    shared = {k: shared_terms(p["prompt"], keys[project][k]["content"]) for k in relevant}
    if kind == "paraphrase":
        for k, terms in shared.items():
            if terms:
                errors.append(f"{pid}: paraphrase shares {terms} with {k}")
    elif not any(shared.values()):
        errors.append(f"{pid}: lexical prompt shares no distinctive term with its entries (it is a paraphrase)")
    return errors


def _check_prompt_counts(projects: dict[str, list[dict]], prompts: list[dict]) -> list[str]:
    """Problems of the prompt set as a whole: too few answerable, paraphrase or unrelated prompts."""
    errors = []
    kinds = Counter(p.get("kind") for p in prompts)
    answerable = kinds["paraphrase"] + kinds["lexical"]
    if answerable < MIN_ANSWERABLE:
        errors.append(f"{answerable} answerable prompts, want >= {MIN_ANSWERABLE}")
    if kinds["paraphrase"] * 2 < answerable:
        errors.append(f"{kinds['paraphrase']} paraphrase of {answerable} answerable, want >= half")
    if kinds["unrelated"] < MIN_UNRELATED:
        errors.append(f"{kinds['unrelated']} unrelated prompts, want >= {MIN_UNRELATED}")
    for name in projects:
        n = sum(1 for p in prompts if p.get("project") == name and p.get("kind") == "unrelated")
        if n < MIN_UNRELATED_PER_PROJECT:
            errors.append(f"{name}: {n} unrelated prompts, want >= {MIN_UNRELATED_PER_PROJECT}")
    return errors


def check_actions(projects: dict[str, list[dict]], events: list[dict]) -> list[str]:
    """The problems of the action set: each event (_check_action), the build, the counts."""
    keys = {name: {e["key"] for e in es} for name, es in projects.items()}
    errors = [f"duplicate action id {i}" for i, n in Counter(e.get("id") for e in events).items() if n > 1]
    if events != build.build_actions():
        errors.append("actions.jsonl differs from build.py output (run build.py)")
    split_of = dataset.expected_action_split(events)
    for event in events:
        errors += _check_action(event, keys, split_of)
    for kind in dataset.ACTION_KINDS:
        labelled = sum(1 for e in events if e.get("kind") == kind and e.get("relevant"))
        negative = sum(1 for e in events if e.get("kind") == kind and not e.get("relevant"))
        if labelled < MIN_LABELLED_ACTIONS:
            errors.append(f"{labelled} labelled {kind} events, want >= {MIN_LABELLED_ACTIONS}")
        if negative < MIN_NEGATIVE_ACTIONS:
            errors.append(f"{negative} negative {kind} events, want >= {MIN_NEGATIVE_ACTIONS}")
    return errors


def _check_action(event: dict, keys: dict[str, set], split_of: dict) -> list[str]:
    eid, project, kind = event.get("id"), event.get("project"), event.get("kind")
    if project not in keys or kind not in dataset.ACTION_KINDS or event.get("split") not in dataset.SPLITS:
        return [f"{eid}: bad project/kind/split {project!r}/{kind!r}/{event.get('split')!r}"]
    errors = [] if event["split"] == split_of[eid] else [f"{eid}: split {event['split']} but the hash split says"
                                                         f" {split_of[eid]}"]
    if event.get("batch", 1) not in dataset.ACTION_BATCHES or "batch" in event and event["batch"] == 1:
        errors.append(f"{eid}: batch {event.get('batch')!r}: leave it out for the first batch, else one of"
                      f" {dataset.ACTION_BATCHES[1:]}")
    relevant = event.get("relevant", [])
    if relevant:
        if len(relevant) > 3 or len(set(relevant)) != len(relevant):
            errors.append(f"{eid}: wants 1-3 distinct relevant entries, has {relevant}")
        errors += [f"{eid}: unknown key {k}" for k in relevant if k not in keys[project]]
    elif event.get("closest") not in keys[project] or not event.get("note"):
        errors.append(f"{eid}: a negative needs `closest` (a key of {project}) and a `note` on why it does not help")
    return errors + _check_payload(event)


def _check_payload(event: dict) -> list[str]:
    """The payload is what Claude Code sends for that tool event, inside the project's recorded cwd."""
    eid, payload = event["id"], event.get("payload", {})
    cwd = dataset.payload_cwd(event["project"])
    errors = [f"{eid}: payload without {f}" for f in ("session_id", "transcript_path", "cwd", "hook_event_name",
                                                       "tool_name", "tool_input", "tool_use_id") if f not in payload]
    if errors:
        return errors
    tool_input = payload["tool_input"]
    if payload["cwd"] != cwd:
        errors.append(f"{eid}: cwd {payload['cwd']} is not {cwd}")
    if event["kind"] == "error":
        if (payload["hook_event_name"], payload["tool_name"]) != ("PostToolUseFailure", "Bash"):
            errors.append(f"{eid}: an error event is a failed Bash call (PostToolUseFailure)")
        if not str(tool_input.get("command", "")).strip() or not _EXIT_LINE.match(str(payload.get("error", ""))):
            errors.append(f"{eid}: wants a command and an error starting with 'Exit code N' or a timeout line")
        return errors
    path = str(tool_input.get("file_path", ""))
    seen = event.get("seen", {})
    if payload["hook_event_name"] != "PreToolUse" or payload["tool_name"] not in FILE_TOOLS:
        errors.append(f"{eid}: a file event is PreToolUse on one of {FILE_TOOLS}")
    if not path.startswith(cwd + "/"):
        errors.append(f"{eid}: file_path {path} is not absolute under {cwd}")
    wanted = {"Edit": ("old_string", "new_string"), "Write": ("content",), "MultiEdit": ("edits",)}
    errors += [f"{eid}: {payload['tool_name']} without {f}" for f in wanted.get(payload["tool_name"], ())
               if f not in tool_input]
    if (seen.get("repo") != PROJECT_REPOS[event["project"]] or seen.get("path") != path[len(cwd) + 1:]
            or not re.fullmatch(r"[0-9a-f]{40}", str(seen.get("commit", "")))):
        errors.append(f"{eid}: `seen` must name the project's repo, this path and the commit it was seen at")
    if str(seen.get("repo", "")).lower() in build.EXCLUDED_REPOS:
        errors.append(f"{eid}: path from a reserved repo")
    return errors


def main() -> int:
    projects, prompts = dataset.load(HERE)
    events = dataset.load_actions(HERE)
    errors = check_entries(projects) + check_prompts(projects, prompts) + check_actions(projects, events)
    for line in errors:
        print(line)
    kinds = Counter((p["project"], p["kind"], p["split"]) for p in prompts)
    print(f"{sum(len(v) for v in projects.values())} entries in {len(projects)} projects; {len(prompts)} prompts: "
          + ", ".join(f"{k}={sum(v for (_, kk, _), v in kinds.items() if kk == k)}" for k in dataset.KINDS)
          + f"; {len(events)} action events: "
          + ", ".join(f"{s}={n}" for s, n in sorted(Counter(map(dataset.action_stratum, events)).items()))
          + f"; {len(errors)} violation(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
