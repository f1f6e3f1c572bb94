"""bench/relevance_actions.py: the action evaluator's counting, run on a tiny data set with a stand-in hook
(tests/fake_action_hook/action_context.py) and the real session-start hook, each as its own process."""
from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import pytest

from helpers import ROOT

sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "relevance"))

import build  # noqa: E402
import hook_session  # noqa: E402
import relevance_actions  # noqa: E402

from memory.store import entry  # noqa: E402

FAKE_HOOK = ROOT / "tests" / "fake_action_hook" / "action_context.py"
CLI_DOCS = "Never edit `docs/reference/cli.md` by hand; change the source and run `cargo dev generate-all`."
NEXTEST = "Install the test runner with `cargo install cargo-nextest` before `cargo nextest run`."
FILLER = [f"Filler insight number {i} about an unrelated corner of the code base, newer than the others."
          for i in range(6)]


def _entries() -> list[dict]:
    # the two labelled entries are the oldest: session start's newest-first block never shows them in full
    texts = [CLI_DOCS, NEXTEST] + FILLER
    return [entry.build(text, "BD-1", entry.ORCHESTRATOR, ts=1_700_000_000 + i * 86400)
            for i, text in enumerate(texts)]


def _event(eid: str, kind: str, relevant: list[str], **fields: object) -> dict:
    rec = {"id": eid, "project": "uv", "kind": kind, "relevant": relevant, **fields}
    out = {k: v for k, v in rec.items() if k not in ("tool_name", "tool_input", "error")}
    out.update(payload=build.action_payload(rec), split="dev")
    return out


def _data(tmp_path: Path) -> Path:
    entries = _entries()
    cli, nextest = entries[0]["key"], entries[1]["key"]
    (tmp_path / "uv").mkdir(parents=True)
    (tmp_path / "uv" / "knowledge.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))
    events = [
        _event("uv-f01", "file", [cli], tool_name="Edit",
               tool_input={"file_path": "docs/reference/cli.md", "old_string": "a", "new_string": "b"}),
        _event("uv-f02", "file", [nextest], tool_name="Read", tool_input={"file_path": "crates/uv/src/lib.rs"}),
        _event("uv-f03", "file", [], tool_name="Read", tool_input={"file_path": "crates/uv-normalize/src/lib.rs"}),
        _event("uv-e01", "error", [nextest], tool_name="Bash", tool_input={"command": "cargo nextest run"},
               error="Exit code 101\nerror: no such command: `nextest`"),
        _event("uv-e02", "error", [], tool_name="Bash", tool_input={"command": "git diff --check"},
               error="Exit code 2\ndocs/reference/cli.md:12: trailing whitespace.", batch=2),
    ]
    (tmp_path / "actions.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    (tmp_path / "prompts.jsonl").write_text("")
    return tmp_path


def _run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = relevance_actions.main(argv)
    return code, out.getvalue()


def test_counts_hits_recall_and_negatives_through_real_processes(tmp_path: Path) -> None:
    data = _data(tmp_path / "data")
    code, out = _run(["--hook", str(FAKE_HOOK), "--data", str(data), "--split", "dev"])
    assert code == 0
    file_line = next(line for line in out.splitlines() if line.startswith("  all      file "))
    error_line = next(line for line in out.splitlines() if line.startswith("  all      error "))
    # file: the cli.md edit gets its entry, the lib.rs read does not; the negative read stays silent
    assert "visible 1/2 = 0.50 [below >= 0.6]" in file_line and "recall 0.50" in file_line
    assert "negatives injecting 0/1 [ok" in file_line
    # error: the nextest failure gets its entry; the negative names cli.md, so the stand-in injects (counted)
    assert "visible 1/1 = 1.00 [ok >= 0.6]" in error_line
    assert "negatives injecting 1/1 [over" in error_line
    code, out = _run(["--hook", str(FAKE_HOOK), "--data", str(data), "--split", "dev", "--batch", "2"])
    assert code == 0 and "dev: 1 events" in out  # only the batch-2 event, measured the same way
    assert "  all      error visible 0/0 = nan" in out and "negatives injecting 1/1 [over" in out


def test_unlabelled_entries_injected_in_full_are_counted(tmp_path: Path) -> None:
    data = _data(tmp_path / "data")
    entries = [json.loads(line) for line in (data / "uv" / "knowledge.jsonl").read_text().splitlines()]
    repo = hook_session.make_repo(tmp_path / "repos", "uv", entries)
    events = [json.loads(line) for line in (data / "actions.jsonl").read_text().splitlines()]
    mislabelled = dict(events[0], relevant=[entries[1]["key"]])  # the cli.md edit, labelled with the other entry
    record = relevance_actions.measure(mislabelled, repo, entries, FAKE_HOOK)
    assert record["hit"] is False and record["recall"] == 0.0
    assert record["unlabelled"] == 1 and record["injected"] is True


def test_an_entry_session_start_gave_in_full_counts_as_reached(tmp_path: Path) -> None:
    data = _data(tmp_path / "data")
    entries = [json.loads(line) for line in (data / "uv" / "knowledge.jsonl").read_text().splitlines()]
    newest = entries[-1]  # in session start's newest block, in full
    repo = hook_session.make_repo(tmp_path / "repos", "uv", entries)
    events = [json.loads(line) for line in (data / "actions.jsonl").read_text().splitlines()]
    record = relevance_actions.measure(dict(events[2], relevant=[newest["key"]]), repo, entries, FAKE_HOOK)
    assert record["injected"] is False and record["hit"] is True


def test_a_missing_hook_is_skipped_with_a_message(tmp_path: Path) -> None:
    code, out = _run(["--hook", str(tmp_path / "action_context.py"), "--data", str(tmp_path)])
    assert code == 0 and out.startswith("skipped:") and "does not exist yet" in out


def test_visible_and_in_full_follow_the_definitions() -> None:
    e = {"content": "Run  migrations with `yarn workspace @calcom/prisma db-migrate` before starting the app, always."}
    assert hook_session.visible(e, "map: Run migrations with `yarn workspace @calc…")
    assert not hook_session.visible(e, "map: Run migrations with `yarn…")
    assert hook_session.in_full(e, "[LEARN] " + " ".join(e["content"].split()))
    assert not hook_session.in_full(e, "[LEARN] Run migrations with `yarn workspace @calcom/prisma db-migrate`…")
    long_entry = {"content": "x" * 250}
    assert hook_session.in_full(long_entry, "x" * 200 + "…") and not hook_session.in_full(long_entry, "x" * 199)


def test_a_crashing_hook_is_reported_not_hidden(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    crashing = tmp_path / "crash.py"
    crashing.write_text("import sys\nsys.stderr.write('Traceback: boom\\n')\nsys.exit(1)\n")
    repo = hook_session.make_repo(tmp_path, "repo", _entries())
    assert hook_session.run_hook(crashing, {"hook_event_name": "PreToolUse"}, repo) == ""
    assert "crash.py exited 1 on PreToolUse: Traceback: boom" in capsys.readouterr().err


def test_set_writes_the_settings_into_every_session_repo(tmp_path: Path) -> None:
    # a stand-in hook that speaks only when the session repo's config.json holds the setting
    probe = tmp_path / "probe.py"
    probe.write_text("import json, os, sys\nsys.stdin.read()\n"
                     "path = os.path.join(os.environ['CLAUDE_PROJECT_DIR'], '.beads', 'memory', 'config.json')\n"
                     "cfg = json.load(open(path)) if os.path.exists(path) else {}\n"
                     "if cfg.get('action_error_min_terms') == 7 and cfg.get('action_file_follow') == 1.0:\n"
                     "    print('config seen')\n")
    data = _data(tmp_path / "data")
    _, plain = _run(["--hook", str(probe), "--data", str(data), "--split", "dev"])
    code, tuned = _run(["--hook", str(probe), "--data", str(data), "--split", "dev",
                        "--set", "action_error_min_terms=7", "--set", "action_file_follow=1"])
    assert code == 0 and 'settings (.beads/memory/config.json): {"action_error_min_terms": 7' in tuned
    assert plain.count("negatives injecting 0/1") == 2 and tuned.count("negatives injecting 1/1") == 2


@pytest.mark.parametrize("text", ["action_error_min_terms", "no_such_setting=1", "action_error_min_terms=2.5",
                                  "action_file_min_score=\"high\""])
def test_set_refuses_what_config_load_would_ignore(text: str) -> None:
    with pytest.raises(relevance_actions.argparse.ArgumentTypeError):
        relevance_actions.parse_setting(text)


def test_set_reads_values_as_json_of_the_default_type() -> None:
    assert relevance_actions.parse_setting("action_file_min_score=3") == ("action_file_min_score", 3.0)
    assert relevance_actions.parse_setting("action_error_min_terms=3") == ("action_error_min_terms", 3)
    assert relevance_actions.parse_setting("semantic=false") == ("semantic", False)


def test_with_map_also_counts_a_title_the_map_shows_never_fewer_than_hits(tmp_path: Path) -> None:
    data = _data(tmp_path / "data")
    entries = [json.loads(line) for line in (data / "uv" / "knowledge.jsonl").read_text().splitlines()]
    repo = hook_session.make_repo(tmp_path / "repos", "uv", entries)
    events = [json.loads(line) for line in (data / "actions.jsonl").read_text().splitlines()]
    start = hook_session.run_hook(hook_session.SESSION_START, hook_session.session_start_payload(repo, "s"), repo)
    kinds: set[tuple[bool, bool]] = set()
    for one in entries:
        record = relevance_actions.measure(dict(events[0], relevant=[one["key"]]), repo, entries, FAKE_HOOK)
        assert record["mapped"] is (record["hit"] or hook_session.visible(one, start))
        kinds.add((record["hit"], record["mapped"]))
    assert (False, True) in kinds  # an entry the map titles and the action did not bring
    summary = relevance_actions.summarize([dict(kind="error", negative=False, hit=False, mapped=True, recall=0.0,
                                                chars=0, unlabelled=0)], "error")
    assert summary["hits"] == (0, 1) and summary["mapped"] == 1
    assert "with map 1/1" in relevance_actions.fmt(summary)
