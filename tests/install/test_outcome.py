"""What install.sh reports after applying (memory/install/outcome.py), run as a user runs it."""
from helpers import install


def test_knowledge_gitignored_by_an_old_installer_is_warned_about(repo):
    (repo / ".gitignore").write_text(".beads/\n")
    out = install(repo, "--no-venv", "--no-self-check").stdout
    assert "WARNING      .beads/memory/knowledge.jsonl is gitignored here" in out
    # the line above it said "teammates get it through git" all the same
    assert "teammates get it through git" not in out and "gitignored here: see the warning below" in out


def test_non_git_folder_report_says_nothing_about_committing(tmp_path):
    folder = tmp_path / "plain"
    folder.mkdir()
    out = install(folder, "--no-venv").stdout
    assert "knowledge    .beads/memory/knowledge.jsonl\n" in out and "commit" not in out and "FAILED" not in out
