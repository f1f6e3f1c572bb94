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
