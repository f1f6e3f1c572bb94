"""Project settings: config.json over the defaults, only values of the default's type."""
import json

import pytest

from memory.core import config


@pytest.mark.parametrize("text, expected", [
    (None, config.DEFAULTS["prompt_budget_tokens"]),
    ('{"prompt_budget_tokens": 800}', 800),
    ('{"prompt_budget_tokens": "800"}', config.DEFAULTS["prompt_budget_tokens"]),
    ('{"prompt_budget_tokens": true}', config.DEFAULTS["prompt_budget_tokens"]),
    ("not json", config.DEFAULTS["prompt_budget_tokens"]),
    ("[1, 2]", config.DEFAULTS["prompt_budget_tokens"]),
])
def test_values_of_the_right_type_override(tmp_path, text, expected):
    if text is not None:
        (tmp_path / "config.json").write_text(text)
    assert config.load(str(tmp_path))["prompt_budget_tokens"] == expected


def test_booleans_and_unknown_keys(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"semantic": True, "nonsense": 1}))
    loaded = config.load(str(tmp_path))
    assert loaded["semantic"] is True and "nonsense" not in loaded


def test_budget_chars_is_capped_below_the_runtime_limit():
    assert config.budget_chars(500) == 2000
    assert config.budget_chars(10**6) == config.MAX_INJECTED_CHARS < 10_000


@pytest.mark.parametrize("odd", ["fifo", "nested"])
def test_an_odd_config_json_never_holds_or_silences_a_hook(tmp_path, odd):
    """config.json is read by every hook. A FIFO there (open waited for a writer: every hook hung until its runtime
    killed it) or JSON nested past Python's recursion limit (RecursionError is no ValueError: the hook failed and
    answered nothing) now reads as the defaults, and memory-doctor's check says why."""
    import os
    import subprocess

    from helpers import fixture_payload, make_repo, run_hook
    from memory.store import entry, store

    repo = make_repo(tmp_path / "repo")
    memory_dir = repo / ".beads" / "memory"
    insight = entry.build("retries use jittered backoff", "BD-1", "orchestrator", ts=1_700_000_000)
    store.append(str(memory_dir), [insight])
    path = memory_dir / "config.json"
    if odd == "fifo":
        os.mkfifo(path)
    else:
        path.write_text("[" * 200_000)
    payload = fixture_payload("claude-code/2.1.330/SessionStart-6.json")
    payload["cwd"] = str(repo)
    try:
        proc = run_hook("session_start", payload, repo, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("session start hung on config.json")
    assert proc.returncode == 0
    assert "retries use jittered backoff" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    (repo / "retry.py").write_text("def retry(): ...\n")
    read = {"hook_event_name": "PreToolUse", "tool_name": "Read", "session_id": "s", "cwd": str(repo),
            "tool_input": {"file_path": str(repo / "retry.py")}}
    try:  # the action hook, on every file call (its fast path looks for a bar of the project's own there)
        proc = run_hook("action_context", read, repo, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("the action hook hung on config.json")
    assert proc.returncode == 0
    settings, problems = config.read_settings(str(path), config.DEFAULTS)
    assert settings == config.DEFAULTS and len(problems) == 1 and "every default is used" in problems[0]
