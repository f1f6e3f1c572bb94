"""Action time end to end with the real CLIs (installed by install.sh, scripted fake model APIs).

Claude Code: an Edit of a file an entry is about, then a failing Bash command whose error an entry explains:
the request after each tool call carries that entry (and, in a later session, after a shell read of the file);
a LEARNED comment after them records the files the session had read or edited (provenance from the real
transcript). Gemini CLI: AfterTool on read_file and on a
failed run_shell_command. Codex CLI: PreToolUse on a shell read of a file, PostToolUse on a failed command.
What a Claude Code session used (a file's entry acted on, an entry looked up) keeps a title in the next map.
"""
import json
import subprocess

import pytest

from conftest import ROOT, knowledge
from helpers import installed_project
from memory.store import entry, store

FILE_ENTRY = "refund_service.py rounds refunds half-even; never use round() on Decimal amounts there."
ERROR_ENTRY = "ModuleNotFoundError for psycopg2 on this machine: install psycopg2-binary, libpq is not present."
SOURCE = "def refund(amount):\n    return amount\n"
PROMPT = "E2E-ACTION: carry on with the ticket."  # asks nothing the prompt hook could answer with either entry


def seeded(project):
    """The project with 100 unrelated entries and the two the events call for, and the file they name."""
    memory = str(project / ".beads" / "memory")
    store.append(memory, [entry.build(f"Note {i}: the release notes rule number {i} applies here.", f"BD-{100 + i}",
                                      "orchestrator", ts=1_700_000_000 + i) for i in range(100)])
    store.append(memory, [entry.build(FILE_ENTRY, "BD-7", "orchestrator", ts=1_600_000_000),
                          entry.build(ERROR_ENTRY, "BD-8", "orchestrator", ts=1_600_000_001)])
    (project / "payments").mkdir()
    (project / "payments" / "refund_service.py").write_text(SOURCE)
    (project / ".fake-bd").mkdir()  # bd comments only on a bead that exists
    (project / ".fake-bd" / "issues.json").write_text(json.dumps({"BD-9": {"status": "open"}}))
    return project


def claude_requests(tmp_path, project, turns):
    import test_e2e_claude as claude

    if not claude.CLAUDE.exists() or not (claude.HARNESS / "run-scenario.sh").exists():
        pytest.skip("real Claude Code CLI not installed")
    path = claude.scenario(tmp_path / "action.json", "e2e-action", PROMPT, turns)
    text = claude.run(path, project)
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.slow
def test_file_and_error_context_and_provenance_with_the_real_claude_cli(tmp_path):
    project = seeded(installed_project(tmp_path / "app"))
    target = str(project / "payments" / "refund_service.py")
    requests = claude_requests(tmp_path, project, [
        {"content": [{"type": "tool_use", "name": "Edit", "input": {
            "file_path": target, "old_string": "return amount", "new_string": "return amount  # rounded"}}]},
        {"content": [{"type": "tool_use", "name": "Bash", "input": {
            "command": "python3 -c 'import psycopg2'", "description": "check the driver"}}]},
        {"content": [{"type": "tool_use", "name": "Bash", "input": {
            "command": 'bd comment BD-9 "LEARNED: refunds are rounded in the service; run python3 from the venv, '
                       'the system one lacks the drivers."',
            "description": "record"}}]},
        {"content": [{"type": "text", "text": "Done."}]},
    ])
    bodies = [json.dumps(r) for r in requests if "E2E-ACTION" in json.dumps(r)]
    assert "tool_result" not in bodies[0] and FILE_ENTRY not in bodies[0]  # not at session start: 100 newer
    after_edit = next(b for b in bodies if "tool_result" in b)
    assert "## Knowledge about this file" in after_edit and FILE_ENTRY in after_edit
    assert ERROR_ENTRY not in after_edit
    after_error = next(b for b in bodies if "No module named" in b)
    assert "## Knowledge about this error" in after_error and ERROR_ENTRY in after_error
    assert after_error.count(FILE_ENTRY) == after_edit.count(FILE_ENTRY)  # given once: not again
    [learned] = [e for e in knowledge(project) if e["content"].startswith("refunds are rounded")]
    assert learned["files"] == ["payments/refund_service.py"]  # from the session's real transcript
    assert learned["errors"] == ["ModuleNotFoundError: No module named 'psycopg2'"]  # its last failure, too
    # a later session hitting the same failure gets what was learned right after it (by then, newer entries
    # fill session start's newest group)
    newer = [entry.build(f"Later note {i}: the changelog entry {i} is written by hand.", f"BD-{300 + i}",
                         "orchestrator", ts=learned["ts"] + 1 + i) for i in range(10)]
    store.append(str(project / ".beads" / "memory"), newer)
    (tmp_path / "later").mkdir()
    later = claude_requests(tmp_path / "later", project, [
        {"content": [{"type": "tool_use", "name": "Bash", "input": {
            "command": "python3 -c 'import psycopg2'", "description": "check the driver again"}}]},
        {"content": [{"type": "text", "text": "Done."}]},
    ])
    after_same = [b for b in map(json.dumps, later) if "No module named" in b][-1]
    assert "(recorded right after this same error) refunds are rounded in the service" in after_same
    # a file read through the shell, as bypass-permissions mode advises, gets the file's knowledge too
    (tmp_path / "reader").mkdir()
    reader = claude_requests(tmp_path / "reader", project, [
        {"content": [{"type": "tool_use", "name": "Bash", "input": {
            "command": "sed -n 1,40p payments/refund_service.py", "description": "read the service"}}]},
        {"content": [{"type": "text", "text": "Done."}]},
    ])
    after_read = next(b for b in map(json.dumps, reader) if "def refund(amount)" in b)
    assert "## Knowledge about this file" in after_read and FILE_ENTRY in after_read
    assert not (project / ".beads" / "memory" / "errors.log").exists()


@pytest.mark.slow
def test_after_tool_context_with_the_real_gemini_cli(tmp_path):
    import test_e2e_gemini as gemini

    if not gemini.GEMINI.exists():
        pytest.skip("real Gemini CLI not installed")
    project = seeded(installed_project(tmp_path / "app"))
    turns = [[{"functionCall": {"name": "read_file", "args": {
        "file_path": str(project / "payments" / "refund_service.py")}}}],
        [{"functionCall": {"name": "run_shell_command", "args": {"command": "python3 -c 'import psycopg2'"}}}],
        [{"text": "Done."}]]
    requests = gemini.run(tmp_path, project, "action", PROMPT, turns)
    calls = [r["body"] for r in requests if "streamGenerateContent" in r["path"]]
    assert FILE_ENTRY not in calls[0] and FILE_ENTRY in calls[1] and ERROR_ENTRY not in calls[1]
    assert ERROR_ENTRY in calls[2] and calls[2].count(FILE_ENTRY) == calls[1].count(FILE_ENTRY)
    assert not (project / ".beads" / "memory" / "errors.log").exists()


@pytest.mark.slow
def test_shell_read_and_failure_context_with_the_real_codex_cli(tmp_path):
    import test_e2e_codex as codex

    if not codex.CODEX.exists():
        pytest.skip("real Codex CLI not installed")
    project = seeded(installed_project(tmp_path / "app"))
    read = {"type": "function_call", "call_id": "call_1", "name": "exec_command",
            "arguments": json.dumps({"cmd": "sed -n 1,80p payments/refund_service.py"})}
    fail = {"type": "function_call", "call_id": "call_2", "name": "exec_command",
            "arguments": json.dumps({"cmd": "python3 -c 'import psycopg2'"})}
    requests = codex.run(tmp_path, project, "action", PROMPT, [read, fail, codex.say("Done.")])
    assert FILE_ENTRY not in requests[0] and FILE_ENTRY in requests[1] and ERROR_ENTRY not in requests[1]
    assert ERROR_ENTRY in requests[2]
    assert not (project / ".beads" / "memory" / "errors.log").exists()
    assert subprocess.run(["git", "status"], cwd=project, capture_output=True).returncode == 0
    assert ROOT.exists()


@pytest.mark.slow
def test_what_a_session_used_keeps_a_title_in_the_next_sessions_map_with_the_real_claude_cli(tmp_path):
    """Use as a signal (issue #20 item 4), through the real CLI: 600 newer entries leave no room in the map for
    two old ones; one session reads and then edits the file one of them is about, and looks the other up with
    recall.sh as the map says; the next session's first request titles both."""
    project = seeded(installed_project(tmp_path / "app"))
    memory = str(project / ".beads" / "memory")
    store.append(memory, [entry.build(f"Entry about the zq{i}k module: keep its cache warm between the runs.",
                                      f"BD-{400 + i}", "orchestrator", ts=1_750_000_000 + i) for i in range(600)])
    store.append(memory, [entry.build("Ledger exports are written in UTC and never in the server's local zone.",
                                      "BD-9", "orchestrator", ts=1_600_000_002)])
    target = str(project / "payments" / "refund_service.py")
    first = claude_requests(tmp_path, project, [
        {"content": [{"type": "tool_use", "name": "Read", "input": {"file_path": target}}]},
        {"content": [{"type": "tool_use", "name": "Edit", "input": {
            "file_path": target, "old_string": "return amount", "new_string": "return amount  # rounded"}}]},
        {"content": [{"type": "tool_use", "name": "Bash", "input": {
            "command": '.beads/memory/recall.sh "Ledger exports are written in UTC"', "description": "look up"}}]},
        {"content": [{"type": "text", "text": "Done."}]},
    ])
    opening = next(json.dumps(r) for r in first if "E2E-ACTION" in json.dumps(r))
    assert "Not listed:" in opening and "Ledger exports are written" not in opening \
        and "refund_service.py rounds refunds" not in opening
    assert any("Ledger exports are written in UTC" in json.dumps(r) and "tool_result" in json.dumps(r)
               for r in first)  # recall.sh answered inside the session
    (tmp_path / "next").mkdir()
    later = claude_requests(tmp_path / "next", project, [{"content": [{"type": "text", "text": "Done."}]}])
    opening = next(json.dumps(r) for r in later if "E2E-ACTION" in json.dumps(r))
    assert "Ledger exports are written in UTC" in opening and "refund_service.py rounds refunds half-even" in opening
    assert not (project / ".beads" / "memory" / "errors.log").exists()
