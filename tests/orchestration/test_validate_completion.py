"""SubagentStop completion gate: real worktrees, a bare remote, a fake bd, real SubagentStop payloads."""
import json
import os
import subprocess
import time

import pytest

from conftest import FIXTURES, ROOT, fixture_payload, git, run_hook
from helpers import copy_tree, error_log, hook_in_process, make_repo

FAKE_BD = str(ROOT / "tests" / "fake_bd")
REPORT = "All done.\n\nBEAD BD-12 COMPLETE\nWorktree: .worktrees/bd-BD-12\nBranch: bd-BD-12"


@pytest.fixture(scope="module")
def project_template(tmp_path_factory):
    """Main checkout with a bare remote, and the bead's worktree pushed and clean; bd says inreview."""
    base = tmp_path_factory.mktemp("completion")
    repo = make_repo(base / "project")
    remote = base / "remote.git"
    git(base, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "-u", "origin", "main")
    git(repo, "worktree", "add", "-q", ".worktrees/bd-BD-12", "-b", "bd-BD-12")
    wt = repo / ".worktrees" / "bd-BD-12"
    (wt / "feature.txt").write_text("done\n")
    git(wt, "add", "feature.txt")
    git(wt, "commit", "-q", "-m", "feature")
    git(wt, "push", "-q", "-u", "origin", "bd-BD-12")
    (base / "bd-state").mkdir()
    set_status(base, "inreview")
    return base


@pytest.fixture
def project(project_template, tmp_path):
    """A copy of the template for each test (the gate's git commands see a repository made at tmp_path)."""
    return copy_tree(project_template, tmp_path) / "project"


def set_status(tmp_path, status):
    (tmp_path / "bd-state" / "issues.json").write_text(json.dumps({"BD-12": {"status": status, "title": "x"}}))


def stop(project, tmp_path, message=REPORT, agent_type="swift-supervisor", agent_id="agent-1", active=False,
         path_with_bd=True, extra_env=None, in_process=None, **fields):
    """The gate on a recorded SubagentStop payload: the hook file as a process, or with `in_process` (pytest's
    monkeypatch) its main() in this process (helpers.hook_in_process); the decision, or None."""
    payload = fixture_payload("claude-code/2.1.330/SubagentStop-4.json")
    payload.update(cwd=str(project), agent_type=agent_type, agent_id=agent_id, stop_hook_active=active,
                   last_assistant_message=message, **fields)
    path = (FAKE_BD + os.pathsep if path_with_bd else "") + os.environ["PATH"]
    env = {"PATH": path, "FAKE_BD_DIR": str(tmp_path / "bd-state"), **(extra_env or {})}
    if in_process is not None:
        out = hook_in_process("validate_completion", payload, project, in_process, env=env)
    else:
        proc = run_hook("validate_completion", payload, project, env=env)
        assert proc.returncode == 0 and b"Traceback" not in proc.stderr
        out = proc.stdout
    return json.loads(out) if out else None


def test_finished_bead_passes(project, tmp_path):
    assert stop(project, tmp_path) is None


@pytest.mark.parametrize("variable, value", [("GIT_INDEX_FILE", ".git/index"), ("GIT_DIR", ".git")])
def test_a_finished_bead_passes_when_the_agent_runs_inside_a_git_hook(project, tmp_path, variable, value):
    """An agent started from a git hook (a commit-message hook) inherits GIT_DIR / GIT_INDEX_FILE of the main
    checkout: the gate's git calls about the bead's worktree must not read that index (it blocked as
    "2 uncommitted change(s)", with `git add -A` as the fix)."""
    assert stop(project, tmp_path, extra_env={variable: str(project / value)}) is None


def test_a_repository_git_refuses_is_not_verified_never_blocked(project, tmp_path):
    """A hook run as another user than the checkout's owner: git refuses it (dubious ownership), which says
    nothing of the bead's work; the gate let the agent finish only after two blocks before."""
    assert stop(project, tmp_path, extra_env={"GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"}) is None


def test_uncommitted_changes_block_with_the_fix(project, tmp_path):
    (project / ".worktrees" / "bd-BD-12" / "feature.txt").write_text("changed\n")
    out = stop(project, tmp_path)
    assert out["decision"] == "block"
    assert "- worktree: 1 uncommitted change(s)" in out["reason"] and "add -A" in out["reason"]


def test_unpushed_commits_block(project, tmp_path):
    wt = project / ".worktrees" / "bd-BD-12"
    (wt / "more.txt").write_text("x\n")
    git(wt, "add", "more.txt")
    git(wt, "commit", "-q", "-m", "more")
    out = stop(project, tmp_path)
    assert "- pushed: 1 commit(s) on bd-BD-12 not in origin/bd-BD-12" in out["reason"]
    assert f'git -C "{wt}" push' in out["reason"]


def test_branch_without_upstream_blocks(project, tmp_path):
    git(project, "worktree", "add", "-q", ".worktrees/bd-BD-13", "-b", "bd-BD-13")
    out = stop(project, tmp_path, message="BEAD BD-13 COMPLETE\nBranch: bd-BD-13")
    assert "- pushed: branch bd-BD-13 has no upstream" in out["reason"] and "push -u origin bd-BD-13" in out["reason"]


def test_wrong_bead_status_blocks(project, tmp_path):
    set_status(tmp_path, "in_progress")
    (tmp_path / "bd-state" / "config.json").write_text(json.dumps({"status.custom": "qa:wip,inreview"}))
    out = stop(project, tmp_path)
    assert "- bead-status: BD-12 is 'in_progress', expected inreview" in out["reason"]
    assert "fix: bd update BD-12 --status inreview\n" in out["reason"]


@pytest.mark.parametrize("declared, value", [(None, "inreview"), ("qa:wip", "qa:wip,inreview")])
def test_a_status_bd_does_not_know_yet_gets_a_fix_that_declares_it(project, tmp_path, declared, value):
    # stock bd refuses `--status inreview` ("invalid status") until the project declares it in status.custom
    set_status(tmp_path, "in_progress")
    if declared:
        (tmp_path / "bd-state" / "config.json").write_text(json.dumps({"status.custom": declared}))
    reason = stop(project, tmp_path)["reason"]
    fix = next(line for line in reason.splitlines() if "bd update" in line).split("fix: ", 1)[1]
    assert fix == f"bd config set status.custom {value} && bd update BD-12 --status inreview"
    env = {**os.environ, "PATH": FAKE_BD + os.pathsep + os.environ["PATH"], "FAKE_BD_DIR": str(tmp_path / "bd-state")}
    assert subprocess.run(["bd", "update", "BD-12", "--status", "inreview"], env=env, cwd=project,
                          capture_output=True).returncode == 1  # as bd says it: the fix above is needed
    subprocess.run(fix, shell=True, env=env, cwd=project, check=True, capture_output=True)
    assert stop(project, tmp_path) is None  # the fix as given lets the agent finish


def test_every_failure_is_listed(project, tmp_path):
    set_status(tmp_path, "open")
    (project / ".worktrees" / "bd-BD-12" / "feature.txt").write_text("changed\n")
    reason = stop(project, tmp_path)["reason"]
    assert "- worktree:" in reason and "- bead-status:" in reason and "- pushed:" not in reason


def test_missing_worktree_blocks(project, tmp_path):
    out = stop(project, tmp_path, message="BEAD BD-99 COMPLETE\nWorktree: .worktrees/bd-BD-99")
    assert "- worktree: no worktree for BD-99" in out["reason"]


def test_a_reported_worktree_of_another_repository_blocks(project, tmp_path):
    other = make_repo(tmp_path / "other")  # clean, committed: its state says nothing of this bead
    out = stop(project, tmp_path, message=f"BEAD BD-12 COMPLETE\nWorktree: {other}\nBranch: bd-BD-12")
    assert f"- worktree: {other} is not a worktree of this repository" in out["reason"]


@pytest.mark.parametrize("branch", ["bd-BD-12.", "bd-BD-12, pushed to origin", "`refs/heads/bd-BD-12`",
                                    "origin/bd-BD-12"])
def test_a_branch_line_written_as_prose_names_the_branch(project, tmp_path, branch):
    assert stop(project, tmp_path, message=f"BEAD BD-12 COMPLETE\nWorktree: .worktrees/bd-BD-12\nBranch: {branch}") \
        is None


def test_a_tag_named_like_the_branch_is_no_other_branch(project, tmp_path):
    git(project / ".worktrees" / "bd-BD-12", "tag", "bd-BD-12")  # --abbrev-ref then says heads/bd-BD-12
    assert stop(project, tmp_path) is None


def test_a_clone_of_the_same_remote_counts_as_the_beads_checkout(project, tmp_path):
    remote = project.parent / "remote.git"
    git(project, "clone", "-q", str(remote), ".worktrees/bd-BD-20")
    clone = project / ".worktrees" / "bd-BD-20"
    git(clone, "checkout", "-q", "-b", "bd-BD-20")
    (clone / "f.txt").write_text("x\n")
    git(clone, "add", "f.txt")
    git(clone, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "work")
    git(clone, "push", "-q", "-u", "origin", "bd-BD-20")
    (tmp_path / "bd-state" / "issues.json").write_text(json.dumps({"BD-20": {"status": "inreview"}}))
    assert stop(project, tmp_path, message="BEAD BD-20 COMPLETE\nWorktree: .worktrees/bd-BD-20\nBranch: bd-BD-20") \
        is None


def test_a_worktree_on_another_branch_than_reported_blocks(project, tmp_path):
    out = stop(project, tmp_path, message="BEAD BD-12 COMPLETE\nWorktree: .worktrees/bd-BD-12\nBranch: bd-BD-13")
    assert "is on branch bd-BD-12, the report says Branch: bd-BD-13" in out["reason"]


def test_a_reported_worktree_that_does_not_exist_is_named(project, tmp_path):
    out = stop(project, tmp_path, message="BEAD BD-99 COMPLETE\nWorktree: ../gone/bd-99")
    assert "- worktree: no worktree for BD-99 (looked for ../gone/bd-99, .worktrees/bd-BD-99)" in out["reason"]


def test_a_plain_folder_named_as_the_worktree_blocks(project, tmp_path):
    """`mkdir .worktrees/bd-BD-4`: git answers for the main checkout around it (clean, pushed), which passed."""
    (project / ".worktrees" / "bd-BD-4").mkdir()
    out = stop(project, tmp_path, message="BEAD BD-4 COMPLETE\nWorktree: .worktrees/bd-BD-4")
    assert "is a plain folder of the main checkout, not a worktree" in out["reason"]
    assert "fix: git worktree add .worktrees/bd-BD-4 -b bd-BD-4" in out["reason"]


def test_another_beads_worktree_blocks(project, tmp_path):
    out = stop(project, tmp_path, message="BEAD BD-6 COMPLETE\nWorktree: .worktrees/bd-BD-12\nBranch: bd-BD-12")
    assert "is the worktree of bead BD-12, not of BD-6" in out["reason"]


def test_a_missing_worktree_of_an_existing_branch_gets_a_fix_that_works(project, tmp_path):
    git(project, "branch", "bd-BD-3")
    reason = stop(project, tmp_path, message="BEAD BD-3 COMPLETE\nBranch: bd-BD-3")["reason"]
    fix = next(line for line in reason.splitlines() if "git worktree add" in line).split("fix: ", 1)[1]
    assert fix == "git worktree add .worktrees/bd-BD-3 bd-BD-3"
    subprocess.run(fix, shell=True, cwd=project, check=True, capture_output=True)  # `-b` would fail: it exists


def test_a_worktree_made_from_origin_main_is_judged_by_its_own_branch(project, tmp_path):
    """`git worktree add … -b bd-BD-10 origin/main` tracks origin/main: the gate said "1 commit(s) not in
    origin/main" and offered `git push`, which git refuses (the upstream's name differs); pushing to main was
    the only way through."""
    git(project, "fetch", "-q", "origin")
    git(project, "worktree", "add", "-q", ".worktrees/bd-BD-10", "-b", "bd-BD-10", "origin/main")
    wt = project / ".worktrees" / "bd-BD-10"
    (wt / "work.txt").write_text("done\n")
    git(wt, "add", "work.txt")
    git(wt, "commit", "-q", "-m", "work")
    message = "BEAD BD-10 COMPLETE\nWorktree: .worktrees/bd-BD-10\nBranch: bd-BD-10"
    (tmp_path / "bd-state" / "issues.json").write_text(json.dumps({"BD-10": {"status": "inreview"}}))
    reason = stop(project, tmp_path, message=message)["reason"]
    assert "branch bd-BD-10 tracks origin/main, and origin/bd-BD-10 does not exist" in reason
    fix = next(line for line in reason.splitlines() if "fix:" in line and "push" in line).split("fix: ", 1)[1]
    assert fix == f'git -C "{wt}" push -u origin bd-BD-10'
    subprocess.run(fix, shell=True, cwd=project, check=True, capture_output=True)
    assert stop(project, tmp_path, message=message, agent_id="agent-2") is None


def test_a_descriptive_worktree_name_and_a_subfolder_are_the_beads_own(project, tmp_path):
    """`bd-BD-12-login` starts with this bead's name; a report naming the worktree's `app/` subfolder names
    the worktree; a main checkout folder named `bd-tools` names no bead: each was blocked by the identity check."""
    wt = project / ".worktrees" / "bd-BD-12"
    git(wt, "branch", "-m", "bd-BD-12-login")
    git(wt, "push", "-q", "-u", "origin", "bd-BD-12-login")
    (wt / "app").mkdir()
    for worktree in (".worktrees/bd-BD-12", ".worktrees/bd-BD-12/app"):
        message = f"BEAD BD-12 COMPLETE\nWorktree: {worktree}\nBranch: bd-BD-12-login"
        assert stop(project, tmp_path, message=message, agent_id=worktree) is None, worktree
    tools = project.parent / "bd-tools"
    project.rename(tools)
    assert stop(tools, tmp_path, message="BEAD BD-12 COMPLETE\nWorktree: .\nBranch: main", agent_id="t") is None


def test_a_closed_bead_passes(project, tmp_path):
    """Merged and closed already: the fix offered (`--status inreview`) would have reopened it."""
    set_status(tmp_path, "closed")
    assert stop(project, tmp_path) is None


def test_the_fix_for_a_dirty_main_checkout_does_not_commit_the_worktrees(project, tmp_path):
    (project / "notes.txt").write_text("stray\n")
    reason = stop(project, tmp_path, message="BEAD BD-12 COMPLETE\nWorktree: .\nBranch: main")["reason"]
    fix = next(line for line in reason.splitlines() if "add -A" in line).split("fix: ", 1)[1]
    subprocess.run(fix.replace("<message>", "notes"), shell=True, cwd=project, check=True, capture_output=True)
    committed = git(project, "show", "--name-only", "--format=", "HEAD").split()
    assert committed == ["notes.txt"]  # not .worktrees/bd-BD-12 as an embedded repository


def test_supervisor_without_report_is_told_the_format(project, tmp_path):
    out = stop(project, tmp_path, message="I think I am done.")
    assert "- report:" in out["reason"] and "BEAD <ID> COMPLETE" in out["reason"]


def test_bd_not_installed_is_skipped_with_a_note(project, tmp_path, monkeypatch):
    no_bd = [p for p in os.environ["PATH"].split(os.pathsep) if not os.path.exists(os.path.join(p, "bd"))]
    monkeypatch.setenv("PATH", os.pathsep.join(no_bd))
    assert stop(project, tmp_path, path_with_bd=False) is None
    (project / ".worktrees" / "bd-BD-12" / "feature.txt").write_text("changed\n")
    reason = stop(project, tmp_path, path_with_bd=False)["reason"]
    assert "bd is not installed; bead status not verified" in reason


def test_hanging_bd_is_cut_off_by_the_timeout(project, tmp_path):
    (project / ".beads" / "memory").mkdir(parents=True)
    (project / ".beads" / "memory" / "completion.json").write_text(json.dumps({"timeout": 1}))
    (project / ".worktrees" / "bd-BD-12" / "feature.txt").write_text("changed\n")
    start = time.monotonic()
    out = stop(project, tmp_path, extra_env={"FAKE_BD_HANG": "60"})
    assert time.monotonic() - start < 30  # the hung bd (60 s) was not waited for
    assert "timed out after 1s" in out["reason"] and "- worktree:" in out["reason"]


def test_loop_guard_lets_the_agent_finish_after_two_blocks(project, tmp_path):
    set_status(tmp_path, "open")
    assert stop(project, tmp_path, active=False)["decision"] == "block"
    assert stop(project, tmp_path, active=True)["decision"] == "block"
    third = stop(project, tmp_path, active=True)
    assert "decision" not in third and "after 2 blocked attempts" in third["systemMessage"]
    assert stop(project, tmp_path, agent_id="agent-2")["decision"] == "block"  # counted per agent
    set_status(tmp_path, "inreview")
    assert stop(project, tmp_path, agent_id="agent-2", active=True) is None
    state = json.loads((project / ".beads" / "memory" / "completion-state.json").read_text())
    assert "agent-2" not in state


def test_the_parent_agent_is_told_of_a_claim_the_loop_guard_let_through(project, tmp_path):
    """Headless orchestration: the release's systemMessage reaches the user, never the parent agent, which then
    merged the unverified claim. The subagent's result (PostToolUse Agent, its agentId) now carries the note,
    once; an ordinary subagent's result gets nothing."""
    set_status(tmp_path, "open")
    for active in (False, True, True):
        stop(project, tmp_path, active=active)  # blocked twice, then let through
    result = fixture_payload("claude-code/2.1.330/PostToolUse-18.json")
    result["cwd"] = str(project)
    result["tool_response"] = dict(result["tool_response"], agentId="agent-1")
    proc = run_hook("log_dispatch_prompt", result, project)
    said = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "BEAD BD-12 COMPLETE was not verified" in said and "bead-status: BD-12 is 'open'" in said
    assert run_hook("log_dispatch_prompt", result, project).stdout == b""  # told once
    result["tool_response"] = dict(result["tool_response"], agentId="agent-other")
    assert run_hook("log_dispatch_prompt", result, project).stdout == b""


def test_a_background_subagents_unverified_claim_reaches_the_parent_with_its_report(project, tmp_path):
    """Since Claude Code 2.1.198 a subagent runs in the background: its Agent call returns at launch, and its
    report reaches the parent later as a UserPromptSubmit (a <task-notification>). The note rides on that prompt,
    once, and only in the parent's session."""
    set_status(tmp_path, "open")
    for active in (False, True, True):
        stop(project, tmp_path, active=active)  # blocked twice, then let through
    session = fixture_payload("claude-code/2.1.330/SubagentStop-4.json")["session_id"]
    report = fixture_payload("claude-code/2.1.330/UserPromptSubmit-1.json")
    report.update(cwd=str(project), prompt="<task-notification><status>completed</status><result>BEAD BD-12 "
                  "COMPLETE</result></task-notification>")
    other = run_hook("prompt_recall", dict(report, session_id="another-session"), project)
    assert other.returncode == 0 and other.stdout == b""  # another session's prompt: not told there
    told = run_hook("prompt_recall", dict(report, session_id=session), project)
    said = json.loads(told.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "BEAD BD-12 COMPLETE was not verified" in said and "bead-status: BD-12 is 'open'" in said
    assert run_hook("prompt_recall", dict(report, session_id=session, prompt="yes"), project).stdout == b""  # once
    result = fixture_payload("claude-code/2.1.330/PostToolUse-18.json")  # and not again with the Agent result
    result.update(cwd=str(project), tool_response=dict(result["tool_response"], agentId="agent-1"))
    assert run_hook("log_dispatch_prompt", result, project).stdout == b""


@pytest.mark.parametrize("name", ["claude-code/2.1.197/SubagentStop-1.json", "claude-code/2.1.330/SubagentStop-2.json",
                                  "public/claude-SubagentStop-2.json", "claude-code/2.1.330/SubagentStop-3.json",
                                  "claude-code/2.1.330/SubagentStop-5.json"])
def test_real_payloads_of_internal_and_ordinary_agents_pass_through(project, name):
    payload = fixture_payload(name)
    payload["cwd"] = str(project)
    proc = run_hook("validate_completion", payload, project)
    assert proc.returncode == 0 and proc.stdout == b""


def test_ordinary_agent_claiming_a_bead_is_checked(project, tmp_path):
    set_status(tmp_path, "open")
    assert stop(project, tmp_path, agent_type="general-purpose")["decision"] == "block"


def test_worker_types_are_exempt(project, tmp_path):
    set_status(tmp_path, "open")
    assert stop(project, tmp_path, agent_type="worker-supervisor") is None


def test_final_text_from_the_transcript_when_the_payload_has_none(project, tmp_path):
    transcript = tmp_path / "agent.jsonl"
    lines = (FIXTURES / "claude-code" / "2.1.197" / "transcript-subagent-sample.jsonl").read_text().splitlines()
    last = json.loads(lines[-1])
    last["message"]["content"] = [{"type": "text", "text": REPORT}]
    transcript.write_text("\n".join(lines + [json.dumps(last), '{"torn": ']) + "\n")
    set_status(tmp_path, "open")
    payload = fixture_payload("public/claude-SubagentStop-1.json")  # pre-2.1.47: no last_assistant_message
    payload.update(cwd=str(project), agent_type="supervisor", agent_transcript_path=str(transcript))
    env = {"PATH": FAKE_BD + os.pathsep + os.environ["PATH"], "FAKE_BD_DIR": str(tmp_path / "bd-state")}
    out = json.loads(run_hook("validate_completion", payload, project, env=env).stdout)
    assert "bead-status: BD-12 is 'open'" in out["reason"]


def test_cursor_subagent_stop(project, tmp_path):
    set_status(tmp_path, "open")
    base = {"conversation_id": "c", "generation_id": "g", "cursor_version": "3.9.16", "hook_event_name": "subagentStop",
            "workspace_roots": [str(project)], "subagent_type": "supervisor", "summary": REPORT, "loop_count": 0,
            "agent_transcript_path": None}
    env = {"PATH": FAKE_BD + os.pathsep + os.environ["PATH"], "FAKE_BD_DIR": str(tmp_path / "bd-state")}
    done = json.loads(run_hook("validate_completion", dict(base, status="completed"), project, env=env,
                               args=["--cursor"]).stdout)
    assert list(done) == ["followup_message"] and "bead-status" in done["followup_message"]
    assert run_hook("validate_completion", dict(base, status="error"), project, env=env).stdout == b""


@pytest.mark.parametrize("stdin", [b"", b"[]", b"null", b'{"agent_type": 5, "last_assistant_message": ["x"]}'])
def test_bad_stdin_never_blocks(project, stdin):
    proc = run_hook("validate_completion", stdin, project)
    assert proc.returncode == 0 and proc.stdout == b""


# --- which messages and agents the gate applies to ------------------------------------------------------------

PROSE = ["Reviewed the diff; you can mark bead BD-12 complete.",
         "Summary\n\nBead BD-12 complete.",
         "The supervisor's report said BEAD BD-12 COMPLETE, and the branch looks fine.",
         "bead BD-12 complete\nWorktree: .worktrees/bd-BD-12",
         # the report's format quoted in a code block (documenting the protocol): it blocked the agent
         "I documented the protocol in AGENTS.md. A supervisor ends with:\n\n```\nBEAD BD-12 COMPLETE\n"
         "Worktree: .worktrees/bd-BD-12\nBranch: bd-BD-12\n```\n\nThat is all.",
         "```\nBEAD BD-12 COMPLETE\n```",
         "A supervisor ends with:\n\n    BEAD BD-12 COMPLETE\n    Worktree: .worktrees/bd-BD-12\n\nThat is all.",
         "The format, quoted:\n````\n```\nBEAD BD-12 COMPLETE\n```\n````\nDone."]


@pytest.mark.parametrize("agent_type", ["general-purpose", "Explore", "code-reviewer"])
@pytest.mark.parametrize("message", PROSE)
def test_prose_mentioning_a_bead_leaves_ordinary_agents_alone(project, tmp_path, agent_type, message, monkeypatch):
    """Which texts are claims: the gate's main() in this process (the hook file runs as a process on an ordinary
    agent's claim in test_ordinary_agent_claiming_a_bead_is_checked)."""
    set_status(tmp_path, "open")  # a claim would be blocked: the bead is not in review
    assert stop(project, tmp_path, message=message, agent_type=agent_type, in_process=monkeypatch) is None


def test_a_supervisors_report_in_a_code_block_is_still_its_claim(project, tmp_path, monkeypatch):
    set_status(tmp_path, "open")
    reason = stop(project, tmp_path, message="Done.\n\n```\nBEAD BD-12 COMPLETE\nBranch: bd-BD-12\n```",
                  agent_type="bead-supervisor", in_process=monkeypatch)["reason"]
    assert "- bead-status: BD-12 is 'open'" in reason


DECORATED = [
    "Done.\n\n**BEAD BD-12 COMPLETE**\n**Worktree:** .worktrees/bd-BD-12\n- **Branch:** `bd-BD-12`",
    # the labels indented under the report line, as the gate's own fix hint shows them; a report nested in a list
    "Done.\n\nBEAD BD-12 COMPLETE\n    Worktree: .worktrees/bd-BD-12\n    Branch: bd-BD-12",
    "Summary:\n1. Fixed the parser\n2. Report:\n    - BEAD BD-12 COMPLETE\n    - Branch: bd-BD-12",
    "Done.\n\n> BEAD BD-12 COMPLETE\n> Worktree: `.worktrees/bd-BD-12`",
    "Done.\n\n- `BEAD BD-12 COMPLETE`\n- **Branch**: `bd-BD-12`",
]


@pytest.mark.parametrize("message", DECORATED)
def test_markdown_decorated_report_is_read(project, tmp_path, message, monkeypatch):
    """How a report is read: the gate's main() in this process (the hook file runs as a process on the plain
    report in test_finished_bead_passes and test_wrong_bead_status_blocks)."""
    assert stop(project, tmp_path, message=message, agent_type="general-purpose", in_process=monkeypatch) is None
    set_status(tmp_path, "open")
    reason = stop(project, tmp_path, message=message, agent_type="general-purpose", agent_id="agent-2",
                  in_process=monkeypatch)["reason"]
    assert "- bead-status: BD-12 is 'open'" in reason and "- report:" not in reason


@pytest.mark.parametrize("agent_type", ["non-supervisor-helper", "supervisor-notes-reader", "Explore"])
def test_supervisor_is_the_last_word_of_the_agent_type_not_any_substring(project, tmp_path, agent_type):
    assert stop(project, tmp_path, message="I think I am done.", agent_type=agent_type) is None


@pytest.mark.parametrize("agent_type", ["supervisor", "swift-supervisor", "SwiftSupervisor", "beads:python-supervisor"])
def test_supervisor_types_are_gated_without_a_report(project, tmp_path, agent_type):
    assert stop(project, tmp_path, message="I think I am done.", agent_type=agent_type)["decision"] == "block"


# --- honest BLOCKED / FAILED reports ---------------------------------------------------------------------------

def bd_calls(tmp_path):
    path = tmp_path / "bd-state" / "calls.jsonl"
    return [json.loads(line)["argv"] for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.parametrize("line, comment", [
    ("BEAD BD-12 BLOCKED: need user input", "BLOCKED: need user input"),
    ("**BEAD BD-12 FAILED:** the API it needs was removed", "FAILED: the API it needs was removed"),
    ("- BEAD BD-12 BLOCKED: waiting on `BD-3`", "BLOCKED: waiting on `BD-3`"),  # the reason as written
    ("**BEAD BD-12 BLOCKED: needs a product decision**", "BLOCKED: needs a product decision"),
])
def test_blocked_or_failed_report_finishes_and_is_recorded_on_the_bead(project, tmp_path, line, comment):
    set_status(tmp_path, "open")
    (project / ".worktrees" / "bd-BD-12" / "feature.txt").write_text("half done\n")
    assert stop(project, tmp_path, message=f"I could not finish.\n\n{line}") is None
    assert ["comments", "add", "BD-12", comment] in bd_calls(tmp_path)
    issues = json.loads((tmp_path / "bd-state" / "issues.json").read_text())
    assert issues["BD-12"]["comments"] == [comment] and issues["BD-12"]["status"] == "open"


def test_blocked_report_finishes_when_bd_hangs_and_the_problem_is_logged(project, tmp_path):
    (project / ".beads" / "memory").mkdir(parents=True)
    (project / ".beads" / "memory" / "completion.json").write_text(json.dumps({"timeout": 1}))
    start = time.monotonic()
    assert stop(project, tmp_path, message="BEAD BD-12 BLOCKED: need user input",
                extra_env={"FAKE_BD_HANG": "60"}) is None
    assert time.monotonic() - start < 30
    log = (project / ".beads" / "memory" / "errors.log").read_text()
    assert "validate_completion" in log and "bd comments add BD-12" in log and "timed out after 1s" in log


def test_blocked_report_without_bd_still_finishes(project, tmp_path, monkeypatch):
    no_bd = [p for p in os.environ["PATH"].split(os.pathsep) if not os.path.exists(os.path.join(p, "bd"))]
    monkeypatch.setenv("PATH", os.pathsep.join(no_bd))
    assert stop(project, tmp_path, message="BEAD BD-12 FAILED: tests red", path_with_bd=False) is None


# --- what the block message says -------------------------------------------------------------------------------

def test_no_report_block_offers_the_honest_outcomes_too(project, tmp_path):
    reason = stop(project, tmp_path, message="I think I am done.")["reason"]
    assert "- report: the final message has no report line" in reason
    assert "BEAD <ID> COMPLETE" in reason and "BEAD <ID> BLOCKED: <reason>" in reason
    assert "BEAD <ID> FAILED: <reason>" in reason


def test_report_without_worktree_or_branch_says_so_in_english(project, tmp_path):
    reason = stop(project, tmp_path, message="BEAD BD-12 COMPLETE")["reason"]
    assert "- report: the final message has no `Worktree:` or `Branch:` line" in reason


def test_failed_checks_offer_blocked_instead_of_a_false_claim(project, tmp_path):
    set_status(tmp_path, "open")
    reason = stop(project, tmp_path)["reason"]
    assert "BEAD BD-12 BLOCKED: <reason>" in reason and "BEAD BD-12 FAILED: <reason>" in reason


def test_a_lowercase_report_from_a_supervisor_is_pointed_out(project, tmp_path):
    reason = stop(project, tmp_path, message="Bead BD-12 complete\nWorktree: .worktrees/bd-BD-12")["reason"]
    assert "`Bead BD-12 complete`" in reason and "uppercase" in reason


def test_loop_guard_warning_for_a_supervisor_without_report_names_no_bead(project, tmp_path):
    for active in (False, True):
        assert stop(project, tmp_path, message="done", active=active)["decision"] == "block"
    warning = stop(project, tmp_path, message="done", active=True)["systemMessage"]
    assert "without a completion report" in warning and "None" not in warning


# --- switching checks off ---------------------------------------------------------------------------------------

def configure(project, **config):
    (project / ".beads" / "memory").mkdir(parents=True, exist_ok=True)
    (project / ".beads" / "memory" / "completion.json").write_text(json.dumps(config))


def test_pushed_check_off_for_local_merge_workflows(project, tmp_path):
    git(project, "worktree", "add", "-q", ".worktrees/bd-BD-13", "-b", "bd-BD-13")
    (tmp_path / "bd-state" / "issues.json").write_text(json.dumps({"BD-13": {"status": "inreview"}}))
    message = "BEAD BD-13 COMPLETE\nBranch: bd-BD-13"
    assert "- pushed: branch bd-BD-13 has no upstream" in stop(project, tmp_path, message=message)["reason"]
    configure(project, checks={"pushed": False})
    assert stop(project, tmp_path, message=message, agent_id="agent-2") is None


@pytest.mark.parametrize("check", ["worktree", "bead-status"])
def test_each_check_can_be_switched_off_by_name(project, tmp_path, check):
    set_status(tmp_path, "open")
    (project / ".worktrees" / "bd-BD-12" / "feature.txt").write_text("changed\n")
    configure(project, checks={check: False})
    reason = stop(project, tmp_path)["reason"]
    other = {"worktree": "bead-status", "bead-status": "worktree"}[check]
    assert f"- {check}:" not in reason and f"- {other}" in reason


def test_report_check_off_lets_a_supervisor_without_report_finish(project, tmp_path):
    configure(project, checks={"report": False})
    assert stop(project, tmp_path, message="I think I am done.") is None
    set_status(tmp_path, "open")  # a claim without Worktree/Branch lines is still checked, at .worktrees/bd-<ID>
    assert "- bead-status: BD-12 is 'open'" in stop(project, tmp_path, message="BEAD BD-12 COMPLETE")["reason"]


def test_cursor_running_both_registrations_blocks_a_subagent_max_blocks_times(project, tmp_path):
    """Cursor runs .cursor/hooks.json's subagentStop and, by its third-party import, .claude/settings.json's
    SubagentStop: one of them decides. Before, each counted a block, so a subagent was let go after one follow-up
    instead of max_blocks (2), and its unfinished bead passed."""
    from helpers import cursor_runs

    subprocess.run([str(ROOT / "install.sh"), "--no-venv", "--no-self-check", str(project)], check=True,
                   capture_output=True)
    set_status(tmp_path, "open")
    env = {"PATH": FAKE_BD + os.pathsep + os.environ["PATH"], "FAKE_BD_DIR": str(tmp_path / "bd-state")}
    answers = []
    for attempt in range(3):
        stop = {"conversation_id": "conv-1", "generation_id": "gen-1", "cursor_version": "3.9.16",
                "hook_event_name": "subagentStop", "workspace_roots": [str(project)], "subagent_type": "supervisor",
                "status": "completed", "summary": REPORT, "loop_count": attempt, "agent_transcript_path": None}
        runs = cursor_runs(project, stop, env=env)
        assert sorted(who for who, _ in runs) == ["claude", "cursor"]  # both registrations fire
        assert all(proc.returncode == 0 for _, proc in runs)
        answers.append([json.loads(proc.stdout) for _, proc in runs if proc.stdout])
    follow_ups = [[set(a) for a in attempt] for attempt in answers]
    assert follow_ups == [[{"followup_message"}], [{"followup_message"}], []]  # once per attempt, twice, then let go
    assert "bead-status: BD-12 is 'open'" in answers[1][0]["followup_message"]


def cursor_stop(project, **fields):
    """A Cursor subagentStop of a completed supervisor, run as .cursor/hooks.json registers it; its answer or None."""
    payload = {"conversation_id": "conv-1", "generation_id": "gen-1", "cursor_version": "3.9.16",
               "hook_event_name": "subagentStop", "workspace_roots": [str(project)], "subagent_type": "supervisor",
               "status": "completed", "task": "BD-12", "description": "finish BD-12", "duration_ms": 900,
               "message_count": 4, "tool_call_count": 3, "loop_count": 0, **fields}
    env = {"PATH": FAKE_BD + os.pathsep + os.environ["PATH"], "FAKE_BD_DIR": str(project.parent / "bd-state")}
    proc = run_hook("validate_completion", payload, project, env=env, args=["--cursor"])
    assert proc.returncode == 0
    return json.loads(proc.stdout) if proc.stdout else None


def test_cursor_subagent_without_a_summary_is_judged_from_its_transcript(project):
    """Cursor may leave `summary` out of subagentStop (seen on 3.9.16): the report is read from the subagent's
    transcript (lines `{"role": "assistant", "message": {"content": [...]}}`). Before, a finished supervisor was
    sent back with "the final message has no report line" until max_blocks ran out."""
    transcript = project.parent / "sub.jsonl"
    lines = [{"role": "user", "message": {"content": [{"type": "text", "text": "finish BD-12"}]}},
             {"role": "assistant", "message": {"content": [{"type": "text", "text": REPORT}]}}]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert cursor_stop(project, agent_transcript_path=str(transcript)) is None
    set_status(project.parent, "open")  # the same report on an unfinished bead is still held
    held = cursor_stop(project, agent_transcript_path=str(transcript), conversation_id="conv-2")
    assert "bead-status: BD-12 is 'open'" in held["followup_message"]


def test_parallel_cursor_subagents_of_one_type_each_get_their_own_follow_ups(project):
    """Cursor's subagentStop names no subagent (no id; a transcript path only when transcripts are on): two
    supervisors of one conversation running side by side were one agent to the loop guard, so the first was let go
    after a single follow-up, its unfinished bead passed. Their tasks tell them apart."""
    set_status(project.parent, "open")
    answers = []
    for attempt in range(3):
        for task in ("BD-12: the API half", "BD-12: the UI half"):
            answers.append(cursor_stop(project, task=task, summary=REPORT, loop_count=attempt,
                                       agent_transcript_path=None))
    assert [answer is not None and "followup_message" in answer for answer in answers] == [True] * 4 + [False] * 2


def test_cursor_subagent_whose_final_message_cannot_be_read_is_let_go(project):
    """No summary and no transcript: the gate cannot know what the subagent said, so it does not claim that the
    message has no report line (it blocked every such supervisor before); errors.log says why it let it go."""
    assert cursor_stop(project, agent_transcript_path=None) is None
    assert "no final message" in error_log(project)


def test_the_memory_folder_does_not_count_as_uncommitted_work(project, tmp_path):
    """A supervisor working in the main checkout: its report's LEARNED line is captured (into the inbox) before
    the clean check, and an earlier capture left one too. Before, the gate blocked on its own inbox file."""
    (tmp_path / "bd-state" / "issues.json").write_text(json.dumps({"BD-7": {"status": "inreview", "title": "x"}}))
    # another bead's worktree lives in .worktrees/, untracked here: no work of this bead either (before, the fix
    # offered was `git add -A`, which commits it as an embedded repository)
    git(project, "checkout", "-q", "-b", "feature-7")
    git(project, "push", "-q", "-u", "origin", "feature-7")
    inbox = project / ".beads" / "memory" / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / "1-earlier.jsonl").write_text('{"key": "learned-x"}\n')
    report = ("Done.\nLEARNED: the nightly ledger export must finish before 03:00\n\n"
              "BEAD BD-7 COMPLETE\nBranch: feature-7")
    assert stop(project, tmp_path, message=report, agent_type="supervisor") is None
    assert len(list(inbox.iterdir())) == 2  # the reply's LEARNED line was captured
    (project / "src.txt").write_text("work not committed\n")  # real work still counts
    out = stop(project, tmp_path, message=report, agent_type="supervisor", agent_id="agent-2")
    assert out["decision"] == "block" and "1 uncommitted change(s)" in out["reason"] and "src.txt" in out["reason"]


def test_a_memory_folder_named_by_memory_hooks_dir_is_no_uncommitted_work_either(project, tmp_path):
    """MEMORY_HOOKS_DIR inside the repository (`notes/memory`): the gate's own capture lands there, not in
    .beads/memory; before, it blocked on it like the default folder had."""
    (tmp_path / "bd-state" / "issues.json").write_text(json.dumps({"BD-7": {"status": "inreview", "title": "x"}}))
    (project / ".git" / "info").mkdir(exist_ok=True)
    with open(project / ".git" / "info" / "exclude", "a") as ignore:
        ignore.write(".worktrees/\n")
    git(project, "checkout", "-q", "-b", "feature-7")
    git(project, "push", "-q", "-u", "origin", "feature-7")
    report = "Done.\nLEARNED: the ledger export must finish before 03:00\n\nBEAD BD-7 COMPLETE\nBranch: feature-7"
    memory = project / "notes" / "memory"
    assert stop(project, tmp_path, message=report, agent_type="supervisor",
                extra_env={"MEMORY_HOOKS_DIR": str(memory)}) is None
    assert any((memory / "inbox").iterdir())  # captured there
