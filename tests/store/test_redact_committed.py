"""What git would commit holds no credential: an installed project, every writer run as the runtimes run it
(capture hook with a transcript as provenance, final reply, subagent report, recall.sh --add), then
`git add -A` and every staged blob searched for the passwords and for their lowercased slug (entry keys)."""
import json
import subprocess

import pytest

from helpers import bd_env, clean_env, fixture_payload, git, installed_project

PW = "Zq8!rT2vLp9x"  # a password a person typed: short, no vendor prefix
PW_ERROR = "Hk3#vQ9mWx2L"  # printed by the failed command the capture records as provenance
FORMS = [  # each reached knowledge.jsonl verbatim before the review of the writers (docs/secrets.md)
    f"the mssql login is sqlcmd -S db -U sa -P {PW}",
    f"bind with ldapsearch -x -D cn=admin,dc=ex -w {PW} -b dc=ex",
    f"the admin api takes http -a admin:{PW} POST https://api.internal/x",
    f"basic auth for nginx: htpasswd -b .htpasswd admin {PW}",
    f"the staging db password {PW}",
    f"log in with echo '{PW}' | docker login -u deploy --password-stdin registry.internal",
]


def _transcript(path, command, output):
    """A Claude Code transcript whose last shell call failed printing `output`."""
    lines = [{"type": "assistant", "message": {"role": "assistant", "content": [
                 {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": command}}]}},
             {"type": "user", "message": {"role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": "t1", "content": output, "is_error": True}]}}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def _hook(repo, name, payload, env):
    hook = repo / ".claude" / "hooks" / "memory-hooks" / "hooks" / f"{name}.py"
    proc = subprocess.run(["python3", str(hook)], input=json.dumps(payload).encode(), cwd=repo, env=env,
                          capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("form", FORMS)
def test_nothing_git_would_commit_holds_the_password(tmp_path, form):
    repo = installed_project(tmp_path / "project")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "install")
    env = clean_env(CLAUDE_PROJECT_DIR=str(repo), MEMORY_HOOKS_FOREGROUND="1", **bd_env(tmp_path / "bd"))
    (tmp_path / "bd").mkdir()
    subprocess.run(["bd", "update", "BD-1", "--status", "in_progress"], cwd=repo, env=env, check=True,
                   capture_output=True)
    failure = f"Exit code 1\nError: sqlcmd -S db -U sa -P {PW_ERROR} failed: Login failed for user 'sa'\n"
    transcript = _transcript(tmp_path / "t.jsonl", "sqlcmd -S db -Q 'select 1'", failure)
    command = f'bd comment BD-1 "LEARNED: {form}"'
    subprocess.run(["bash", "-c", command.replace("$", "\\$")], cwd=repo, env=env, check=True, capture_output=True)
    capture = fixture_payload("claude-code/2.1.330/PostToolUse-8.json")
    capture.update(cwd=str(repo), transcript_path=transcript, tool_input={"command": command},
                   tool_response={"stdout": "✓ Comment added to BD-1", "stderr": "", "interrupted": False,
                                  "isImage": False})
    _hook(repo, "memory_capture", capture, env)
    reply = fixture_payload("claude-code/2.1.330/Stop-1.json")
    reply.update(cwd=str(repo), transcript_path=transcript,
                 # about the failure (a capture records it only on an insight sharing a word with it)
                 last_assistant_message=f"Done.\nWARNING: in the reply, after the sqlcmd failure, {form}\n")
    _hook(repo, "capture_reply", reply, env)
    report = fixture_payload("claude-code/2.1.330/SubagentStop-1.json")
    report.update(cwd=str(repo), transcript_path=transcript, agent_transcript_path=transcript,
                  last_assistant_message=f"Done.\nDECISION: in the report, {form}\n")
    _hook(repo, "validate_completion", report, env)
    recall = str(repo / ".beads" / "memory" / "recall.sh")
    added = subprocess.run([recall, "--add", f"PATTERN: by hand, {form}"], cwd=repo, env=env, capture_output=True,
                           text=True)
    assert added.returncode == 0, added.stderr

    git(repo, "add", "-A")
    staged = git(repo, "diff", "--cached", "--name-only").split("\n")
    blobs = {name: git(repo, "show", f":{name}") for name in staged}
    entries = [json.loads(line) for name, text in blobs.items() if name.endswith(".jsonl") for line in text.split("\n")]
    assert {e["type"] for e in entries} == {"learned", "warning", "decision", "pattern"}  # every writer wrote
    assert any(e.get("errors") for e in entries)  # the failure was recorded as provenance
    for name, text in blobs.items():
        for secret in (PW, PW_ERROR):
            assert secret not in text and secret.lower().replace("!", "-").replace("#", "-") not in text, name
    assert all("<redacted:" in e["content"] for e in entries)

