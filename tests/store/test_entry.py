from memory.store import entry


def test_fields_in_order_and_types():
    e = entry.build("TaskGroup requires @Sendable closures in strict concurrency mode.", "BD-001", "supervisor", ts=5)
    assert list(e)[:7] == ["key", "type", "content", "source", "tags", "ts", "bead"]
    assert e["type"] == "learned" and e["ts"] == 5 and e["bead"] == "BD-001" and e["source"] == "supervisor"
    assert e["tags"] == ["learned", "async", "concurrency"]


def test_key_is_slug_of_first_60_chars():
    content = "Use   the *NEW* API!! for v2 -- always " + "x" * 100
    assert entry.make_key("learned", content) == "learned-" + entry.slug(content[:60])
    assert entry.slug("  Hello,  World!  ") == "hello-world"
    assert entry.make_key("learned", "¿¿??").startswith("learned-") and len(entry.make_key("learned", "¿¿??")) > 8


def test_repro_tags_are_whole_words():
    text = "The latest build guide says prefix author with capital"
    assert entry.detect_tags("learned", text) == ["learned", "build"]
    assert entry.detect_tags("learned", "requires") == ["learned"]
    # a platform is no language: celery on macOS is not Swift
    assert "swift" not in entry.detect_tags("learned", "celery workers crash on macOS without the fork flag")
    assert "swift" in entry.detect_tags("learned", "the iOS target builds with Xcode 16")


def _tags(text: str) -> set[str]:
    return set(entry.detect_tags("learned", text)[1:])


def test_a_path_or_file_name_is_no_topic():
    # where an entry points (folders, extensions) is not what it is about: bench/tags.py counts 45 such tags
    assert _tags("Run one test with yarn vitest run path/to/file.test.ts") == {"testing"}
    assert _tags("the ranking lives in memory/search/rank.py and memory/store/") == set()
    assert "database" not in _tags("never import from `index.ts` barrels")
    assert "concurrency" not in _tags("never edit yarn.lock or lock.rs by hand")
    # prose around a path still counts, and so do framework names and slashed word lists
    assert _tags("the flaky test in tests/test_x.py needs a fixture") == {"testing"}
    assert "javascript" in _tags("Node.js is pinned in .nvmrc")
    assert "javascript" in _tags("camelCase for JS/TS, snake_case for Python")


def test_a_word_with_another_meaning_needs_its_context():
    assert "javascript" not in _tags("the `ts` field of an entry is in seconds")
    assert "javascript" not in _tags("ClickHouse node roles: DATA is for sharded tables")
    assert "javascript" in _tags("run the script with node after nvm use")
    assert "auth" not in _tags("flox activate hangs in interactive sessions")
    assert "auth" in _tags("the session cookie expires after logout")
    assert "auth" not in _tags("run yarn via a login shell")
    assert "performance" not in _tags("project memory is committed with the code")
    assert "performance" in _tags("the watcher leaks memory on long runs")
    assert "concurrency" not in _tags("lockfile, not lock file")
    assert "concurrency" in _tags("take the lock before concurrent writers append")
    assert "ui" not in _tags("a Kafka table and a materialized view")
    assert "ui" in _tags("the settings view renders the button twice")
    assert "types" not in _tags("only child managed event types can be booked")
    assert "types" in _tags("fix type errors before test failures")
    assert "database" not in _tags("RTK Query for data fetching")
    assert "database" in _tags("the query scans the whole events table")


def test_a_package_manager_alone_runs_scripts():
    assert _tags("cargo nextest run") == {"rust"}
    assert "deps" not in _tags("yarn test path/to/file")
    assert "deps" in _tags("always use yarn install --immutable")
    assert "deps" in _tags("use cargo update --precise to change the lock")
    assert "deps" in _tags("ask before adding new dependencies to a package")


def test_content_cap_on_character_boundary():
    e = entry.build("é" * 5000, "B", "orchestrator")
    assert e["content"] == "é" * entry.MAX_CONTENT_CHARS
    e = entry.build("🙂" * 3000, "B", "orchestrator")
    assert len(e["content"]) == entry.MAX_CONTENT_CHARS and e["content"].encode("utf-8")


def test_lone_surrogates_become_valid_utf8():
    e = entry.build("bad \ud800 char", "B", "orchestrator")
    assert e["content"].encode("utf-8")


def test_source_detection():
    assert entry.detect_source("/r/.worktrees/bd-12/src", None) == "supervisor"
    assert entry.detect_source("/r/src", "python-supervisor") == "supervisor"
    assert entry.detect_source("/r/src", "general-purpose") == "orchestrator"
    assert entry.detect_source("/r/not.worktrees/x", None) == "orchestrator"


def test_provenance_is_extra_and_none_dropped():
    e = entry.build("x", "B", "orchestrator", session_id="s", agent_type=None, branch="main")
    assert e["session_id"] == "s" and e["branch"] == "main" and "agent_type" not in e


def test_secret_never_reaches_key_or_content():
    e = entry.build("deploy with password=Zq8#vR2mXp9L then restart", "B", "orchestrator")
    assert "Zq8" not in e["content"] and "zq8" not in e["key"] and e["redacted"] == ["secret_assignment"]


def test_a_huge_text_is_redacted_within_its_margin_and_no_credential_is_cut_in_half():
    """A 20 MB capture was redacted whole before the 2,048-character cap (seconds near the hooks' timeout); now
    only REDACT_MARGIN times the cap is, and a credential straddling the cap is still replaced whole."""
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    for at in (entry.MAX_CONTENT_CHARS - 10, entry.MAX_CONTENT_CHARS - len(token) // 2, 100):
        text = "x " * (at // 2) + token + " tail" * 4_000_000
        content, kinds = entry.clean_text(text)
        assert "ghp_" not in content and len(content) <= entry.MAX_CONTENT_CHARS and kinds, at
