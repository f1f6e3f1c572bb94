"""memory.runtimes.registration: which settings file registers ours, read as the hooks read it."""
from memory.runtimes import registration


def test_the_merge_code_is_loaded_only_by_who_merges():
    """The hooks import registration to learn whether another copy answers; the merge code (the installer's, the
    doctor's) stays unloaded for them."""
    import subprocess
    import sys

    from helpers import ROOT

    probe = "import sys, memory.runtimes.registration as r; print('memory.runtimes.settings_merge' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True).stdout == "False\n"



def test_a_fifo_where_a_settings_file_belongs_never_holds_the_hook(tmp_path):
    """The plugin's copy reads the project's Claude settings to learn whether an install answers instead
    (registration.read_config): a FIFO planted there (or left by a tool) made open() wait for a writer, and session
    start hung until Claude Code killed it, every session. Now it is an unreadable file: nothing registered
    there, so the plugin answers."""
    import os

    from helpers import fixture_payload, make_repo, run_hook
    from memory.store import entry, store

    repo = make_repo(tmp_path / "project")
    store.append(str(repo / ".beads" / "memory"), [entry.build("LEARNED: the plugin still answers.", "BD-1", "o")])
    (repo / ".claude").mkdir()
    os.mkfifo(repo / ".claude" / "settings.local.json")
    payload = dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(repo))
    proc = run_hook("session_start", payload, repo, args=["--plugin"], timeout=20)
    assert proc.returncode == 0 and b"the plugin still answers" in proc.stdout, proc.stderr


def test_only_a_url_a_teammate_can_clone_is_a_shareable_source():
    for url in ("https://git.example.com/team/memory-hooks.git", "ssh://git@host/team/mh.git",
                "git@github.com:team/memory-hooks.git", "host.example.com:team/mh.git"):
        assert registration.shareable_source(url) == url
    for path in ("/work/main", "file:///srv/git/mh", "../memory-hooks", "mh", "C:/src/mh", "C:\\src\\mh",
                 "./a:b", "", "  ", None, 3):
        assert registration.shareable_source(path) is None, path
