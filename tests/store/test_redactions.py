"""Recorded redactions (memory.store.redactions): `recall.sh --redact` in one clone reaches a clone that had
compacted the line away from the inbox fragment the redaction rewrote. Real git, two clones of one bare remote,
the scripts as a user runs them."""
import json
import subprocess

import pytest

from helpers import INSTALL, ROOT, bash_payload, clean_env, git, run_hook
from memory.store import entry, inbox, redactions, store

SECRET = "correcthorsebatterystaple"  # letters only: a known miss of the automatic redaction, so it is stored
RECALL = ".beads/memory/recall.sh"
DOCTOR = str(ROOT / "bin" / "memory-doctor")


def clone(remote, path):
    subprocess.run(["git", "clone", "-q", str(remote), str(path)], check=True, capture_output=True)
    return path


def run(repo, *argv):
    return subprocess.run([str(repo / argv[0]), *argv[1:]] if argv[0] == RECALL else list(argv), cwd=repo,
                          capture_output=True, text=True, env=clean_env())


def tracked_text(repo):
    """Every git-tracked file of the memory folder, as text (what the next commit would hold)."""
    return "".join((repo / name).read_text(errors="replace") for name in git(repo, "ls-files", ".beads").split("\n")
                   if (repo / name).is_file())


def pushed_text(repo):
    """Every file of origin/main's tree."""
    names = git(repo, "ls-tree", "-r", "--name-only", "origin/main").split("\n")
    return "".join(git(repo, "show", f"origin/main:{name}") for name in names)


def session_start(repo):
    proc = run_hook("session_start", {"hook_event_name": "SessionStart", "source": "startup", "session_id": "s",
                                      "cwd": str(repo)}, repo)
    assert proc.returncode == 0
    return proc


@pytest.fixture(scope="module")
def two_clones_template(tmp_path_factory):
    """A project installed by install.sh in clone a, pushed to a bare remote; clone b ran --setup-git."""
    path = tmp_path_factory.mktemp("two-clones")
    remote = path / "remote.git"
    git(path, "init", "-q", "--bare", "-b", "main", str(remote))
    a = clone(remote, path / "a")
    git(a, "commit", "-q", "--allow-empty", "-m", "init")
    subprocess.run([INSTALL, "--no-venv", "--no-self-check", str(a)], check=True, capture_output=True,
                   env=clean_env())
    git(a, "add", "-A")
    git(a, "commit", "-qm", "installed")
    git(a, "push", "-q", "origin", "main")
    b = clone(remote, path / "b")
    assert run(b, RECALL, "--setup-git").returncode == 0
    return path


def leaked_then_compacted_elsewhere(tmp_path, template, insight, key):
    """a captures `insight` (an inbox fragment) and pushes; b pulls and compacts it into knowledge.jsonl (and
    commits); a runs `recall.sh --redact KEY SECRET` and pushes; b pulls: git stops on the fragment."""
    from helpers import copy_tree

    copy_tree(template, tmp_path)
    a, b = tmp_path / "a", tmp_path / "b"
    proc = run_hook("memory_capture", bash_payload(f'bd comment BD-1 "{insight}"', a), a)
    assert proc.returncode == 0
    assert SECRET in "".join(p.read_text() for p in (a / ".beads/memory/inbox").iterdir())
    git(a, "add", "-A")
    git(a, "commit", "-qm", "a learned")
    git(a, "push", "-q", "origin", "main")
    git(b, "pull", "-q", "--no-rebase", "origin", "main")
    assert run(b, DOCTOR, "--compact").returncode in (0, 1)
    assert not inbox.names(str(b / ".beads/memory")) and SECRET in (b / ".beads/memory/knowledge.jsonl").read_text()
    git(b, "add", "-A")
    git(b, "commit", "-qm", "b compacted")
    redact = run(a, RECALL, "--redact", key, SECRET)
    assert redact.returncode == 0, redact.stderr
    git(a, "add", "-A")
    git(a, "commit", "-qm", "a redacted")
    git(a, "push", "-q", "origin", "main")
    pull = subprocess.run(["git", "pull", "--no-rebase", "--no-edit", "origin", "main"], cwd=b, capture_output=True,
                          text=True)
    assert pull.returncode != 0 and "modify/delete" in pull.stdout + pull.stderr  # what git reports
    return a, b


INSIGHTS = [("LEARNED[vault-notes]: the unseal phrase is " + SECRET, "learned-vault-notes"),  # an explicit key
            ("LEARNED: the unseal phrase " + SECRET + " opens vault", None)]  # an automatic key: renamed


@pytest.mark.parametrize("insight,key", INSIGHTS)
@pytest.mark.parametrize("resolution", ["deleted", "theirs"])
def test_a_redaction_reaches_a_clone_that_had_compacted_the_fragment(tmp_path, two_clones_template, insight, key,
                                                                      resolution):
    """However b resolves the modify/delete, its next session start redacts its knowledge.jsonl: the commit it
    pushes holds no secret, and a pulls nothing back."""
    key = key or entry.make_key("learned", insight.split(": ", 1)[1])
    a, b = leaked_then_compacted_elsewhere(tmp_path, two_clones_template, insight, key)
    fragment = git(b, "diff", "--name-only", "--diff-filter=U")
    if resolution == "deleted":
        git(b, "rm", "-q", fragment)  # keep b's fold: the fragment stays deleted
    else:
        git(b, "add", fragment)  # keep a's redacted fragment beside b's fold
    git(b, "commit", "-q", "--no-edit")
    assert SECRET in tracked_text(b)  # what main left: the secret live in b's knowledge.jsonl

    doctor = run(b, DOCTOR)
    assert doctor.returncode == 2 and "FAIL  redactions" in doctor.stdout and "memory-doctor --repair" in doctor.stdout
    session_start(b)
    assert SECRET not in tracked_text(b) and SECRET.lower() not in tracked_text(b).lower()
    assert "FAIL" not in run(b, DOCTOR).stdout
    live = {e["key"]: e["content"] for e in store.latest(store.load(str(b / ".beads/memory")).entries)}
    unseal = [c for c in live.values() if "unseal" in c]
    assert len(unseal) == 1 and "<redacted:manual>" in unseal[0] and all(SECRET not in k for k in live)
    git(b, "commit", "-qam", "b after the session")
    git(b, "push", "-q", "origin", "main")
    git(a, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    assert SECRET not in pushed_text(a) and SECRET not in tracked_text(a)
    assert git(a, "status", "--porcelain") == ""


# --- the records and their application, on memory folders (the --redact of clone a, applied in clone b) -------

def seeded(folder, lines):
    folder.mkdir(parents=True)
    (folder / store.ACTIVE).write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder


def capture_lines():
    """One capture with two insights (one capture_id), a neighbour, and a pin of the leaking key."""
    one = dict(entry.build(f"the unseal phrase is {SECRET} on staging", "BD-1", "orchestrator", ts=100),
               capture_id="c1")
    two = dict(entry.build("the vault address is vault.internal:8200", "BD-1", "orchestrator", ts=100), capture_id="c1")
    other = dict(entry.build("the deploy queue drains first", "BD-2", "orchestrator", ts=101), capture_id="c2")
    return [one, two, other, entry.build_control("pin", one["key"], "BD-1", ts=102)]


def redacted_pair(tmp_path, lines, key, text):
    """Clone a's folder after `--redact KEY TEXT` (memory.commands.rewrite, in process), and clone b's with the
    same lines and a's records (what a pull brings when b had folded the fragment away)."""
    from memory.commands import rewrite

    a, b = seeded(tmp_path / "a", lines), seeded(tmp_path / "b", lines)
    assert rewrite.redact_key(str(a), key, text).rewritten
    (b / redactions.RECORDS).write_bytes((a / redactions.RECORDS).read_bytes())
    return a, b


def test_the_record_holds_the_rewritten_lines_and_no_secret(tmp_path):
    lines = capture_lines()
    a, b = redacted_pair(tmp_path, lines, lines[0]["key"], SECRET)
    text = (a / redactions.RECORDS).read_text()
    assert SECRET not in text and SECRET.lower() not in text.lower()
    assert "the unseal phrase is <redacted:manual> on staging" in text
    assert "/redactions.jsonl merge=memory-hooks" in (a / ".gitattributes").read_text()
    assert len(redactions.load(str(a))) == 2  # the entry and its pin (renamed with the automatic key)
    assert store.apply_redactions(str(b)).lines == 2
    assert (b / store.ACTIVE).read_bytes() == (a / store.ACTIVE).read_bytes()


def test_applying_again_changes_nothing(tmp_path):
    lines = capture_lines()
    a, b = redacted_pair(tmp_path, lines, lines[0]["key"], None)  # the whole text, the key renamed
    before_a = (a / store.ACTIVE).read_bytes()
    assert store.apply_redactions(str(a)).lines == 0 and (a / store.ACTIVE).read_bytes() == before_a
    assert store.apply_redactions(str(b)).lines == 2
    once = (b / store.ACTIVE).read_bytes()
    assert once == before_a and SECRET not in once.decode()
    assert store.apply_redactions(str(b)).lines == 0 and (b / store.ACTIVE).read_bytes() == once
    assert not redactions.unchecked(str(b))  # the marker: the next session start only stats


def test_a_later_version_of_the_key_and_every_other_line_stay_byte_for_byte(tmp_path):
    """`LEARNED[vault-notes]:` again is a new line (new ts, new capture_id): not the redacted one."""
    old = dict(entry.build(f"unseal with {SECRET}", "BD-1", "orchestrator", ts=100, key_name="vault-notes"),
               capture_id="c1")
    lines = [old, dict(entry.build("the neighbour", "BD-1", "orchestrator", ts=100), capture_id="c1")]
    a, b = redacted_pair(tmp_path, lines, "learned-vault-notes", SECRET)
    later = dict(entry.build(f"unseal with {SECRET} via the ui", "BD-3", "orchestrator", ts=200,
                             key_name="vault-notes"), capture_id="c9")  # only in b (and a secret of its own)
    with open(b / store.ACTIVE, "a") as fh:
        fh.write(json.dumps(later) + "\n")
    kept = (b / store.ACTIVE).read_text().splitlines()
    assert store.apply_redactions(str(b)).lines == 1
    now = (b / store.ACTIVE).read_text().splitlines()
    assert now[0] == (a / store.ACTIVE).read_text().splitlines()[0] and now[1:] == kept[1:]


def test_two_entries_the_marker_could_have_been_are_left_and_the_doctor_says_so(tmp_path):
    """The whole text of one entry redacted: the record names the other entries of its capture as not it (its
    key held the text, so nothing else tells them apart). An entry of that capture that clone a never had (made
    by hand here) could be it too: neither is touched, and the doctor warns with what to do."""
    one = dict(entry.build(f"the phrase {SECRET}", "BD-1", "orchestrator", ts=100), capture_id="c1")
    two = dict(entry.build("the other phrase", "BD-1", "orchestrator", ts=100), capture_id="c1")
    a, b = redacted_pair(tmp_path, [one, two], one["key"], None)
    assert redactions.load(str(a))[0]["not_keys"] == [two["key"]]
    three = dict(entry.build("a third phrase only b has", "BD-1", "orchestrator", ts=100), capture_id="c1")
    with open(b / store.ACTIVE, "a") as fh:
        fh.write(json.dumps(three) + "\n")
    before = (b / store.ACTIVE).read_bytes()
    done = store.apply_redactions(str(b))
    assert done.lines == 0 and done.ambiguous and (b / store.ACTIVE).read_bytes() == before
    doctor = subprocess.run([DOCTOR, "--memory-dir", str(b)], capture_output=True, text=True, cwd=tmp_path)
    assert "WARN  redactions" in doctor.stdout and "recall.sh --redact KEY" in doctor.stdout


def test_a_second_redaction_of_the_line_replaces_the_first_record(tmp_path):
    """Redacting TEXT2 from a line already redacted for TEXT1: one record, holding neither."""
    from memory.commands import rewrite

    other = "Tr0ub4dorXkcdPhrase"
    one = dict(entry.build(f"the phrase {SECRET} then {other}", "BD-1", "orchestrator", ts=100), capture_id="c1")
    a, b = redacted_pair(tmp_path, [one], one["key"], SECRET)
    key = store.load(str(a)).entries[0]["key"]
    assert rewrite.redact_key(str(a), key, other).rewritten
    (b / redactions.RECORDS).write_bytes((a / redactions.RECORDS).read_bytes())
    text = (a / redactions.RECORDS).read_text()
    assert len(redactions.load(str(a))) == 1 and other not in text and SECRET.lower() not in text.lower()
    assert store.apply_redactions(str(b)).lines == 1
    assert (b / store.ACTIVE).read_bytes() == (a / store.ACTIVE).read_bytes()


def test_compaction_folds_the_redacted_line_not_the_old_one(tmp_path):
    """b still has the fragment's old line in its inbox: the fold applies the record first."""
    lines = capture_lines()
    a, b = redacted_pair(tmp_path, lines, lines[0]["key"], SECRET)
    store.append(str(b), [dict(lines[0], capture_id="c1")], capture_id=None)  # an inbox copy of the old line
    store.compact(str(b))
    assert SECRET not in (b / store.ACTIVE).read_text() and not inbox.names(str(b))


def test_two_clones_redacting_different_lines_merge_both_records(tmp_path, two_clones_template):
    """Each clone redacts a line of its own and commits; the pull merges redactions.jsonl with the driver
    (both added it: git's add/add, which the driver takes as a union) and both redactions hold everywhere."""
    from helpers import copy_tree

    copy_tree(two_clones_template, tmp_path)
    a, b = tmp_path / "a", tmp_path / "b"
    for repo, name in ((a, "alpha"), (b, "beta")):
        other = "Xy7" + name + "Qz9PassPhraseOnly"
        proc = run_hook("memory_capture", bash_payload(
            f'bd comment BD-1 "LEARNED[{name}-notes]: {name} logs in with {SECRET}{name} or {other}"', repo), repo)
        assert proc.returncode == 0
    for repo, name in ((a, "alpha"), (b, "beta")):
        assert run(repo, RECALL, "--redact", f"{name}-notes", SECRET + name).returncode == 0
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", name)
    git(a, "push", "-q", "origin", "main")
    git(b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    git(b, "push", "-q", "origin", "main")
    git(a, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    for repo in (a, b):
        records = redactions.load(str(repo / ".beads/memory"))
        assert sorted(r["line"]["key"] for r in records) == ["learned-alpha-notes", "learned-beta-notes"]
        assert SECRET not in tracked_text(repo) and "<<<<<<<" not in tracked_text(repo)
        assert "FAIL" not in run(repo, DOCTOR).stdout


APPLY = """
import sys
from memory.store import store
store.apply_redactions(sys.argv[1])
"""
PRELOAD = f"import sys; sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0, {str(ROOT / 'tests')!r})"


def test_many_processes_applying_at_once_while_captures_are_folded(tmp_path):
    """16 real processes apply the records while 8 capture and fold (store.append + compact): every file whole,
    the secret gone, every capture kept once."""
    from helpers import forked_processes

    lines = capture_lines()
    _, b = redacted_pair(tmp_path, lines, lines[0]["key"], SECRET)
    capture = """
import sys
from memory.store import entry, store
for i in range(5):
    n = int(sys.argv[2]) * 10 + i
    store.append(sys.argv[1], [entry.build(f"insight {n}", f"W-{n}", "orchestrator", ts=1000 + n)])
    store.compact(sys.argv[1])
"""
    code = f"import sys\nif sys.argv[2] == 'apply':\n    exec({APPLY!r})\nelse:\n    exec({capture!r})\n"
    argvs = [[str(b), "apply"] for _ in range(16)] + [[str(b), str(i)] for i in range(8)]
    argvs = [argvs[i] for i in (list(range(0, 24, 3)) + list(range(1, 24, 3)) + list(range(2, 24, 3)))]
    statuses = forked_processes(code, argvs, preload=PRELOAD + "; from memory.store import redactions, store")
    assert statuses == [0] * len(argvs)
    store.compact(str(b))
    text = (b / store.ACTIVE).read_text()
    parsed = [json.loads(x) for x in text.splitlines()]  # every line whole
    assert SECRET not in text and "<redacted:manual>" in text
    beads = [e["bead"] for e in parsed if e["bead"].startswith("W-")]
    assert sorted(beads) == sorted({f"W-{i * 10 + j}" for i in range(8) for j in range(5)})


CRASH_APPLY = """
import sys
from crash_worker import arm
from memory.store import store
arm(int(sys.argv[2]), sys.argv[3])
store.apply_redactions(sys.argv[1])
"""


@pytest.mark.parametrize("mode", ["before", "after", "half"])
def test_killed_at_any_step_of_applying_leaves_each_file_old_or_new(tmp_path, mode):
    """A process SIGKILLed at its n-th filesystem operation while applying: each knowledge file is the old one
    or the redacted one, never a mix or a torn file; the next apply finishes."""
    from helpers import forked_processes

    lines = capture_lines()
    archived = dict(entry.build(f"archived: {SECRET} was the phrase", "BD-0", "orchestrator", ts=50),
                    capture_id="c0", key="learned-archived-phrase")
    a = seeded(tmp_path / "a", lines)
    (a / store.ARCHIVE).write_text(json.dumps(archived) + "\n")
    from memory.commands import rewrite

    assert rewrite.redact_key(str(a), lines[0]["key"], SECRET).rewritten
    assert rewrite.redact_key(str(a), "learned-archived-phrase", SECRET).rewritten
    folders = {}
    for die_at in range(1, 31):
        b = seeded(tmp_path / f"b{die_at}", lines)
        (b / store.ARCHIVE).write_text(json.dumps(archived) + "\n")
        (b / redactions.RECORDS).write_bytes((a / redactions.RECORDS).read_bytes())
        folders[die_at] = b
    old = {name: (folders[1] / name).read_bytes() for name in (store.ACTIVE, store.ARCHIVE)}
    new = {name: (a / name).read_bytes() for name in (store.ACTIVE, store.ARCHIVE)}
    statuses = forked_processes(CRASH_APPLY, [[str(b), str(n), mode] for n, b in folders.items()],
                                preload=PRELOAD + "; import crash_worker; from memory.store import redactions",
                                parallel=False)
    assert statuses[0] == -9 and statuses[-1] == 0, statuses  # killed at each step, then ran through
    for die_at, b in folders.items():
        for name in (store.ACTIVE, store.ARCHIVE):
            assert (b / name).read_bytes() in (old[name], new[name]), (die_at, mode, name)
        store.apply_redactions(str(b))  # the next one (a session start, the doctor's --repair)
        assert {name: (b / name).read_bytes() for name in new} == new
        assert not [p.name for p in b.iterdir() if p.name.endswith(".tmp")]
