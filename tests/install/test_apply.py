"""Applying a plan (memory.install.apply): all or nothing. A failure halfway through a real install.sh run
puts back every file it already wrote, through the undo journal."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from helpers import ROOT, USER_SETTINGS, clean_env, copy_tree, install, make_repo, tree
from memory.runtimes import registration

_FAILING_INSTALL = """
import errno, sys
sys.path.insert(0, sys.argv[1])
from memory.core import fsio
from memory.install import cli
real, calls, fail_at = fsio.atomic_write, [0], int(sys.argv[2])
def atomic_write(path, data, durable=True):
    calls[0] += 1
    if calls[0] == fail_at:
        raise OSError(errno.ENOSPC, "No space left on device", path)
    return real(path, data, durable)
fsio.atomic_write = atomic_write
sys.exit(cli.main(sys.argv[3:]))
"""


def _age_the_install(repo) -> None:
    """An older version's installed code: every file of it differs from what install.sh writes now."""
    for path in (repo / registration.INSTALL_DIR).rglob("*.py"):
        path.write_text(path.read_text() + "# an older version\n")


_AGED: list = []


def _aged_install_with_new_settings(repo) -> None:
    """`repo` with USER_SETTINGS installed into, the install aged (so the next run rewrites code as well as
    settings), then the settings reformatted: a copy of one made once for this module."""
    if not _AGED:
        template = make_repo(Path(tempfile.mkdtemp(prefix="mh-install-aged-")) / "project")
        (template / ".claude").mkdir()
        (template / ".claude" / "settings.json").write_text(json.dumps(USER_SETTINGS, indent=4) + "\n")
        install(template, "--no-venv", "--no-self-check")
        _age_the_install(template)
        (template / ".claude" / "settings.json").write_text(json.dumps(USER_SETTINGS, indent=2) + "\n")
        _AGED.append(template)
    copy_tree(_AGED[0], repo)


def modes(repo):
    return {rel: os.stat(repo / rel).st_mode for rel in tree(repo)}


@pytest.mark.parametrize("fail_at", [1, 2, 7, 30, 60])
def test_an_install_that_fails_halfway_puts_back_everything_it_wrote(repo, fail_at):
    """A full disk at the Nth file written: exit 3 with one line, and the repository exactly as before,
    its settings, an older install's code and all (no half-new, half-old hooks)."""
    _aged_install_with_new_settings(repo)
    before, before_modes = tree(repo), modes(repo)
    proc = subprocess.run([sys.executable, "-c", _FAILING_INSTALL, str(ROOT), str(fail_at), str(repo), "--no-venv",
                           "--no-self-check"], capture_output=True, text=True, env=clean_env())
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "No space left on device" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    after = tree(repo)
    assert sorted(after) == sorted(before)
    assert [rel for rel in before if after[rel] != before[rel]] == []
    assert modes(repo) == before_modes


def test_the_fault_injection_reaches_the_middle_of_a_real_run(repo):
    """Guard for the test above: with nothing failing, the same run writes more files than its largest
    fail_at (60), so each case stops an install in the middle, not after its end."""
    _aged_install_with_new_settings(repo)
    report = "code = cli.main(sys.argv[3:]); print(calls[0], file=sys.stderr); sys.exit(code)"
    counting = _FAILING_INSTALL.replace("sys.exit(cli.main(sys.argv[3:]))", report)
    proc = subprocess.run([sys.executable, "-c", counting, str(ROOT), "0", str(repo), "--no-venv", "--no-self-check"],
                          capture_output=True, text=True, env=clean_env())
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stderr.strip().splitlines()[-1]) > 60
