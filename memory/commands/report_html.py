"""The HTML of memory-doctor --report: one static page, nothing fetched (no server, no network, no external
asset; a Content-Security-Policy that forbids any), every piece of entry text escaped (entries are untrusted).

The filter box hides table rows whose text lacks every typed word; `?q=words` (or `#q=words`) in the page's
address fills it in, so a link (or a headless browser) can open the page filtered.
"""
from __future__ import annotations

import html
import shlex
import time

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

RECALL = ".beads/memory/recall.sh"
CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;color:#1d1d1f}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.8em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #eee;padding:4px 6px;text-align:left;
vertical-align:top}th{background:#f6f6f6}.counts{display:flex;flex-wrap:wrap;gap:1.5em}.counts table{width:auto}
code,pre{font:12px ui-monospace,monospace}pre{background:#f6f6f6;padding:.8em;white-space:pre-wrap}
.flag{display:inline-block;border-radius:3px;padding:0 4px;margin-right:3px;font-size:11px;background:#eee}
.stale{background:#fde2c8}.duplicate{background:#e8dcfb}.redacted{background:#fbd3d3}.pinned{background:#d3ecfb}
.used{background:#d8f3d8}#q{font-size:1em;padding:4px 8px;width:24em}.cmd{white-space:nowrap;font-size:11px}
"""
SCRIPT = """
(function () {
  var box = document.getElementById('q'), shown = document.getElementById('shown');
  var rows = Array.prototype.slice.call(document.querySelectorAll('#entries tbody tr'));
  function apply() {
    var words = box.value.toLowerCase().split(/\\s+/).filter(Boolean), n = 0;
    rows.forEach(function (row) {
      var text = row.getAttribute('data-text');
      var hit = words.every(function (w) { return text.indexOf(w) >= 0; });
      row.hidden = !hit; if (hit) { n++; }
    });
    shown.textContent = n + ' of ' + rows.length + ' entries shown';
  }
  var asked = new URLSearchParams(location.search).get('q') ||
              new URLSearchParams(location.hash.replace(/^#/, '')).get('q');
  if (asked) { box.value = asked; }
  box.addEventListener('input', apply);
  apply();
})();
"""


GENERATOR = '<meta name="generator" content="memory-hooks report">'  # what --report may overwrite

def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def command(flag: str, key: str) -> str:
    return f"{RECALL} {flag} {shlex.quote(key)}"


def counts_table(title: str, counter: Iterable[tuple[str, int]]) -> str:
    rows = "".join(f"<tr><td>{esc(name)}</td><td>{count}</td></tr>" for name, count in counter)
    return f"<table><tr><th>{esc(title)}</th><th>entries</th></tr>{rows or '<tr><td>-</td><td>0</td></tr>'}</table>"


def growth_svg(points: list[tuple[float, int]], width: int = 640, height: int = 180) -> str:
    """Cumulative entries over time as an inline SVG line, a dot at the end of each day that added some."""
    if not points:
        return "<p>No entries yet.</p>"
    left, bottom = 48, 28
    t0, t1 = points[0][0], max(points[-1][0], points[0][0] + 86400)
    top = max(n for _, n in points)
    xy = [(left + (t - t0) / (t1 - t0) * (width - left - 10), height - bottom - n / top * (height - bottom - 12))
          for t, n in points]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
    dots = "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="#2a6fdb"/>' for x, y in xy[1:])
    day = lambda t: time.strftime("%Y-%m-%d", time.gmtime(t))  # noqa: E731
    last = day(t1 - 1)  # t1 is the end of the newest entry's day: midnight, which is the next day's date
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
            f'aria-label="entries over time"><title>{top} entries, {esc(day(t0))} to {esc(last)}</title>'
            f'<line x1="{left}" y1="{height - bottom}" x2="{width - 10}" y2="{height - bottom}" stroke="#999"/>'
            f'<line x1="{left}" y1="8" x2="{left}" y2="{height - bottom}" stroke="#999"/>'
            f'<polyline fill="none" stroke="#2a6fdb" stroke-width="2" points="{line}"/>'
            f"{dots}"
            f'<text x="{left - 6}" y="16" text-anchor="end" font-size="11">{top}</text>'
            f'<text x="{left - 6}" y="{height - bottom}" text-anchor="end" font-size="11">0</text>'
            f'<text x="{left}" y="{height - 8}" font-size="11">{esc(day(t0))}</text>'
            f'<text x="{width - 10}" y="{height - 8}" text-anchor="end" font-size="11">{esc(last)}</text></svg>')


def entry_row(entry: dict, topic: str, age: str, flags: list[str]) -> str:
    key = str(entry.get("key"))
    content = str(entry.get("content", ""))
    searchable = " ".join([key, str(entry.get("type", "")), topic, str(entry.get("bead", "")), content, *flags])
    commands = "<br>".join(f"<code>{esc(command(flag, key))}</code>" for flag in ("--pin", "--forget", "--redact"))
    badges = "".join(f'<span class="flag {esc(f)}">{esc(f)}</span>' for f in flags)
    return (f'<tr data-text="{esc(searchable.lower())}"><td><code>{esc(key)}</code><br>{badges}</td>'
            f"<td>{esc(entry.get('type', ''))}</td><td>{esc(topic)}</td><td>{esc(entry.get('bead') or '-')}</td>"
            f"<td>{esc(age)}</td><td>{esc(content)}</td><td class=\"cmd\">{commands}</td></tr>")


def page(title: str, sections: list[tuple[str, str]], rows: list[str]) -> str:
    """The whole document: the sections (heading, ready HTML) then the filterable table of entries."""
    body = "".join(f"<h2>{esc(heading)}</h2>{content}" for heading, content in sections)
    table = ('<h2>Entries</h2><p><input id="q" type="search" placeholder="filter: words in key, text, topic, bead, '
             'flag" aria-label="filter entries"> <span id="shown"></span></p>'
             '<table id="entries"><thead><tr><th>key</th><th>type</th><th>topic</th><th>bead</th><th>age</th>'
             f'<th>text</th><th>commands</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">{GENERATOR}'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{esc(title)}</title>'
            f"<style>{STYLE}</style></head><body><h1>{esc(title)}</h1>{body}{table}"
            f"<script>{SCRIPT}</script></body></html>\n")
