"""memory-doctor --report / memory-hooks report: the page's content, its escaping, and the page in a real
headless browser (Debian's chromium): rendered text, the filter, a screenshot."""
from __future__ import annotations

import base64
import fcntl
import json
import os
import random
import re
import select
import shutil
import string
import subprocess
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

from helpers import ROOT, clean_env, make_repo
from memory.commands import console, report
from memory.core import layout
from memory.store import entry
from memory.surface import injected, use

DAY = 86400
NOW = time.time()
SECRET = "ghp_" + "".join(random.Random(7).choices(string.ascii_letters + string.digits, k=36))
HOSTILE = 'the <script>alert("x")</script> & "quotes" \'too\' </td></tr> <img src=http://evil.example/p.png>'


def lines(repo: Path) -> list[dict]:
    """A knowledge file as a team's grows: several days, beads, a pin, a duplicate from a merge, a redacted
    secret, an old entry naming a file that is gone, and an entry made of markup."""
    e = entry.build
    made = [
        e("the integration tests need Postgres 16 on port 5433", "BD-1", "orchestrator", ts=NOW - 40 * DAY),
        e("we chose uv for the lockfile", "BD-2", "orchestrator", "decision", ts=NOW - 10 * DAY),
        e("src/retry_loop.py holds the backoff for the payments client", "", "orchestrator", ts=NOW - 400 * DAY),
        e(f"the deploy token is {SECRET} in vault", "BD-2", "orchestrator", ts=NOW - 2 * DAY),
        e(HOSTILE, "BD-3", "orchestrator", "warning", ts=NOW - 3600),
        e("Restart the worker after editing settings", "", "orchestrator", ts=NOW - 5 * DAY),
    ]
    twin = dict(made[-1], key="learned-restart-worker-after-settings", content="restart the worker after editing "
                                                                                "settings!")
    pin = entry.build_control(entry.PIN, made[1]["key"], "", ts=NOW - DAY)
    return made + [twin, pin]


@pytest.fixture
def project(tmp_path):
    repo = make_repo(tmp_path / "project")
    (repo / "src").mkdir()
    (repo / "src" / "other.py").write_text("x = 1\n")
    memory = repo / ".beads" / "memory"
    memory.mkdir(parents=True)
    (memory / "knowledge.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines(repo)))
    injected.remember(str(memory), "session-1", ["learned-the-integration-tests-need-postgres-16-on-port-5433"])
    use.credit(str(memory), ["decision-we-chose-uv-for-the-lockfile"], "session-1", now=NOW - 86400)
    return repo


def build(repo: Path) -> str:
    return report.build(str(repo / ".beads" / "memory"), str(repo), now=NOW)


def test_the_page_holds_every_section_and_flags(project):
    page = build(project)
    for heading in ("Entries by type, topic, bead and age", "Growth", "Stale (1)", "Duplicates (1)",
                    "Redacted (1)", "What session start shows today"):
        assert f"<h2>{heading}</h2>" in page
    assert page.count('<tr data-text="') == 7  # every live entry, one row each
    assert "<polyline" in page and page.count("<circle") == 6  # six days added entries
    assert "gone src/retry_loop.py" in page
    assert "&lt;redacted:github_token&gt;" in page and SECRET not in page
    row = re.search(r'<tr data-text="[^"]*postgres[^"]*">.*?</tr>', page).group(0)
    assert 'class="flag given"' in row and 'class="flag used"' not in row
    assert "recall.sh --forget learned-the-integration-tests" in row
    pinned = re.search(r'<tr data-text="[^"]*uv for the lockfile[^"]*">.*?</tr>', page).group(0)
    assert 'class="flag pinned"' in pinned and "recall.sh --pin decision-we-chose-uv-for-the-lockfile" in pinned
    assert 'class="flag used"' in pinned and 'class="flag given"' not in pinned and page.count('"flag used"') == 1
    assert "1 entry was given to agents" in page and "1 looked up or acted on" in page
    assert "## Recent Knowledge" in page  # the digest session start renders, as it renders it


def test_what_session_start_shows_is_what_the_hook_shows_with_an_archive(project):
    """The preview and the hook read the same knowledge: after a rotation, the archive's live entries stand in
    both (the preview once counted entries session start did not show)."""
    from helpers import run_hook

    memory = project / ".beads" / "memory"
    archived = entry.build("the archived note about the frobnicator", "BD-9", "orchestrator", ts=NOW - 90 * DAY)
    (memory / "knowledge.archive.jsonl").write_text(json.dumps(archived) + "\n")
    page = build(project)
    hook = run_hook("session_start", {"session_id": "s", "hook_event_name": "SessionStart", "source": "startup",
                                      "cwd": str(project)}, project)
    shown = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    heading = re.search(r"## Recent Knowledge \(\d+ entries\)", shown).group(0)
    assert "frobnicator" in shown and "frobnicator" in page
    preview = re.search(r"What session start shows today</h2>\s*<pre>(.*?)</pre>", page, re.S).group(1)
    assert heading in preview and "frobnicator" in preview


def test_entry_text_is_escaped_and_nothing_is_fetched(project):
    page = build(project)
    assert "<script>alert" not in page and "<img src=http" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert page.count("<script>") == 1  # ours
    assert [tag for tag in _tags(page) if tag[0] in ("img", "link", "a", "iframe", "object", "embed")] == []
    assert all(not value.lower().startswith(("http", "//")) for _, attrs in _tags(page) for name, value in attrs
               if name in ("src", "href", "action", "data") and value)
    assert "default-src 'none'" in page


def _tags(page: str) -> list:
    """Every element of the page with its attributes, as a browser's parser sees them."""
    found = []

    class Parser(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.append((tag, attrs))

    Parser().feed(page)
    return found


def test_growth_counts_distinct_keys_by_day():
    k = {"type": "learned", "content": "c"}
    points = report.growth([dict(k, key="a", ts=10 * DAY + 5), dict(k, key="a", ts=12 * DAY),
                            dict(k, key="b", ts=12 * DAY + 7), {"key": "b", "type": "forget", "ts": 13 * DAY}])
    assert points == [(10 * DAY, 0), (11 * DAY, 1), (13 * DAY, 2)]


def test_growth_names_the_days_of_the_first_and_the_newest_entry(project, tmp_path):
    """The chart's end is the end of the newest entry's day, which is midnight of the next: a knowledge base
    whose newest entry came today read `to <tomorrow>`."""
    out = tmp_path / "page.html"
    proc = subprocess.run([str(ROOT / "bin" / "memory-doctor"), "--report", str(out)], cwd=project,
                          capture_output=True, text=True, env=clean_env())
    assert proc.returncode == 0, proc.stderr
    day = lambda ts: time.strftime("%Y-%m-%d", time.gmtime(ts))  # noqa: E731
    newest, oldest = max(line["ts"] for line in lines(project)), min(line["ts"] for line in lines(project))
    title = re.search(r"<title>(\d+) entries, (\S+) to (\S+)</title>", out.read_text())
    assert title and title.group(2) == day(oldest) and title.group(3) == day(newest)
    assert f">{day(newest + DAY)}</text>" not in out.read_text()


def test_doctor_report_and_memory_hooks_report_write_the_file(project, tmp_path, monkeypatch, capsys):
    out = tmp_path / "doctor.html"
    proc = subprocess.run([str(ROOT / "bin" / "memory-doctor"), "--report", str(out)], cwd=project,
                          capture_output=True, text=True, env=clean_env())
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().startswith("<!DOCTYPE html>") and "Postgres 16" in out.read_text()
    readme = subprocess.run([str(ROOT / "bin" / "recall.sh"), "--doctor", "--report", str(tmp_path / "r.html")],
                            cwd=project, capture_output=True, text=True, env=clean_env())  # as the README says
    assert readme.returncode == 0 and "Postgres 16" in (tmp_path / "r.html").read_text(), readme.stderr
    monkeypatch.chdir(project)
    monkeypatch.delenv("MEMORY_HOOKS_ANCHOR", raising=False)
    assert console.main(["report", str(tmp_path / "console.html")]) == 0
    assert "Postgres 16" in (tmp_path / "console.html").read_text()
    assert console.main(["report", str(tmp_path / "no" / "such" / "dir.html")]) == 2


def test_with_no_file_the_report_goes_to_the_ignored_memory_folder(project):
    (project / ".beads" / "memory" / ".gitignore").write_text("\n".join(layout.memory_ignore_lines()) + "\n")
    proc = subprocess.run([str(ROOT / "bin" / "memory-doctor"), "--report"], cwd=project, capture_output=True,
                          text=True, env=clean_env())
    written = project / ".beads" / "memory" / layout.REPORT
    assert proc.returncode == 0 and "Postgres 16" in written.read_text(), proc.stderr
    assert "WARNING" not in proc.stderr
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=project,
                            capture_output=True, text=True).stdout
    assert layout.REPORT not in status  # `git add .` would not commit every entry's text


def test_a_report_a_commit_would_pick_up_is_warned_about(project, tmp_path):
    inside = subprocess.run([str(ROOT / "bin" / "memory-doctor"), "--report", "memory.html"], cwd=project,
                            capture_output=True, text=True, env=clean_env())
    assert inside.returncode == 0 and (project / "memory.html").exists()
    assert "memory.html is inside the repository and not gitignored" in inside.stderr
    (project / ".gitignore").write_text("*.html\n")
    ignored = subprocess.run([str(ROOT / "bin" / "memory-doctor"), "--report", "memory.html"], cwd=project,
                             capture_output=True, text=True, env=clean_env())
    outside = subprocess.run([str(ROOT / "bin" / "memory-doctor"), "--report", str(tmp_path / "out.html")],
                             cwd=project, capture_output=True, text=True, env=clean_env())
    assert ignored.returncode == outside.returncode == 0
    assert "WARNING" not in ignored.stderr + outside.stderr


def test_the_report_never_replaces_a_file_it_did_not_write(project, tmp_path):
    """`--report README` replaced the tracked README with the page, a FIFO became a file, and as root /dev/full
    a regular file: the rename goes through anything. Only a new file or an earlier report is written; `-` is
    standard output."""
    import os

    def report(target):
        return subprocess.run([str(ROOT / "bin" / "memory-doctor"), "--report", str(target)], cwd=project,
                              capture_output=True, text=True, env=clean_env())

    readme = project / "README.md"
    readme.write_text("# the project\n")
    refused = report("README.md")
    assert refused.returncode == 2 and "README.md exists and is not a report: not overwritten" in refused.stderr
    assert readme.read_text() == "# the project\n"
    fifo = tmp_path / "pipe.html"
    os.mkfifo(fifo)
    assert report(fifo).returncode == 2 and fifo.is_fifo()
    again = tmp_path / "again.html"
    assert report(again).returncode == 0 and report(again).returncode == 0  # its own report: written over
    older = again.read_text().replace('<meta name="generator" content="memory-hooks report">', "")
    again.write_text(older)  # one an earlier version wrote, without the generator line
    assert report(again).returncode == 0 and "memory-hooks report" in again.read_text()
    out = report("-")
    assert out.returncode == 0 and out.stdout.startswith("<!DOCTYPE html>") and not (project / "-").exists()


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class _Browser:
    """One real headless chromium for the whole test, driven over its DevTools pipe (--remote-debugging-pipe:
    JSON messages ending in NUL on fds 3 and 4): each page is a fresh load in it, as `chromium --dump-dom URL`
    loads it, without a browser start per page (~0.4 s of CPU each)."""

    def __init__(self, tmp_path: Path) -> None:
        browser = _chromium()
        if browser is None:
            pytest.skip("chromium is not installed (apt-get install chromium; .ci/run installs it)")
        self.log = tmp_path / "chromium.log"  # its stderr: a file, never a pipe that could fill up and stall it
        low_commands, self._to_browser = os.pipe()
        self._from_browser, low_answers = os.pipe()
        # the browser's ends moved above fd 9: a redirection to 3 and 4 then never closes one of them
        commands, answers = (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (low_commands, low_answers))
        os.close(low_commands)
        os.close(low_answers)
        launch = f'exec "$0" "$@" 3<&{commands} 4>&{answers} {commands}<&- {answers}>&-'  # bash: dash takes fds <= 9
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                ["bash", "-c", launch, browser, "--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'chromium-profile'}", "--no-first-run",
                 "--remote-debugging-pipe", "about:blank"],
                pass_fds=(commands, answers), stdout=subprocess.DEVNULL, stderr=log, env=clean_env(HOME=str(tmp_path)))
        os.close(commands)
        os.close(answers)
        self._buffer, self._next_id, self.session = b"", 0, None
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]

    def call(self, method: str, **params) -> dict:
        """Send one command (to the page once attached) and return its result; events in between are skipped."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if self.session and not method.startswith(("Target.", "Browser.")):
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + 60
        while True:
            while b"\0" not in self._buffer:
                ready, _, _ = select.select([self._from_browser], [], [], max(0.0, deadline - time.monotonic()))
                chunk = os.read(self._from_browser, 1 << 20) if ready else b""
                if not chunk:
                    self.proc.kill()
                    self.proc.wait()
                    raise AssertionError(f"chromium stopped answering {method}: {self.log.read_text()[-2000:]}")
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self._next_id:
                assert "error" not in answer, (method, answer["error"])
                return answer["result"]

    def load(self, url: str) -> None:
        """A fresh load of `url` (from a blank page: a URL that only adds a #fragment is a load too), until its
        load event, as --dump-dom waits for it."""
        for address in ("about:blank", url):
            self.call("Page.navigate", url=address)
            for _ in range(600):
                state = self.call("Runtime.evaluate", expression="[location.href, document.readyState]",
                                  returnByValue=True)["result"]["value"]
                if state == [address, "complete"]:
                    break
                time.sleep(0.01)
            else:
                raise AssertionError(f"{address} did not load: {state}")

    def dom(self, url: str) -> str:
        """The page's DOM after its load, serialized as `chromium --dump-dom` prints it."""
        self.load(url)
        return self.call("Runtime.evaluate", expression="document.documentElement.outerHTML",
                         returnByValue=True)["result"]["value"]

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except AssertionError:
            pass  # closed before it answered
        try:
            self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            os.close(self._to_browser)
            os.close(self._from_browser)


def test_the_page_in_a_headless_browser(project, tmp_path):
    page = tmp_path / "report.html"
    page.write_text(build(project))
    url = page.as_uri()
    browser = _Browser(tmp_path)
    try:
        dom = browser.dom(url)
        assert "7 of 7 entries shown" in dom  # the page's own script ran
        for text in ("the integration tests need Postgres 16 on port 5433", "we chose uv for the lockfile",
                     "&lt;script&gt;alert(\"x\")&lt;/script&gt;"):
            assert text in dom
        assert "alert(\"x\")</script>" not in dom  # markup in an entry stayed text in the rendered page
        filtered = browser.dom(url + "?q=postgres%205433")
        assert "1 of 7 entries shown" in filtered
        rows = re.findall(r"<tr data-text=\"[^\"]*\"( hidden=\"\")?>", filtered)
        assert len(rows) == 7 and rows.count(' hidden=""') == 6
        by_flag = browser.dom(url + "#q=stale")
        assert "1 of 7 entries shown" in by_flag
        browser.call("Emulation.setDeviceMetricsOverride", width=1200, height=1600, deviceScaleFactor=1, mobile=False)
        browser.load(url)
        shot = base64.b64decode(browser.call("Page.captureScreenshot", format="png")["data"])
        assert shot[:8] == b"\x89PNG\r\n\x1a\n" and len(shot) > 20_000
    finally:
        browser.close()


def test_a_stale_check_git_cannot_answer_is_no_all_clear(project, monkeypatch):
    """Before: `Stale (0)` when git could not list the repository (none, or past its timeout)."""
    from memory.search import stale

    monkeypatch.setattr(stale, "_git", lambda root, args: None)
    page = build(project)
    assert "<h2>Stale (not checked)</h2>" in page and "Stale (0)" not in page and "Not checked: git" in page
