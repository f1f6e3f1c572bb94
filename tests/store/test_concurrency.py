"""Many real processes at once, and processes killed mid-rotation: nothing lost, duplicated or torn."""
import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT, bash_payload, clean_env, forked_processes, knowledge
from memory.store import entry, inbox, rotation, store

WORKER = str(ROOT / "tests" / "crash_worker.py")


def all_lines(memory: Path):
    """Every line of archive + active + inbox, parsed (a torn line fails the test)."""
    out = []
    for name in [store.ARCHIVE, store.ACTIVE] + [f"inbox/{n}" for n in inbox.names(str(memory))]:
        path = memory / name
        if path.exists():
            raw = path.read_bytes()
            assert raw == b"" or raw.endswith(b"\n"), f"{name} ends mid-line"
            out += [json.loads(line) for line in raw.splitlines()]
    return out


@functools.cache
def seed_lines(n: int) -> str:
    """n entries S-0 … S-(n-1), as lines (built once: the kill test seeds some seventy folders alike)."""
    return "".join(json.dumps(entry.build(f"seed {i}", f"S-{i}", "orchestrator", ts=i)) + "\n" for i in range(n))


def seed(memory: Path, n: int) -> None:
    memory.mkdir(parents=True, exist_ok=True)
    (memory / store.ACTIVE).write_text(seed_lines(n))


def test_32_hook_processes_capture_across_the_rotation_boundary(repo):
    memory = repo / ".beads" / "memory"
    seed(memory, 990)
    env = clean_env()
    env["CLAUDE_PROJECT_DIR"] = str(repo)
    procs = []
    for i in range(32):
        payload = json.dumps(bash_payload(f'bd comment BD-{i} "LEARNED: concurrent insight number {i}"', repo))
        p = subprocess.Popen([sys.executable, str(ROOT / "hooks" / "memory_capture.py")], cwd=repo, env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        procs.append((p, payload))
    for p, payload in procs:
        p.stdin.write(payload.encode())
        p.stdin.close()
    for p, _ in procs:
        assert p.wait(60) == 0
    lines = all_lines(memory)
    contents = [e["content"] for e in lines]
    assert sorted(c for c in contents if c.startswith("concurrent")) == \
        sorted(f"concurrent insight number {i}" for i in range(32))
    assert len(contents) == len(set(contents)) == 990 + 32
    assert (memory / store.ACTIVE).read_bytes().count(b"\n") == 990  # captures never touch it
    rotation.compact(str(memory))  # memory-doctor --compact
    assert len(all_lines(memory)) == 990 + 32
    assert len(knowledge(repo)) <= 1000 and len(knowledge(repo, store.ARCHIVE)) == 500


def test_32_processes_many_rotations(tmp_path):
    """Appends and folds from 32 processes carry the knowledge across the rotation boundary twice."""
    memory = tmp_path / "memory"
    seed(memory, 990)  # just below the boundary: every append below is near a rotation
    statuses = forked_processes(CRASH_WORKER, [[str(memory), str(i * 100), "16"] for i in range(32)],
                                preload=WORKER_IMPORTS)  # 32 real processes at once
    assert statuses == [0] * 32
    lines = all_lines(memory)
    beads = [e["bead"] for e in lines]
    assert len(beads) == len(set(beads)) == 990 + 32 * 16
    assert len((memory / store.ACTIVE).read_bytes().splitlines()) <= 1000
    assert len((memory / store.ARCHIVE).read_bytes().splitlines()) >= 2 * rotation.ROTATE_CHUNK


@pytest.fixture(scope="module")
def operations_in_one_rotating_append(tmp_path_factory) -> int:
    """How many filesystem operations an append and the fold that rotates perform (counted, not guessed)."""
    probe = tmp_path_factory.mktemp("probe")
    seed(probe, 1000)
    code = ("import os,sys; sys.path.insert(0, sys.argv[1]); n=[0]\n"
            "for name in ('write','fsync','replace','unlink','ftruncate','link','rename'):\n"
            "    real=getattr(os,name)\n"
            "    def op(*a, _r=real, **k):\n"
            "        n[0]+=1; return _r(*a, **k)\n"
            "    setattr(os,name,op)\n"
            "from memory.store import entry, rotation, store\n"
            "store.append(sys.argv[2], [entry.build('x','B','orchestrator')]); rotation.compact(sys.argv[2])\n"
            "print(n[0])")
    out = subprocess.run([sys.executable, "-c", code, str(ROOT), str(probe)],
                         capture_output=True, text=True, check=True)
    return int(out.stdout)


# crash_worker.py as `python crash_worker.py ARG...` runs it, in processes forked by helpers.forked_processes
CRASH_WORKER = f"import runpy; runpy.run_path({WORKER!r}, run_name='__main__')"
WORKER_IMPORTS = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from memory.store import entry, store"


@pytest.mark.parametrize("mode", ["before", "after", "half"])
def test_killed_at_every_step_of_rotation_loses_and_duplicates_nothing(tmp_path, mode,
                                                                        operations_in_one_rotating_append):
    steps = operations_in_one_rotating_append
    assert steps >= 8
    folders = {die_at: tmp_path / f"{mode}-{die_at}" for die_at in range(1, steps + 1)}
    for memory in folders.values():
        seed(memory, 1000)
    # one worker at a time, each a real process SIGKILLed at its die_at-th filesystem operation
    statuses = forked_processes(CRASH_WORKER, [[str(memory), "5000", "1", str(die_at), mode]
                                               for die_at, memory in folders.items()],
                                preload=WORKER_IMPORTS, parallel=False)
    for (die_at, memory), status in zip(folders.items(), statuses):
        assert status == -9, f"worker did not die at op {die_at}"
        # the next writer (this process): recovery, its append and the fold
        store.append(str(memory), [entry.build("insight 6000", "BD-6000", "orchestrator", ts=6000)])
        rotation.compact(str(memory))
        lines = all_lines(memory)
        beads = [e["bead"] for e in lines]
        assert len(beads) == len(set(beads)), f"duplicates after dying at op {die_at} ({mode})"
        expected = {f"S-{i}" for i in range(1000)} | {"BD-6000"}
        assert expected <= set(beads), f"lost entries after dying at op {die_at} ({mode})"
        assert not (memory / store.JOURNAL).exists()
        assert not [p.name for p in memory.iterdir() if p.name.endswith(".tmp")]  # no orphaned temp files


def test_two_users_sharing_a_checkout_through_a_group_both_capture(tmp_path):
    """A checkout two Unix users share through a group (umask 002, a setgid folder): the first user's capture
    created the lock 0600, and every capture of the second failed from then on (NOT stored)."""
    import os
    import shutil
    import tempfile

    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to run as two users")
    base = Path(tempfile.mkdtemp(prefix="mh-shared-"))  # outside pytest's 0700 tmp folder
    try:
        os.chmod(base, 0o755)
        memory = base / "memory"
        memory.mkdir()
        os.chown(memory, 65534, 1500)
        os.chmod(memory, 0o2775)
        code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); from memory.store import entry, store; "
                f"store.append({str(memory)!r}, [entry.build(sys.argv[1], 'BD-1', 'orchestrator')])")
        for uid, text in ((65534, "the first user's insight"), (65533, "the second user's insight")):
            proc = subprocess.run(["setpriv", f"--reuid={uid}", "--regid=1500", "--groups=1500", "--inh-caps=-all",
                                   "sh", "-c", 'umask 002; exec /usr/bin/python3 -c "$0" "$1"', code, text],
                                  capture_output=True, text=True, cwd=base)
            assert proc.returncode == 0, proc.stderr
        assert sorted(e["content"] for e in store.load(str(memory)).entries) == [
            "the first user's insight", "the second user's insight"]
        assert os.stat(memory / store.LOCK).st_mode & 0o777 == 0o664  # the umask decides, as for git's files
        fragments = list((memory / "inbox").iterdir())
        assert len(fragments) == 2 and all(f.stat().st_mode & 0o777 == 0o664 for f in fragments)
        fold = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); from memory.store import rotation; "
                f"rotation.compact({str(memory)!r})")
        proc = subprocess.run(["setpriv", "--reuid=65533", "--regid=1500", "--groups=1500", "--inh-caps=-all",
                               "sh", "-c", 'umask 002; exec /usr/bin/python3 -c "$0"', fold],
                              capture_output=True, text=True, cwd=base)
        assert proc.returncode == 0, proc.stderr
        assert os.stat(memory / store.ACTIVE).st_mode & 0o777 == 0o664  # the first user can fold next time
        os.unlink(memory / store.LOCK)
        os.chown(memory, 0, 0)
        os.chmod(memory, 0o755)  # now a folder the second user cannot write, and no lock in it yet
        proc = subprocess.run(["setpriv", "--reuid=65533", "--regid=1500", "--groups=1500", "--inh-caps=-all",
                               "/usr/bin/python3", "-c", code, "refused"], capture_output=True, text=True, cwd=base)
        assert proc.returncode != 0 and "PermissionError" in proc.stderr  # the real reason, not "no such file"
        assert "FileNotFoundError" not in proc.stderr
    finally:
        subprocess.run(["rm", "-rf", str(base)])
