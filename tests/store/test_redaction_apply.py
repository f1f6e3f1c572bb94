"""Applying recorded redactions (memory.store.redaction_apply) in a clone: idempotent, a later version of the key
untouched, entries a record cannot tell apart left alone, many real processes at once, SIGKILL at any step."""
import json
import subprocess

import pytest
from test_redactions import DOCTOR, SECRET, capture_lines, redacted_pair, seeded

from helpers import ROOT
from memory.store import entry, inbox, redaction_apply, redactions, rotation, store


def test_applying_again_changes_nothing(tmp_path):
    lines = capture_lines()
    a, b = redacted_pair(tmp_path, lines, lines[0]["key"], None)  # the whole text, the key renamed
    before_a = (a / store.ACTIVE).read_bytes()
    assert store.apply_redactions(str(a)).lines == 0 and (a / store.ACTIVE).read_bytes() == before_a
    assert store.apply_redactions(str(b)).lines == 2
    once = (b / store.ACTIVE).read_bytes()
    assert once == before_a and SECRET not in once.decode()
    assert store.apply_redactions(str(b)).lines == 0 and (b / store.ACTIVE).read_bytes() == once
    assert not redaction_apply.unchecked(str(b))  # the marker: the next session start only stats


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


def test_compaction_folds_the_redacted_line_not_the_old_one(tmp_path):
    """b still has the fragment's old line in its inbox: the fold applies the record first."""
    lines = capture_lines()
    a, b = redacted_pair(tmp_path, lines, lines[0]["key"], SECRET)
    store.append(str(b), [dict(lines[0], capture_id="c1")], capture_id=None)  # an inbox copy of the old line
    rotation.compact(str(b))
    assert SECRET not in (b / store.ACTIVE).read_text() and not inbox.names(str(b))


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
from memory.store import entry, rotation, store
for i in range(5):
    n = int(sys.argv[2]) * 10 + i
    store.append(sys.argv[1], [entry.build(f"insight {n}", f"W-{n}", "orchestrator", ts=1000 + n)])
    rotation.compact(sys.argv[1])
"""
    code = f"import sys\nif sys.argv[2] == 'apply':\n    exec({APPLY!r})\nelse:\n    exec({capture!r})\n"
    argvs = [[str(b), "apply"] for _ in range(16)] + [[str(b), str(i)] for i in range(8)]
    argvs = [argvs[i] for i in (list(range(0, 24, 3)) + list(range(1, 24, 3)) + list(range(2, 24, 3)))]
    statuses = forked_processes(code, argvs, preload=PRELOAD + "; from memory.store import redactions, store")
    assert statuses == [0] * len(argvs)
    rotation.compact(str(b))
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


def test_both_entries_of_one_capture_redacted_whole_stay_two_entries(tmp_path):
    """Each record names the other entry as not it, by the other's key as it is after its own redaction (the
    old one held its secret): applying in a, and in b, keeps two entries, each with its own line."""
    from memory.commands import rewrite

    other = "Tr0ub4dorXkcdPhrase"
    one = dict(entry.build(f"the phrase {SECRET}", "BD-1", "orchestrator", ts=100), capture_id="c1")
    two = dict(entry.build(f"the other phrase {other}", "BD-1", "orchestrator", ts=100), capture_id="c1")
    a, b = redacted_pair(tmp_path, [one, two], one["key"], None)
    assert rewrite.redact_key(str(a), two["key"], None).rewritten
    (b / redactions.RECORDS).write_bytes((a / redactions.RECORDS).read_bytes())
    text = (a / redactions.RECORDS).read_text().lower()
    assert SECRET not in text and other.lower() not in text
    final = (a / store.ACTIVE).read_bytes()
    assert len({e["key"] for e in store.load(str(a)).entries}) == 2
    assert store.apply_redactions(str(a)).lines == 0 and (a / store.ACTIVE).read_bytes() == final
    assert store.apply_redactions(str(b)).lines == 2 and (b / store.ACTIVE).read_bytes() == final


def test_a_pin_another_clone_wrote_under_the_old_key_follows_the_entry(tmp_path):
    """b pinned the entry (and approved it) before pulling a's `--redact`: those lines held the old key, the secret's
    slug in it. After applying they name the new key, so the pin still pins the entry and no line holds the slug;
    a pin of another entry whose key fits the same pattern (its own entry still there) is left as it was."""
    from memory.store import view

    lines = capture_lines()[:3]
    cousin = dict(entry.build("the unseal phrase is rotated on staging every month", "BD-4", "orchestrator", ts=103),
                  capture_id="c4")
    a, b = redacted_pair(tmp_path, lines + [cousin], lines[0]["key"], SECRET)
    strays = [entry.build_control("pin", lines[0]["key"], "BD-1", ts=110),
              entry.build_control("pin", cousin["key"], "BD-4", ts=111)]
    with open(b / store.ACTIVE, "a") as fh:
        fh.write("".join(json.dumps(x) + "\n" for x in strays))
    assert SECRET in lines[0]["key"].replace("-", "")  # the automatic key held it
    done = store.apply_redactions(str(b))
    text = (b / store.ACTIVE).read_text()
    assert SECRET not in text.replace("-", "") and done.lines == 2  # the entry and the stray pin
    new_key = (a / store.ACTIVE).read_text().splitlines()[0]
    new_key = json.loads(new_key)["key"]
    state = view.State(json.loads(x) for x in text.splitlines())
    assert state.pinned(new_key) and state.pinned(cousin["key"])
    assert store.apply_redactions(str(b)).lines == 0  # applying again changes nothing
