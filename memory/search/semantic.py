"""The semantic option: cosine similarity between a prompt and the knowledge, from cached entry vectors.

    similarities(memory_dir, entries, prompt, first)  {key: cosine} for the entries that have a vector, or None
    fuse(lexical, passed, cosines)                    the keys to inject: lexical and semantic scores, one gate
    refresh(memory_dir, entries)                      embed every entry the cache lacks (capture time, session start)

None means "no semantic signal here": numpy or the model is not installed, something broke, or the time
budget ran out. The caller then ranks lexically; nothing here raises or prints.

Vectors are derived data in `<memory>/vectors.bin`, machine-local (never committed): one JSON header line
{model, dim, hashes} then float32 rows. A row belongs to the hash of the text it was computed from, so an
entry whose content changed gets a new vector and a deleted entry's row is dropped at the next write. A
missing, truncated or foreign file reads as empty and is rebuilt. The prompt path embeds at most
PROMPT_NEW_VECTORS missing entries: the prompt's lexical candidates first (an old entry the prompt names must not
wait behind new ones it does not), then the newest (store.latest's order). An entry still without a vector has
no cosine: fuse never scores it as if its cosine were 0 (see there). A later call, or `python -m
memory.search.semantic refresh`, fills the rest.
"""
from __future__ import annotations

import os
import time

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, Literal

    from memory.search.embed import Model

from memory.core import layout

VECTORS = layout.VECTORS
PROMPT_NEW_VECTORS = 4  # missing entry vectors the prompt path may compute (~10-40 ms each)
REFRESH_CHUNK = 64
PROMPT_BUDGET_S = 1.0  # past this (import and load included) the prompt path gives up on the semantic signal
FORMAT = 1

_model: Model | Literal[False] | None = None  # one load per process: a hook process embeds once, a refresh many times


def entry_text(entry: dict) -> str:
    """What an entry's vector is computed from: its content (the key is a prefix of it, tags are coarse)."""
    return str(entry.get("content") or entry.get("key") or "")


def text_hash(text: str) -> str:
    import hashlib

    from memory.search.embed import MODEL_ID

    return hashlib.blake2b(f"{MODEL_ID}\0{text}".encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def model(memory_dir: str | None = None) -> Model | None:
    """The loaded encoder, or None (numpy/model missing or unreadable: logged once per process)."""
    global _model
    if _model is None:
        from memory.search import embed

        try:
            _model = embed.load() or False
        except Exception as error:  # a damaged wheel, a truncated file: lexical-only, and say why once
            _note(f"semantic model unusable: {type(error).__name__}: {error}", memory_dir)
            _model = False
    return _model or None


# --- the cache ------------------------------------------------------------------------------------------

def read_cache(memory_dir: str, dim: int) -> dict[str, Any]:
    """{text hash: float32 vector} from the cache file; {} when it is missing, corrupt or for another model."""
    import json

    import numpy as np

    from memory.core import fsio
    from memory.search.embed import MODEL_ID

    try:
        data = fsio.read_bytes(os.path.join(memory_dir, VECTORS))
        if not data:
            return {}
        end = data.index(b"\n")
        header = json.loads(data[:end])
        hashes = header["hashes"]
        if header.get("format") != FORMAT or header.get("model") != MODEL_ID or header.get("dim") != dim:
            return {}
        body = data[end + 1:]
        if len(body) != len(hashes) * dim * 4:
            return {}
        matrix = np.frombuffer(body, dtype="<f4").reshape(len(hashes), dim)
        if not np.isfinite(matrix).all():
            return {}
        return dict(zip(hashes, matrix))
    except (ValueError, KeyError, TypeError, AttributeError, OSError):
        return {}


def write_cache(memory_dir: str, vectors: dict[str, Any], dim: int) -> None:
    """Replace the cache file atomically with exactly `vectors`."""
    import json

    import numpy as np

    from memory.core import fsio
    from memory.search.embed import MODEL_ID

    hashes = list(vectors)
    header = json.dumps({"format": FORMAT, "model": MODEL_ID, "dim": dim, "hashes": hashes},
                        separators=(",", ":")).encode()
    body = np.stack([vectors[h] for h in hashes]).astype("<f4").tobytes() if hashes else b""
    os.makedirs(memory_dir, exist_ok=True)
    fsio.atomic_write(os.path.join(memory_dir, VECTORS), header + b"\n" + body)


def entry_vectors(memory_dir: str, entries: list[dict], max_new: int | None, deadline: float = float("inf"),
                  encoder: Model | None = None) -> tuple[list[Any], int]:
    """(a vector or None per entry, how many were computed now). Computes at most `max_new` missing ones
    (None: all), in the entries' order, stopping at `deadline`; rewrites the cache when it changed."""
    encoder = encoder or model()
    assert encoder is not None, "callers check model() first"
    dim = encoder.dim
    cached = read_cache(memory_dir, dim)
    hashes = [text_hash(entry_text(e)) for e in entries]
    missing = list(dict.fromkeys(h for h in hashes if h not in cached))
    todo = missing if max_new is None else missing[:max_new]
    texts = {h: entry_text(e) for h, e in zip(hashes, entries)}
    fresh: dict[str, Any] = {}
    for at in range(0, len(todo), 16):
        if time.monotonic() > deadline:
            break
        chunk = todo[at:at + 16]
        for h, vector in zip(chunk, encoder.embed([texts[h] for h in chunk])):
            fresh[h] = vector
    wanted = set(hashes)
    kept = {h: v for h, v in cached.items() if h in wanted}
    if fresh or len(kept) != len(cached):
        if fresh:  # another process may have written meanwhile (a refresh): keep its rows too
            kept.update((h, v) for h, v in read_cache(memory_dir, dim).items() if h in wanted)
        kept.update(fresh)
        try:
            write_cache(memory_dir, kept, dim)
        except OSError as error:  # read-only checkout, full disk: the vectors still serve this call
            _note(f"semantic cache not written: {error}", memory_dir)
    return [kept.get(h) for h in hashes], len(fresh)


def refresh(memory_dir: str, entries: list[dict]) -> int | None:
    """Embed every entry without a cached vector (and drop rows of deleted/changed entries). Returns how
    many were computed, or None without numpy/the model."""
    try:
        if model(memory_dir) is None:
            return None
        total = 0
        while True:  # written every REFRESH_CHUNK vectors: an interrupted refresh keeps what it did
            computed = entry_vectors(memory_dir, entries, REFRESH_CHUNK)[1]
            total += computed
            if computed < REFRESH_CHUNK:
                return total
    except Exception as error:
        _note(f"semantic refresh failed: {type(error).__name__}: {error}", memory_dir)
        return None


def embed_order(entries: list[dict], first: Iterable[str] = ()) -> list[dict]:
    """`entries` with those whose key is in `first` moved to the front, in `first`'s order: the order in which
    missing vectors are computed."""
    by_key = {str(e.get("key")): e for e in entries}
    front = [by_key[k] for k in dict.fromkeys(first) if k in by_key]
    taken = {id(e) for e in front}
    return front + [e for e in entries if id(e) not in taken]


def similarities(memory_dir: str, entries: list[dict], prompt: str, max_new: int = PROMPT_NEW_VECTORS,
                 budget_s: float = PROMPT_BUDGET_S, first: Iterable[str] = ()) -> dict[str, float] | None:
    """{entry key: cosine with `prompt`} for entries with a vector (at most `max_new` computed now: those of
    the keys in `first` before the others), or None when there is no semantic signal (no numpy/model, an
    error, or over `budget_s` seconds).

    `entries` must be all current entries (store.latest): cached rows of any others are dropped."""
    if not entries:
        return None  # nothing to compare with: the model is not even loaded
    entries = embed_order(entries, first)
    start = time.monotonic()
    deadline = start + budget_s
    try:
        encoder = model(memory_dir)
        if encoder is None or time.monotonic() > deadline:
            return None
        query = encoder.embed([prompt])[0]
        if time.monotonic() > deadline:
            return None
        vectors, _ = entry_vectors(memory_dir, entries, max_new, deadline, encoder)
        rows = [(e.get("key"), v) for e, v in zip(entries, vectors) if v is not None]
        if not rows or time.monotonic() > deadline:
            return None
        import numpy as np

        cosines = np.stack([v for _, v in rows]) @ query
        return {str(key): float(c) for (key, _), c in zip(rows, cosines)}
    except Exception as error:
        _note(f"semantic scoring failed: {type(error).__name__}: {error}", memory_dir)
        return None


# --- fusion and the gate --------------------------------------------------------------------------------

class FuseParams:
    """Chosen on the relevance set's dev split (bench/semantic_eval.py --sweep): the best recall@5 with at
    most 3/20 unrelated prompts and 15% of cross-project prompts injecting anything."""

    lexical_weight = 0.5  # combined = w * lexical fraction + (1 - w) * cosine; RRF lost 0.03-0.08 recall@5
    # the gate's semantic branch: the closest entry reaches `semantic_floor` AND the lexical ranker puts it
    # among its first `agreement_depth` (the two signals agree). A cosine alone cannot tell a paraphrase
    # from an unrelated prompt about the same project: with this model both reach 0.2-0.55.
    semantic_floor = 0.31
    agreement_depth = 1
    # of the fused list, only what scores within this share of the best is injected: with one relevant entry
    # the other four slots would otherwise go to whatever came next (context is a budget)
    follow = 0.0


def fuse(lexical: dict[str, float], passed: Iterable[str], cosines: dict[str, float] | None, limit: int = 5,
         params: type[FuseParams] = FuseParams, complete: bool = True) -> list[str]:
    """The keys to inject, best first; [] means nothing relevant.

    `lexical`: {key: lexical score as a fraction of the best this query could reach} (memory.search.rank's
    `Scored.fraction`) for entries that matched anything; `passed`: keys that pass the lexical gate;
    `cosines`: similarities(...) or None, which gives exactly the lexical answer (gated, lexical order).
    The gate opens when the lexical gate passes anything, or when the semantic branch agrees (see FuseParams).

    An entry without a vector yet has no cosine, and 0 is not its cosine: counted so, an entry the prompt
    names scored half its lexical fraction and fell below unrelated entries that merely had a vector. So a
    passing entry without a cosine gives the lexical answer (the fused order cannot place it), and one that
    neither passes nor has a cosine is left out (no evidence of either kind). And the semantic branch names
    the closest entry of all: only `complete` cosines (every entry has a vector) can (among the few a cold
    cache holds, the lexical ranker's first was nearly always the closest: 8/60 unrelated prompts passed).
    """
    passed = set(passed)
    by_lexical = sorted(lexical, key=lambda k: (-lexical[k], k))
    if cosines is None or not passed <= set(cosines):
        return [k for k in by_lexical if k in passed][:limit]
    weight = params.lexical_weight
    combined = {k: weight * min(lexical.get(k, 0.0), 1.0) + (1.0 - weight) * cosine for k, cosine in cosines.items()}
    ranked = sorted(combined, key=lambda k: (-combined[k], k))
    if not passed and not (complete and semantic_agrees(by_lexical, cosines, params)):
        return []
    floor = params.follow * combined[ranked[0]] if ranked else 0.0
    return [k for k in ranked if combined[k] >= floor][:limit]


def semantic_agrees(by_lexical: list[str], cosines: dict[str, float], params: type[FuseParams] = FuseParams) -> bool:
    """The gate's semantic branch: the closest entry is close enough and the lexical ranker ranks it high."""
    if not cosines:
        return False
    best = max(cosines, key=lambda k: (cosines[k], k))
    return cosines[best] >= params.semantic_floor and best in by_lexical[:params.agreement_depth]


def _note(problem: str, memory_dir: str | None = None) -> None:
    from memory.core import errorlog

    errorlog.record("semantic", problem, memory_dir)


def main(argv: list[str] | None = None) -> int:
    """`python -m memory.search.semantic refresh [MEMORY_DIR]`: fill the vector cache (after install, or detached
    from a hook so that prompts find every vector ready)."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] != "refresh":
        sys.stderr.write("usage: python -m memory.search.semantic refresh [MEMORY_DIR]\n")
        return 2
    from memory.core import paths
    from memory.store import store

    memory_dir = args[1] if len(args) > 1 else paths.memory_dir()
    computed = refresh(memory_dir, store.latest(store.load(memory_dir).entries, cache_dir=memory_dir))
    if computed is None:
        sys.stderr.write("semantic: numpy or the model is not installed (lexical ranking only)\n")
        return 1
    sys.stderr.write(f"semantic: {computed} vectors computed in {memory_dir}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
