"""Recorded redactions (memory.store.redactions): `recall.sh --redact` in one clone reaches a clone that had
compacted the line away from the inbox fragment the redaction rewrote. Real git, two clones of one bare remote,
the scripts as a user runs them."""
import json
import subprocess
import sys
import time

import pytest

from helpers import ROOT, bash_payload, clean_env, clone, git, installed_clone_of_a_new_remote, run_hook
from memory.core import fsio, layout
from memory.store import entry, inbox, redactions, store

SECRET = "correcthorsebatterystaple"  # letters only: a known miss of the automatic redaction, so it is stored
RECALL = ".beads/memory/recall.sh"
DOCTOR = str(ROOT / "bin" / "memory-doctor")


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
    remote, a = installed_clone_of_a_new_remote(path)
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
    assert doctor.returncode == 2 and "FAIL  redactions" in doctor.stdout
    assert "recall.sh --doctor --repair" in doctor.stdout
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


def redacted_in_each_then_pulled(a, b, redactions_made):
    """Clone a runs the first `recall.sh --redact KEY TEXT` and b the second, each committing; a pushes and b pulls
    (the driver merges): the records file b then holds."""
    for repo, (key, text) in zip((a, b), redactions_made):
        assert run(repo, RECALL, "--redact", key, text).returncode == 0
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"redact {text}")
    git(a, "push", "-q", "origin", "main")
    pulled = subprocess.run(["git", "pull", "-q", "--no-rebase", "--no-edit", "origin", "main"], cwd=b,
                            capture_output=True, text=True)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    return (b / ".beads/memory" / redactions.RECORDS).read_text()


def test_two_clones_redacting_two_entries_of_one_capture_leave_no_secret_in_the_records(tmp_path,
                                                                                         two_clones_template):
    """Two insights of one capture, each under an automatic key holding its own secret. Each clone redacts one:
    its record names the other entry's old key as not its own, and that key held the other clone's secret. After
    the merge both secrets stood in the committed redactions.jsonl while the doctor said all was applied (a
    second walkthrough). Now the driver's merge renames such a key (redactions.heal), and a clone whose
    records merged otherwise has it renamed at the next apply, the doctor failing until then."""
    from helpers import copy_tree

    copy_tree(two_clones_template, tmp_path)
    a, b = tmp_path / "a", tmp_path / "b"
    one, two = "crimsonfalcon101", "azurebadger202"
    proc = run_hook("memory_capture", bash_payload(f'bd comment BD-1 --stdin <<\'EOF\'\nLEARNED: svc-a token {one} '
                                                   f"for staging\nLEARNED: svc-b token {two} for staging\nEOF", a), a)
    assert proc.returncode == 0
    # folded into knowledge.jsonl, whose in-place rewrites the driver merges (two clones rewriting one inbox
    # fragment is a text conflict of its own: noticed, left open)
    assert subprocess.run([DOCTOR, "--compact"], cwd=a, capture_output=True).returncode in (0, 1)
    git(a, "add", "-A")
    git(a, "commit", "-qm", "two insights")
    git(a, "push", "-q", "origin", "main")
    git(b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    keys = sorted(e["key"] for e in store.load(str(a / ".beads/memory")).entries if "svc-" in e["key"])
    assert len(keys) == 2 and one in keys[0] and two in keys[1]
    records = redacted_in_each_then_pulled(a, b, [(keys[0], one), (keys[1], two)])
    assert one not in records and two not in records  # the merge commit holds neither
    git(b, "push", "-q", "origin", "main")
    git(a, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    for repo in (a, b):
        session_start(repo)
        assert one not in tracked_text(repo) and two not in tracked_text(repo)
        assert "FAIL" not in run(repo, DOCTOR).stdout
    # records merged without the driver (a union a person made by hand): the next apply renames, the doctor fails
    memory = a / ".beads/memory"
    healed = redactions.load(str(memory))
    stale = [dict(r, not_keys=[keys[1]]) if r["line"]["key"].startswith("learned-svc-a") else r for r in healed]
    redactions.save(str(memory), stale)
    assert "record(s) of redactions.jsonl name a key" in run(a, DOCTOR).stdout
    store.apply_redactions(str(memory))
    assert two not in (memory / redactions.RECORDS).read_text() and "FAIL" not in run(a, DOCTOR).stdout


BLUE, ORANGE = "bluefalconcodename", "orangekettlephrase"


@pytest.mark.parametrize("insight, first, second, whole", [
    ("DECISION[creds]: project codename {first} and the vault phrase {second} ninety", BLUE, ORANGE, False),
    # the automatic key holds the first secret: one redaction renames it, the other not
    ("DECISION: codename {first} is used by the deploy service in staging and prod, and the vault phrase for it "
     "is {second} ninety", BLUE, ORANGE, False),
    ("DECISION: {first} {second} are the codename and the vault phrase", BLUE, ORANGE, False),  # both renamed
    # a second review: a secret of short parts (no word of 3 characters to cut from the key), one in Cyrillic
    # (a key in its script), and one clone redacting the whole text (its `decision-*` fitted both versions)
    ("DECISION: vault pin {first} and phrase {second} for staging", "k9-x7-q2-z4", ORANGE, False),
    ("DECISION: vault pin {first} and phrase {second} for staging", "сапфирсокол", "оранжчайник", False),
    ("DECISION: {first} is the codename and {second} the phrase", BLUE, ORANGE, True),
    # a third review: the parts beside one clone's own marker are words of their own (a snake_case name, a run of
    # Chinese, a word a redaction cut inside), which the key holds apart
    ("DECISION: the vault role is svc_{first}_{second} for staging", "bluefalcon", "orangekettle", False),
    ("DECISION: 代号{first}和口令{second}用于仓库", "蓝色猎鹰", "橙色水壶", False),
    ("DECISION: codename blue{first}orange{second} for staging", "falconwing", "kettlespout", False),
])
def test_two_clones_redacting_two_parts_of_one_line_leave_neither_in_the_merge(tmp_path, two_clones_template,
                                                                                insight, first, second, whole):
    """One entry, two secrets; each clone redacts one (or, `whole`, the first clone all of it) and commits. Each
    record held the line as its clone stored it: with the other secret in the clear. After the merge both lines
    and both records stood side by side, and neither record matched the other's line: both secrets were in the
    committed files, and the doctor said OK."""
    from helpers import copy_tree

    copy_tree(two_clones_template, tmp_path)
    a, b = tmp_path / "a", tmp_path / "b"
    text = insight.format(first=first, second=second)
    proc = run_hook("memory_capture", bash_payload(f'bd comment BD-1 "{text}"', a), a)
    assert proc.returncode == 0
    key = next(e["key"] for e in store.load(str(a / ".beads/memory")).entries if e.get("type") == "decision")
    assert subprocess.run([DOCTOR, "--compact"], cwd=a, capture_output=True).returncode in (0, 1)
    git(a, "add", "-A")
    git(a, "commit", "-qm", "the entry")
    git(a, "push", "-q", "origin", "main")
    git(b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    records = redacted_in_each_then_pulled(a, b, [(key, text.split(": ", 1)[1] if whole else first), (key, second)])
    assert first not in records and second not in records  # the driver's merge heals the records
    doctor = run(b, DOCTOR).stdout
    assert (first in tracked_text(b) or second in tracked_text(b)) == ("FAIL" in doctor), doctor  # said till applied
    session_start(b)
    assert first not in tracked_text(b) and second not in tracked_text(b)
    assert "FAIL" not in run(b, DOCTOR).stdout
    git(b, "add", "-A")
    git(b, "commit", "-qm", "applied")
    git(b, "push", "-q", "origin", "main")
    git(a, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    session_start(a)
    assert first not in tracked_text(a) and second not in tracked_text(a) and "FAIL" not in run(a, DOCTOR).stdout
    assert first not in pushed_text(b) and second not in pushed_text(b)


@pytest.mark.parametrize("root_names_it", [True, False])
def test_redact_writes_the_memory_folders_attributes_only_where_git_needs_them(tmp_path, root_names_it):
    """install.sh's .gitattributes block names redactions.jsonl: a `--redact` wrote a second, untracked
    .beads/memory/.gitattributes saying the same (noise in `git status`). Now only where the root does not name
    it (an older install's block): there it is written, so git merges the records with the driver either way."""
    from helpers import installed_project

    repo = installed_project(tmp_path / "project")
    if not root_names_it:  # an install.sh from before redactions.jsonl existed
        attributes = repo / ".gitattributes"
        attributes.write_text("".join(line for line in attributes.read_text().splitlines(keepends=True)
                                      if "redactions" not in line))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "installed")
    assert run(repo, RECALL, "--add", f"LEARNED[vault-notes]: the unseal phrase is {SECRET}").returncode == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "learned")
    assert run(repo, RECALL, "--redact", "vault-notes", SECRET).returncode == 0
    memory_attributes = repo / ".beads/memory" / layout.MEMORY_ATTRIBUTES
    assert memory_attributes.exists() is not root_names_it
    new = {line[3:] for line in git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()
           if line.startswith("??")}
    assert new == {".beads/memory/redactions.jsonl"} | (set() if root_names_it else {".beads/memory/.gitattributes"})
    assert git(repo, "check-attr", "merge", "--", ".beads/memory/redactions.jsonl") == \
        ".beads/memory/redactions.jsonl: merge: memory-hooks"


CRASH_REDACT = """
import sys
from crash_worker import arm
from memory.commands import rewrite
arm(int(sys.argv[2]), "before")
rewrite.redact_key(sys.argv[1], sys.argv[3], sys.argv[4])
"""


def test_a_redact_killed_at_any_step_is_finished_by_the_next_apply(tmp_path):
    """`--redact` writes its records before it replaces the files: SIGKILLed at each filesystem operation, the
    next locked write removes its temp files, and applying the records gives the files a whole run gives."""
    from helpers import forked_processes

    lines = capture_lines()
    whole = seeded(tmp_path / "whole", lines)
    from memory.commands import rewrite

    assert rewrite.redact_key(str(whole), lines[0]["key"], SECRET).rewritten
    folders = {n: seeded(tmp_path / f"k{n}", lines) for n in range(1, 41)}
    preload = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0, {str(ROOT / 'tests')!r}); "
               "import crash_worker; from memory.commands import rewrite")
    statuses = forked_processes(CRASH_REDACT, [[str(f), str(n), lines[0]["key"], SECRET] for n, f in folders.items()],
                                preload=preload, parallel=False)
    assert statuses[0] == -9 and statuses[-1] == 0, statuses
    for n, folder in folders.items():
        store.apply_redactions(str(folder))
        left = [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]
        # the knowledge's and the records' temps go under the lock; a derived cache's waits for the sweep
        derived = (layout.INDEX, layout.ARCHIVE_INDEX, layout.SCREEN_CACHE, layout.START_CACHE, layout.PATH_CUES)
        assert all(name[1:].rsplit(".", 2)[0] in derived for name in left), (n, left)
        fsio.remove_stale_temps(str(folder), now=time.time() + 2 * fsio.STALE_TEMP_SECONDS)
        assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")], n
        if (folder / redactions.RECORDS).exists():  # recorded: the knowledge is the redacted one
            assert (folder / store.ACTIVE).read_bytes() == (whole / store.ACTIVE).read_bytes(), n
        else:  # killed before: nothing changed
            assert SECRET in (folder / store.ACTIVE).read_text(), n


def test_a_records_line_nested_too_deep_is_skipped_not_the_whole_file(tmp_path):
    """redactions.jsonl is merged from every clone: one line nested deeper than the JSON parser goes (a bad merge, a
    hand edit) raised RecursionError, which no reader caught, so session start applied none of the records (the
    secret stayed in this clone's knowledge and context) and memory-doctor crashed. It is skipped like any
    malformed line now."""
    from helpers import make_repo

    lines = capture_lines()
    repo = make_repo(tmp_path / "repo")
    memory_dir = repo / ".beads" / "memory"
    memory_dir.mkdir(parents=True, exist_ok=True)
    a, b = redacted_pair(tmp_path, lines, lines[0]["key"], SECRET)
    (memory_dir / store.ACTIVE).write_bytes((b / store.ACTIVE).read_bytes())
    (memory_dir / redactions.RECORDS).write_bytes((b / redactions.RECORDS).read_bytes() + b"[" * 100_000 + b"\n")
    assert SECRET in (memory_dir / store.ACTIVE).read_text()
    assert SECRET not in session_start(repo).stdout.decode()
    assert (memory_dir / store.ACTIVE).read_bytes() == (a / store.ACTIVE).read_bytes()
    doctor = run(repo, DOCTOR)
    assert "Traceback" not in doctor.stderr


def test_a_record_with_many_markers_is_matched_in_linear_time():
    """A record's text with markers is matched piece by piece, never by a regex of `.+?` between them: with six
    markers a 300-character line that almost fits took two minutes (session start applies records), and a
    key with wildcards the same."""
    code = (
        "from memory.store import redactions as r\n"
        "m = r.MARKER\n"
        "rec = {'line': {'key': 'learned-*-*-*-*-*-x', 'type': 'learned', 'ts': 1, 'content': m.join(['a'] * 7)},"
        " 'from_keys': ['learned-*-*-*-*-*-*-*-*-y']}\n"
        "matcher = r.Matcher(rec)\n"
        "line = {'key': 'learned-' + '-' * 300, 'type': 'learned', 'ts': 1, 'content': 'a' * 3000 + 'b'}\n"
        "assert not matcher.matches(line)\n"
        "assert matcher.matches(dict(line, key='learned-q-q-q-q-q-x', content='a1a2a3a4a5a6a'))\n"
        "assert not matcher.matches(dict(line, key='learned-q-q-q-q-q-x', content='aaaaaaa'))  # a marker is 1+ chars\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=30)
