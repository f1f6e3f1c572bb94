"""The knowledge files' merge driver (memory.store.merge, bin/memory-merge) and its registration, with real git."""
import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import (
    INSTALL,
    ROOT,
    bash_payload,
    clean_env,
    clone,
    copy_tree,
    git,
    installed_clone_of_a_new_remote,
    run_hook,
)
from memory.store import gitmerge, inbox, merge, rotation, store

DRIVER = str(ROOT / "bin" / "memory-merge")


def line(key, ts, cid=None, **kw):
    obj = {"key": key, "type": "learned", "content": f"{key} text", "source": "o", "tags": [], "ts": ts, "bead": "B"}
    if cid:
        obj["capture_id"] = cid
    obj.update(kw)
    return json.dumps(obj).encode()


def line_obj(key, ts):
    return json.loads(line(key, ts, f"c-{key}"))


def merged(base, ours, theirs):
    return merge.merge_lines(merge.parse(b"\n".join(base)), merge.parse(b"\n".join(ours)),
                             merge.parse(b"\n".join(theirs)))


def test_union_in_ts_order_each_line_once_and_the_same_both_ways():
    base = [line("a", 1, "c1")]
    ours = base + [line("b", 3, "c2"), line("d", 5, "c4")]
    theirs = base + [line("c", 2, "c3"), b"not json at all", line("b", 3, "c2")]
    result = merged(base, ours, theirs)
    assert result == [line("a", 1, "c1"), line("c", 2, "c3"), b"not json at all", line("b", 3, "c2"),
                      line("d", 5, "c4")]
    assert merged(base, theirs, ours) == result  # whichever side merges


def test_lines_one_side_rotated_away_are_not_brought_back():
    base = [line(f"k{i}", i, f"c{i}") for i in range(6)]
    ours = base[3:] + [line("new-ours", 10, "n1")]  # rotation moved k0..k2 to the archive
    theirs = base + [line("new-theirs", 11, "n2")]
    assert merged(base, ours, theirs) == base[3:] + [line("new-ours", 10, "n1"), line("new-theirs", 11, "n2")]


def test_lines_of_the_original_bash_hooks_have_no_capture_id():
    base = [b'{"key":"learned-x","type":"learned","content":"x","source":"o","tags":["learned"],"ts":1,"bead":"B"}']
    same_other_spacing = json.dumps(json.loads(base[0])).encode()  # ", " and ": " as Python writes them
    ours = base + [line("y", 2)]
    theirs = [same_other_spacing, line("z", 3)]  # the same entry, re-serialized
    assert merged(base, ours, theirs) == [base[0], line("y", 2), line("z", 3)]


def test_a_capture_with_several_insights_keeps_them_all():
    both = [line("a", 1, "same-call"), line("b", 1, "same-call")]
    assert merged([], both, both) == both


def test_a_line_one_side_rewrote_in_place_keeps_the_rewrite_whichever_side_merges():
    """`recall.sh --redact` keeps a line's identity (capture_id, key, type) and changes its bytes: the other side,
    still holding the base's bytes, must not bring the secret back (issue: the adversarial review of the writers)."""
    leaked = line("vault-notes", 1, "c1", content="the unseal phrase: correcthorsebatterystaple")
    redacted = line("vault-notes", 1, "c1", content="the unseal phrase: <redacted:manual>", redacted=["manual"])
    other = line("other", 2, "c2")
    assert merged([leaked], [leaked, other], [redacted]) == [redacted, other]
    assert merged([leaked], [redacted], [leaked, other]) == [redacted, other]
    assert merged([leaked], [leaked], [leaked, other]) == [leaked, other]  # nothing rewritten: as before


def test_the_driver_as_git_runs_it(tmp_path):
    for name, lines in (("O", []), ("A", [line("a", 1)]), ("B", [line("b", 2)])):
        (tmp_path / name).write_bytes(b"".join(x + b"\n" for x in lines))
    proc = subprocess.run([DRIVER, str(tmp_path / "O"), str(tmp_path / "A"), str(tmp_path / "B"), "x.jsonl"],
                          capture_output=True, env=clean_env())
    assert proc.returncode == 0 and (tmp_path / "A").read_bytes() == line("a", 1) + b"\n" + line("b", 2) + b"\n"
    assert subprocess.run([DRIVER], capture_output=True, env=clean_env()).returncode == 2


def test_the_driver_names_a_key_both_sides_wrote_a_different_insight_under(tmp_path):
    """Latest per key: after the merge one of the two is out of view, so the person merging is told (stderr,
    which git shows); the same text on both sides, or a key only one side wrote, says nothing."""
    base = [line("learned-shared", 1)]
    ours = base + [line("learned-e2e", 2, "c-1", content="before the e2e suite always export TZ=UTC"),
                   line("learned-same", 3, "c-2", content="same words"), line("learned-mine", 4, "c-3")]
    theirs = base + [line("learned-e2e", 5, "c-4", content="before the e2e suite always start the SMTP fake"),
                     line("learned-same", 6, "c-5", content="same  words")]
    for name, lines in (("O", base), ("A", ours), ("B", theirs)):
        (tmp_path / name).write_bytes(b"".join(x + b"\n" for x in lines))
    proc = subprocess.run([DRIVER, str(tmp_path / "O"), str(tmp_path / "A"), str(tmp_path / "B"), "x.jsonl"],
                          capture_output=True, text=True, env=clean_env())
    assert proc.returncode == 0 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "memory-merge: both sides wrote a different insight under `learned-e2e`: the newer is shown, the other is "
        "kept out of view (recall.sh learned-e2e --history); to keep both, add one again with other opening words"]
    assert (tmp_path / "A").read_bytes().count(b"learned-e2e") == 2  # both kept


ops = st.lists(st.tuples(st.sampled_from(["left", "right"]), st.sampled_from(["capture", "rotate"])), max_size=40)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops)
def test_random_captures_and_rotations_on_two_branches_merge_to_the_same_entries_both_ways(history):
    """Model: each branch has an active list and an archive list; a rotation moves its oldest half."""
    base_active = [line(f"base{i}", i, f"b{i}") for i in range(6)]
    sides = {s: {"active": list(base_active), "archive": []} for s in ("left", "right")}
    for n, (side, op) in enumerate(history):
        files = sides[side]
        if op == "capture":
            files["active"].append(line(f"{side}{n}", 100 + n, f"{side}-{n}"))
        else:
            half = len(files["active"]) // 2
            files["archive"] += files["active"][:half]
            files["active"] = files["active"][half:]
    results = []
    for ours, theirs in (("left", "right"), ("right", "left")):
        active = merged(base_active, sides[ours]["active"], sides[theirs]["active"])
        archive = merged([], sides[ours]["archive"], sides[theirs]["archive"])
        results.append((active, archive))
        everything = active + archive
        assert len(everything) == len(set(everything))  # nothing in both files, nothing twice
        expected = set(base_active) | {x for s in sides.values() for x in s["active"] + s["archive"]}
        assert set(everything) == expected  # nothing lost
    assert results[0] == results[1]


# --- real git: two clones of one remote -------------------------------------------------------------------

def capture(repo, *texts):
    """The capture hook on one shell command of `bd comment` calls, one per text (a chain with &&)."""
    command = " && ".join(f'bd comment BD-1 "LEARNED: {text}"' for text in texts)
    proc = run_hook("memory_capture", bash_payload(command, repo), repo)
    assert proc.returncode == 0


def live(repo):
    d = str(repo / ".beads" / "memory")
    return {e["key"]: e["content"] for e in store.latest(store.load(d, include_archive=True).entries)}


def all_lines(repo):
    """Every line of the archive, knowledge.jsonl and the inbox (memory.store.inbox)."""
    memory = repo / ".beads" / "memory"
    paths = [memory / store.ARCHIVE, memory / store.ACTIVE]
    paths += [memory / "inbox" / name for name in inbox.names(str(memory))]
    return [x for path in paths if path.exists() for x in path.read_text().splitlines()]


def project_with_remote(tmp_path, driver=True, template=None):
    """A repo set up by install.sh (attributes, .gitignore, driver config), pushed to a bare remote, with
    990 entries so that the next captures rotate. With `template` (the folder an earlier call made with
    driver=None, copied by git's paths): that copy, then the driver's configuration."""
    if template is not None:
        copy_tree(template, tmp_path)
        a, b = tmp_path / "a", tmp_path / "b"
        configure_driver(a, b, driver)
        return tmp_path / "remote.git", a, b
    remote, a = installed_clone_of_a_new_remote(tmp_path)
    memory = a / ".beads" / "memory"
    memory.joinpath(store.ACTIVE).write_text("".join(line(f"seed{i}", i, f"s{i}").decode() + "\n"
                                                     for i in range(990)))
    git(a, "add", "-A")
    git(a, "commit", "-qm", "installed")
    git(a, "push", "-q", "origin", "main")
    b = clone(remote, tmp_path / "b")
    configure_driver(a, b, driver)
    return remote, a, b


def configure_driver(a, b, driver) -> None:
    """driver True: b runs --setup-git; False: a drops the driver install.sh configured; None: as cloned."""
    if driver:
        assert gitmerge.configure(str(b))  # what install.sh / recall.sh --setup-git do in a clone
    elif driver is not None:
        gitmerge.unconfigure(str(a))


@pytest.fixture(scope="module")
def remote_template(tmp_path_factory):
    """One installed project with 990 entries, its remote and a clone (no driver configured yet), made once
    for the module: each test copies it (helpers.copy_tree)."""
    path = tmp_path_factory.mktemp("remote-template")
    project_with_remote(path, driver=None)
    return path


def diverge(a, b):
    """a captures 20 and folds them (rotating), b captures 3 and folds them; a pushes. Both sides change
    knowledge.jsonl: the driver merges it."""
    capture(a, *(f"left insight number {i}" for i in range(20)))
    rotation.compact(str(a / ".beads" / "memory"))  # memory-doctor --compact
    assert (a / ".beads" / "memory" / store.ARCHIVE).exists()
    git(a, "add", "-A")
    git(a, "commit", "-qm", "a")
    git(a, "push", "-q", "origin", "main")
    capture(b, *(f"right insight number {i}" for i in range(3)))
    rotation.compact(str(b / ".beads" / "memory"))
    git(b, "add", "-A")
    git(b, "commit", "-qm", "b")


def check_clean(a, b):
    lines = all_lines(b)
    assert len(lines) == len(set(lines)) == 990 + 20 + 3
    assert not any("<<<<<<<" in x for x in lines)
    git(a, "pull", "-q", "--no-rebase", "origin", "main")
    assert live(a) == live(b) and len(live(b)) == 1013
    doctor = subprocess.run([str(ROOT / "bin" / "memory-doctor")], cwd=b, capture_output=True, text=True)
    assert "malformed" in doctor.stdout and " 0 malformed" in doctor.stdout and "FAIL" not in doctor.stdout


def test_pull_merge_with_the_driver(tmp_path, remote_template):
    _, a, b = project_with_remote(tmp_path, template=remote_template)
    diverge(a, b)
    git(b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    git(b, "push", "-q", "origin", "main")
    check_clean(a, b)


def test_rebase_and_cherry_pick_with_the_driver(tmp_path, remote_template):
    _, a, b = project_with_remote(tmp_path, template=remote_template)
    diverge(a, b)
    git(b, "pull", "-q", "--rebase", "origin", "main")
    git(b, "push", "-q", "origin", "main")
    check_clean(a, b)
    git(b, "checkout", "-qb", "side", "HEAD~1")
    capture(b, "only on the side branch")
    git(b, "add", "-A")
    git(b, "commit", "-qm", "side")
    git(b, "checkout", "-q", "main")
    git(b, "cherry-pick", "side")
    assert "learned-only-on-the-side-branch" in live(b) and len(all_lines(b)) == len(set(all_lines(b)))


def test_without_the_driver_configured_git_merges_as_text_and_conflicts(tmp_path, remote_template):
    """The attribute alone (a clone that never ran --setup-git): git uses its built-in text merge."""
    _, a, b = project_with_remote(tmp_path, driver=False, template=remote_template)
    diverge(a, b)
    proc = subprocess.run(["git", "pull", "-q", "--no-rebase", "--no-edit", "origin", "main"], cwd=b,
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "CONFLICT" in proc.stdout + proc.stderr
    git(b, "merge", "--abort")
    hint = json.loads(run_hook("session_start", {"hook_event_name": "SessionStart", "source": "startup",
                                                 "session_id": "s", "cwd": str(b)}, b).stdout)
    assert "recall.sh --setup-git" in hint["systemMessage"]  # for the person, not the model
    assert "memory-hooks: memory-hooks:" not in hint["systemMessage"]  # the hint names us once
    assert "setup-git" not in hint["hookSpecificOutput"]["additionalContext"]
    proc = subprocess.run([str(b / ".beads" / "memory" / "recall.sh"), "--setup-git"], cwd=b, capture_output=True,
                          text=True, env=clean_env())
    assert proc.returncode == 0 and gitmerge.configured(str(b))
    git(b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    git(b, "push", "-q", "origin", "main")
    check_clean(a, b)
    again = json.loads(run_hook("session_start", {"hook_event_name": "SessionStart", "source": "startup",
                                                  "session_id": "s", "cwd": str(b)}, b).stdout)
    assert "--setup-git" not in again["hookSpecificOutput"]["additionalContext"]


def test_a_merge_stopped_on_a_text_conflict_is_named_by_the_doctor_and_finished_by_setup_git(
        tmp_path, remote_template):
    """A teammate who never ran --setup-git pulls and git stops on the knowledge files: the doctor says so and
    names the one command; --setup-git merges them again as data (the driver's answer) and stages them."""
    _, a, b = project_with_remote(tmp_path, driver=False, template=remote_template)
    doctor = subprocess.run([str(ROOT / "bin" / "memory-doctor")], cwd=b, capture_output=True, text=True)
    assert "WARN  merge driver" in doctor.stdout and "recall.sh --setup-git" in doctor.stdout
    diverge(a, b)
    proc = subprocess.run(["git", "pull", "-q", "--no-rebase", "--no-edit", "origin", "main"], cwd=b,
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "CONFLICT" in proc.stdout + proc.stderr
    doctor = subprocess.run([str(ROOT / "bin" / "memory-doctor")], cwd=b, capture_output=True, text=True)
    assert doctor.returncode == 2
    assert "FAIL  merge" in doctor.stdout and ".beads/memory/knowledge.jsonl" in doctor.stdout
    proc = subprocess.run([str(b / ".beads" / "memory" / "recall.sh"), "--setup-git"], cwd=b / ".beads",
                          capture_output=True, text=True, env=clean_env())
    assert proc.returncode == 0 and "merged .beads/memory/knowledge.jsonl again" in proc.stdout, proc.stderr
    assert git(b, "ls-files", "-u") == ""  # staged: nothing left unmerged
    git(b, "commit", "-q", "--no-edit")
    git(b, "push", "-q", "origin", "main")
    check_clean(a, b)


def test_worktree_capture_reaches_a_teammate(tmp_path, remote_template):
    """Supervisor in .worktrees/bd-12 captures → main checkout commits → teammate pulls → their next session."""
    _, a, b = project_with_remote(tmp_path, template=remote_template)
    git(a, "worktree", "add", "-q", ".worktrees/bd-12", "-b", "bd-12")
    wt = a / ".worktrees" / "bd-12"
    proc = run_hook("memory_capture", bash_payload('bd comment bd-12 "LEARNED: the worktree insight"', wt), wt,
                    env={"CLAUDE_PROJECT_DIR": str(wt)})
    assert proc.returncode == 0
    git(a, "add", ".beads/memory")
    git(a, "commit", "-qm", "knowledge")
    git(a, "push", "-q", "origin", "main")
    git(b, "pull", "-q", "--no-rebase", "origin", "main")
    out = json.loads(run_hook("session_start", {"hook_event_name": "SessionStart", "source": "startup",
                                                "session_id": "t", "cwd": str(b)}, b).stdout)
    assert "the worktree insight" in out["hookSpecificOutput"]["additionalContext"]


def test_one_insight_two_teammates_recorded_under_two_keys_is_shown_once_after_the_merge(tmp_path,
                                                                                      remote_template):
    """Each clone refuses a second copy of a text it already holds, but two teammates who record the same
    warning before they pull each hold one copy, under different keys: after the merge, session start, the
    prompt hook and recall.sh show it once."""
    _, a, b = project_with_remote(tmp_path, template=remote_template)

    def add(repo, text):
        proc = subprocess.run([str(repo / ".beads" / "memory" / "recall.sh"), "--add", text], cwd=repo,
                              capture_output=True, text=True, env=clean_env())
        assert proc.returncode == 0 and "captured 1 insight" in proc.stdout, proc.stdout + proc.stderr

    add(a, "WARNING: the nightly export job holds a table lock on orders for ten minutes")
    git(a, "add", ".beads/memory")
    git(a, "commit", "-qm", "a")
    git(a, "push", "-q", "origin", "main")
    add(b, "WARNING[orders-lock]: The nightly export job holds a table lock on `orders` for ten minutes.")
    git(b, "add", ".beads/memory")
    git(b, "commit", "-qm", "b")
    git(b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    assert sum("nightly export job" in x for x in all_lines(b)) == 2  # both lines kept: nothing is lost

    def shown(out):
        return out.lower().count("nightly export job")

    start = json.loads(run_hook("session_start", {"hook_event_name": "SessionStart", "source": "startup",
                                                  "session_id": "s", "cwd": str(b)}, b).stdout)
    assert shown(start["hookSpecificOutput"]["additionalContext"]) == 1
    prompt = json.loads(run_hook("prompt_recall", {"hook_event_name": "UserPromptSubmit", "session_id": "p",
                                                   "cwd": str(b), "prompt": "does the nightly export job lock "
                                                   "the orders table?"}, b).stdout)
    assert shown(prompt["hookSpecificOutput"]["additionalContext"]) == 1
    for query in (["nightly export job"], ["nightly"]):  # ranked, and one word (the keyword index)
        proc = subprocess.run([str(b / ".beads" / "memory" / "recall.sh"), *query], cwd=b, capture_output=True,
                              text=True, env=clean_env())
        assert shown(proc.stdout) == 1, proc.stdout


def test_install_writes_attributes_and_config_and_uninstall_restores(repo):
    (repo / ".gitattributes").write_text("*.png binary\n")
    subprocess.run([INSTALL, "--no-venv", "--no-self-check", str(repo)], check=True, capture_output=True,
                   env=clean_env())
    text = (repo / ".gitattributes").read_text()
    assert text.startswith("*.png binary\n") and "/.beads/memory/knowledge.jsonl merge=memory-hooks" in text
    assert "/.beads/memory/knowledge.archive.jsonl merge=memory-hooks" in text
    assert gitmerge.configured(str(repo))
    subprocess.run([INSTALL, "--no-venv", "--no-self-check", str(repo)], check=True, capture_output=True,
                   env=clean_env())
    assert (repo / ".gitattributes").read_text() == text  # idempotent
    subprocess.run([INSTALL, "--uninstall", str(repo)], check=True, capture_output=True, env=clean_env())
    assert (repo / ".gitattributes").read_text() == "*.png binary\n" and not gitmerge.configured(str(repo))


def test_attributes_a_teammate_committed_stay_on_uninstall(repo):
    from memory.install import plan

    block = "\n".join([gitmerge.ATTRIBUTES_BEGIN] + plan.gitattributes_lines() + [gitmerge.ATTRIBUTES_END]) + "\n"
    (repo / ".gitattributes").write_text(block)
    subprocess.run([INSTALL, "--no-venv", "--no-self-check", str(repo)], check=True, capture_output=True,
                   env=clean_env())
    subprocess.run([INSTALL, "--uninstall", str(repo)], check=True, capture_output=True, env=clean_env())
    assert (repo / ".gitattributes").read_text() == block


if sys.platform == "win32":  # pragma: no cover
    del test_the_driver_as_git_runs_it


def test_a_merge_past_the_limit_is_rotated_by_the_fold_not_by_the_next_session(tmp_path, remote_template):
    """Each side grows 600 lines to 850 (no rotation); the union passes 1,000; session start leaves the
    committed files alone (a rotation there would dirty the tree and block the next checkout); the fold
    a person asks for (memory-doctor --compact) rotates."""
    _, a, b = project_with_remote(tmp_path, template=remote_template)
    (a / ".beads" / "memory" / store.ACTIVE).write_text("".join(line(f"seed{i}", i, f"s{i}").decode() + "\n"
                                                                for i in range(600)))  # 600 seeds, not 990
    git(a, "commit", "-qam", "600 seeds")
    git(a, "push", "-q", "origin", "main")
    git(b, "pull", "-q", "--ff-only", "origin", "main")
    for side in (a, b):
        store.append(str(side / ".beads" / "memory"), [line_obj(f"{side.name}{i}", 1000 + i) for i in range(250)])
        rotation.compact(str(side / ".beads" / "memory"))
        git(side, "commit", "-qam", side.name)
    git(a, "push", "-q", "origin", "main")
    git(b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    active = b / ".beads" / "memory" / store.ACTIVE
    before = set(all_lines(b))
    assert len(active.read_text().splitlines()) > rotation.ROTATE_ABOVE  # the driver leaves rotation to the store
    run_hook("session_start", {"hook_event_name": "SessionStart", "source": "startup", "session_id": "s",
                               "cwd": str(b)}, b)
    assert git(b, "status", "--porcelain", "--untracked-files=no") == ""
    subprocess.run([str(ROOT / "bin" / "memory-doctor"), "--compact"], cwd=b, capture_output=True, env=clean_env())
    assert len(active.read_text().splitlines()) <= rotation.ROTATE_ABOVE and set(all_lines(b)) == before


def test_a_redaction_survives_merging_a_branch_made_before_it(tmp_path):
    """A secret compacted into knowledge.jsonl and committed; a branch; `recall.sh --redact` on main; a capture
    on the branch. Merging either way (the driver install.sh configured) keeps the line redacted."""
    from helpers import installed_project

    secret = "correcthorsebatterystaple"  # letters only: a known miss of the redactor, so it was stored
    repo = installed_project(tmp_path / "p")
    memory = repo / ".beads" / "memory"
    run_hook("memory_capture", bash_payload(f'bd comment BD-1 "LEARNED[vault-notes]: the unseal phrase: {secret}"',
                                            repo), repo)
    rotation.compact(str(memory))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "leak")
    git(repo, "branch", "feature")
    proc = subprocess.run([str(memory / "recall.sh"), "--redact", "learned-vault-notes", secret], cwd=repo,
                          capture_output=True, text=True, env=clean_env())
    assert proc.returncode == 0, proc.stderr
    git(repo, "commit", "-qam", "redact")
    git(repo, "checkout", "-q", "feature")
    capture(repo, "the feature branch caches the vault client")
    rotation.compact(str(memory))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "feature")
    git(repo, "branch", "feature-copy")
    git(repo, "merge", "-q", "--no-edit", "main")  # the branch merges main
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-edit", "feature-copy")  # main merges the branch
    for branch in ("feature", "main"):
        git(repo, "checkout", "-q", branch)
        tracked = "".join((repo / name).read_text() for name in git(repo, "ls-files", ".beads").split("\n"))
        assert secret not in tracked, branch
        assert live(repo)["learned-vault-notes"] == "the unseal phrase: <redacted:manual>"


def test_a_fifo_where_gitattributes_or_a_merged_file_belongs_never_hangs(tmp_path):
    """Session start reads .gitattributes (is the merge driver named?) and git's merge driver reads the three
    versions: a FIFO at any of them made open() wait for a writer forever. Now .gitattributes is unreadable (no
    driver hint) and the driver fails at once (git then leaves the file conflicted, as for any driver failure)."""
    import os

    from helpers import fixture_payload, make_repo
    from memory.store import entry

    repo = make_repo(tmp_path / "project")
    store.append(str(repo / ".beads" / "memory"), [entry.build("LEARNED: attributes never hang us.", "BD-1", "o")])
    os.mkfifo(repo / ".gitattributes")
    payload = dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(repo))
    proc = run_hook("session_start", payload, repo, timeout=20)
    assert proc.returncode == 0 and b"attributes never hang us" in proc.stdout, proc.stderr
    os.mkfifo(tmp_path / "O")
    (tmp_path / "A").write_bytes(line("a", 1) + b"\n")
    (tmp_path / "B").write_bytes(line("b", 2) + b"\n")
    proc = subprocess.run([DRIVER, str(tmp_path / "O"), str(tmp_path / "A"), str(tmp_path / "B"), "x.jsonl"],
                          capture_output=True, env=clean_env(), timeout=20)
    assert proc.returncode != 0 and (tmp_path / "A").read_bytes() == line("a", 1) + b"\n"
