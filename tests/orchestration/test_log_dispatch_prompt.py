"""PostToolUse(Agent|Task) dispatch log with real Agent payloads (foreground and background)."""
import json
import os

import pytest

from conftest import ROOT, fixture_payload, knowledge, run_hook

FAKE_BD = str(ROOT / "tests" / "fake_bd")
PROMPT = "BEAD_ID: BD-12\n\nImplement the cache layer in .worktrees/bd-BD-12.\nUse token ghp_" + "a1B2c3D4" * 5


def dispatch(repo, tmp_path, tool_name="Agent", background=False, prompt=PROMPT, with_bd=True, extra_env=None):
    payload = fixture_payload("claude-code/2.1.330/PostToolUse-20.json")
    payload.update(cwd=str(repo), tool_name=tool_name)
    payload["tool_input"].update(prompt=prompt, subagent_type="python-supervisor", description="Implement cache")
    if background:
        payload["tool_response"] = {"status": "async_launched", "agentId": "a9", "description": "Implement cache",
                                    "prompt": prompt, "outputFile": "/tmp/x.output"}
    path = (FAKE_BD + os.pathsep if with_bd else "") + os.environ["PATH"]
    env = {"PATH": path, "FAKE_BD_DIR": str(tmp_path / "bd"), **(extra_env or {})}
    proc = run_hook("log_dispatch_prompt", payload, repo, env=env)
    assert proc.returncode == 0 and proc.stdout == b"" and b"Traceback" not in proc.stderr
    return payload


def bd_calls(tmp_path):
    path = tmp_path / "bd" / "calls.jsonl"
    return [json.loads(line)["argv"] for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.parametrize("tool_name,background", [("Agent", False), ("Agent", True), ("Task", False)])
def test_dispatch_is_logged_and_commented(repo, tmp_path, tool_name, background):
    payload = dispatch(repo, tmp_path, tool_name, background)
    [entry] = knowledge(repo, "dispatch.jsonl")
    assert entry["bead"] == "BD-12" and entry["subagent_type"] == "python-supervisor"
    assert entry["description"] == "Implement cache" and entry["tool_use_id"] == payload["tool_use_id"]
    assert entry["session_id"] == payload["session_id"]
    assert entry["status"] == ("async_launched" if background else "completed")
    assert "ghp_" not in json.dumps(entry) and entry["redacted"] == ["github_token"]
    [call] = bd_calls(tmp_path)
    assert call[:2] == ["comment", "BD-12"] and call[2].startswith("DISPATCH_PROMPT [python-supervisor]:")
    assert "ghp_" not in call[2]


def test_prompt_is_capped(repo, tmp_path):
    dispatch(repo, tmp_path, prompt="BEAD_ID: BD-7\n" + "x" * 10_000)
    assert len(knowledge(repo, "dispatch.jsonl")[0]["prompt"]) == 2048


def test_prompt_without_marker_is_ignored(repo, tmp_path):
    dispatch(repo, tmp_path, prompt="Just explore the code base.")
    assert knowledge(repo, "dispatch.jsonl") == [] and bd_calls(tmp_path) == []


def test_same_dispatch_twice_is_logged_once(repo, tmp_path):
    dispatch(repo, tmp_path)
    dispatch(repo, tmp_path)
    assert len(knowledge(repo, "dispatch.jsonl")) == 1 and len(bd_calls(tmp_path)) == 1


def test_without_bd_only_the_file(repo, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                                               if not os.path.exists(os.path.join(p, "bd"))))
    dispatch(repo, tmp_path, with_bd=False)
    assert len(knowledge(repo, "dispatch.jsonl")) == 1


def test_hanging_bd_is_cut_off_and_logged(repo, tmp_path):
    (repo / ".beads" / "memory").mkdir(parents=True)
    (repo / ".beads" / "memory" / "completion.json").write_text(json.dumps({"timeout": 1}))
    dispatch(repo, tmp_path, extra_env={"FAKE_BD_HANG": "60"})
    assert len(knowledge(repo, "dispatch.jsonl")) == 1
    assert "timed out after 1s" in (repo / ".beads" / "memory" / "errors.log").read_text()


def test_non_dispatch_payloads(repo, tmp_path):
    for name in ["claude-code/2.1.330/PostToolUse-8.json", "claude-code/2.1.197/PostToolUse-20.json",
                 "public/claude-PostToolUse-2.json"]:
        payload = fixture_payload(name)
        payload["cwd"] = str(repo)
        assert run_hook("log_dispatch_prompt", payload, repo).returncode == 0
    assert knowledge(repo, "dispatch.jsonl") == []


def test_detached_by_default_so_the_client_never_waits(repo, tmp_path):
    """Without MEMORY_HOOKS_FOREGROUND the hook returns at once and a detached child does the work,
    even when bd hangs: `claude -p` kills async hooks still running at its end."""
    import time

    payload = fixture_payload("claude-code/2.1.330/PostToolUse-20.json")
    payload.update(cwd=str(repo))
    payload["tool_input"]["prompt"] = PROMPT
    env = {"PATH": FAKE_BD + os.pathsep + os.environ["PATH"], "FAKE_BD_DIR": str(tmp_path / "bd"),
           "FAKE_BD_HANG": "3", "MEMORY_HOOKS_FOREGROUND": ""}
    start = time.monotonic()
    proc = run_hook("log_dispatch_prompt", payload, repo, env=env)
    returned = time.monotonic() - start
    assert proc.returncode == 0 and proc.stdout == b""
    deadline = time.monotonic() + 30
    while not bd_calls(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert returned < 2.5  # it did not wait for the hung bd (3 s)
    assert len(knowledge(repo, "dispatch.jsonl")) == 1 and bd_calls(tmp_path)[0][:2] == ["comment", "BD-12"]


def test_env_style_secret_reaches_neither_dispatch_log_nor_bead(repo, tmp_path):
    """`.env`-form secrets with prefixed names used to pass redaction (`\\b` fails after `_`)."""
    prompt = ("BEAD_ID: BD-12\n\nRun the suite with POSTGRES_PASSWORD=Xk9mP2vL8qR4nZ7w in .env and\n"
              "export STRIPE_SECRET_KEY='Xk9mP2vL8qR4nZ7wQ3eR' first.")
    dispatch(repo, tmp_path, prompt=prompt)
    [entry] = knowledge(repo, "dispatch.jsonl")
    assert entry["redacted"] == ["secret_assignment"]
    assert "POSTGRES_PASSWORD=<redacted:secret_assignment> in .env" in entry["prompt"]
    [call] = bd_calls(tmp_path)
    assert call[:2] == ["comment", "BD-12"] and "STRIPE_SECRET_KEY='<redacted:secret_assignment>'" in call[2]
    written = [p for root in (repo / ".beads", tmp_path / "bd") for p in root.rglob("*") if p.is_file()]
    assert written and all(b"Xk9mP2vL8qR4nZ7w" not in p.read_bytes() for p in written)


@pytest.mark.parametrize("secret", ["ghp_" + "a1B2c3D4" * 4 + "e5F6", "Zq8!rT2vLp9xQ"])
def test_a_secret_across_the_prompt_cap_is_redacted_before_the_cut(repo, tmp_path, secret):
    """The prompt is kept to MAX_PROMPT_CHARS: cut first, a token across the cut lost its shape (a ghp_ token
    shorter than 36, a password shorter than 8) and its first half reached dispatch.jsonl and the bead's comment
    (bd's issues file, committed)."""
    from memory.orchestration.dispatch import MAX_PROMPT_CHARS

    before = "BEAD_ID: BD-12\n\n" + "Implement the cache layer. " * 200
    assignment = "DB_PASSWORD=" if secret.startswith("Zq8") else "use "
    head = before[:MAX_PROMPT_CHARS - len(assignment) - 7] + assignment
    dispatch(repo, tmp_path, prompt=head + secret + " for the release")
    written = [p for root in (repo / ".beads", tmp_path / "bd") for p in root.rglob("*") if p.is_file()]
    assert written and all(secret[:7].encode() not in p.read_bytes() for p in written)
    [call] = bd_calls(tmp_path)
    assert call[2].endswith("<redact")  # the marker is what the cap cuts now


def test_a_fork_that_fails_still_logs_and_answers(tmp_path, monkeypatch):
    """No process to spare (EAGAIN): the note of an unverified claim was popped and then lost with the error."""
    import errno
    import os as _os

    from helpers import hook_in_process, make_repo
    from memory.surface import notices

    repo = make_repo(tmp_path / "repo")
    memory = repo / ".beads" / "memory"
    notices.post(str(memory), "agent-9", "s1", "memory-hooks: BEAD BD-3 COMPLETE was not verified")
    payload = fixture_payload("claude-code/2.1.330/PostToolUse-18.json")
    payload.update(cwd=str(repo), tool_input=dict(payload["tool_input"], prompt="BEAD_ID: BD-3 do it"),
                   tool_response=dict(payload["tool_response"], agentId="agent-9"))

    def no_fork():
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(_os, "fork", no_fork)
    out = hook_in_process("log_dispatch_prompt", payload, repo, monkeypatch, env={"MEMORY_HOOKS_FOREGROUND": ""})
    assert "BEAD BD-3 COMPLETE was not verified" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert (memory / "dispatch.jsonl").exists()
