"""recall.sh run as a user runs it (the POSIX launcher), over real files."""
import json
import os
import subprocess

from conftest import ROOT
from memory import entry, store

RECALL = str(ROOT / "bin" / "recall.sh")


def recall(repo, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_HOOKS")}
    return subprocess.run([RECALL, *args], cwd=repo, capture_output=True, text=True, env=env)


def write(repo, entries, name=store.ACTIVE):
    d = repo / ".beads" / "memory"
    d.mkdir(parents=True, exist_ok=True)
    with open(d / name, "a") as fh:
        for e in entries:
            fh.write(json.dumps(e) + "\n")


def e(content, bead="BD-1", ts=1, source="orchestrator", **kw):
    return dict(entry.build(content, bead, source, ts=ts), **kw)


def test_keyword_is_case_insensitive_fixed_string(repo):
    write(repo, [e("TaskGroup requires @Sendable closures", ts=1), e("Use pnpm, not npm", ts=2)])
    proc = recall(repo, "SENDABLE")
    assert proc.returncode == 0 and "TaskGroup requires @Sendable closures" in proc.stdout and "pnpm" not in proc.stdout
    assert recall(repo, "s.ndable").returncode == 1  # not a regex


def test_repro_field_names_do_not_match(repo):
    write(repo, [e("alpha"), e("beta", ts=2)])
    assert recall(repo, "source").returncode == 1
    assert recall(repo, "content").returncode == 1
    assert recall(repo, ".").returncode == 1  # neither entry contains a literal dot


def test_searches_key_tags_and_bead(repo):
    write(repo, [e("flaky pytest fixture", bead="bd-77")])
    assert recall(repo, "testing").returncode == 0  # tag
    assert recall(repo, "BD-77").returncode == 0  # bead
    assert recall(repo, "learned-flaky").returncode == 0  # key


def test_repro_one_torn_line_does_not_hide_the_rest(repo):
    write(repo, [e("build cache is per branch", ts=1)])
    with open(repo / ".beads" / "memory" / store.ACTIVE, "a") as fh:
        fh.write('{"key":"learned-build-torn","content":"build\n')
    write(repo, [e("build with -j2 on CI", ts=3)])
    proc = recall(repo, "build")
    assert proc.returncode == 0 and "per branch" in proc.stdout and "-j2" in proc.stdout
    assert "1 malformed" in proc.stderr


def test_repro_recent_is_deduplicated(repo):
    write(repo, [e("same insight", bead="BD-1", ts=1), e("other", ts=2), e("same insight", bead="BD-2", ts=3)])
    lines = recall(repo, "--recent", "3", "--json").stdout.splitlines()
    assert [json.loads(line)["bead"] for line in lines] == ["BD-2", "BD-1"]


def test_type_filter_and_json_output(repo):
    write(repo, [e("a learned thing"), dict(e("a decision", ts=2), type="decision", key="decision-a")])
    out = [json.loads(line) for line in recall(repo, "--type", "decision", "--json").stdout.splitlines()]
    assert [x["key"] for x in out] == ["decision-a"]


def test_all_includes_archive_and_latest_wins_across_files(repo):
    write(repo, [e("old archived insight", ts=1), e("superseded", bead="BD-OLD", ts=2)], store.ARCHIVE)
    write(repo, [e("superseded", bead="BD-NEW", ts=3)])
    assert recall(repo, "archived").returncode == 1
    assert recall(repo, "archived", "--all").returncode == 0
    out = [json.loads(line) for line in recall(repo, "superseded", "--all", "--json").stdout.splitlines()]
    assert [x["bead"] for x in out] == ["BD-NEW"]


def test_stats(repo):
    write(repo, [e("x one", source="supervisor"), e("x one", ts=2), e("cache two", ts=3)])
    write(repo, [e("archived", ts=0)], store.ARCHIVE)
    proc = recall(repo, "--stats")
    assert proc.returncode == 0
    assert "3 lines, 2 unique keys" in proc.stdout and "orchestrator 2" in proc.stdout
    assert "archive:    1 lines" in proc.stdout and "performance 1" in proc.stdout and "malformed:  0" in proc.stdout


def test_usage_errors_and_help(repo):
    assert recall(repo).returncode == 2
    assert recall(repo, "--recent", "x").returncode == 2
    assert recall(repo, "--bogus").returncode == 2
    help_proc = recall(repo, "--help")
    assert help_proc.returncode == 0 and "--recent" in help_proc.stdout


def test_nothing_found_exit_1(repo):
    assert recall(repo, "anything").returncode == 1


def test_installed_layout_resolves_main_checkout(repo, tmp_path):
    """.beads/memory/recall.sh inside a project finds the code under .claude/hooks/memory-hooks."""
    target = repo / ".claude" / "hooks" / "memory-hooks"
    target.mkdir(parents=True)
    os.symlink(ROOT / "memory", target / "memory")
    write(repo, [e("installed layout works")])
    installed = repo / ".beads" / "memory" / "recall.sh"
    installed.write_bytes((ROOT / "bin" / "recall.sh").read_bytes())
    installed.chmod(0o755)
    proc = subprocess.run([str(installed), "layout"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0 and "installed layout works" in proc.stdout


def test_newer_version_that_no_longer_matches_hides_the_old_match(repo):
    old = dict(e("Use the blue deploy target", ts=1), key="learned-deploy-target")
    new = dict(e("Use the green deploy target", ts=5), key="learned-deploy-target")
    write(repo, [old, e("unrelated blue note", ts=2), new])
    out = [json.loads(line)["content"] for line in recall(repo, "blue", "--json").stdout.splitlines()]
    assert out == ["unrelated blue note"]


def test_hand_written_lines_in_other_key_order_are_searched(repo):
    d = repo / ".beads" / "memory"
    d.mkdir(parents=True)
    (d / "knowledge.jsonl").write_text(json.dumps({"content": "Hand-edited ZEBRA entry", "ts": 3, "key": "k-hand",
                                                    "type": "learned", "tags": ["learned"], "bead": "B",
                                                    "source": "orchestrator"}) + "\n")
    assert "ZEBRA" in recall(repo, "zebra").stdout
