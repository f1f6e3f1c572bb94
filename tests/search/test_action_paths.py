"""Which entries are about a file: path, name, folder, extension, area words, kind, provenance
(memory.search.action_paths, over the map memory.search.path_cues builds)."""
from memory.search import action_paths, path_cues
from memory.store import entry


def about(entries, rel, bar=2.0):
    return [content for _, _, _, content, _ in action_paths.about(path_cues.build(entries), rel, bar)]


def e(text, **extra):
    return dict(entry.build(text, "BD-1", "x"), **extra)


def test_each_kind_of_cue():
    entries = [e("src/api/routes.py registers routes twice."), e("routes.py is generated."),
               e("Everything under alembic/versions/ is reviewed by the DBA."),
               e("Alembic autogenerate misses server defaults."),
               e("Run *.tsx through the type checker before committing."),
               e("__init__.py files stay empty.")]
    assert about(entries, "src/api/routes.py") == [entries[0]["content"], entries[1]["content"]]
    assert about(entries, "other/routes.py") == [entries[1]["content"]]
    assert about(entries, "alembic/versions/12_add.py") == [entries[2]["content"], entries[3]["content"]]
    assert about(entries, "web/Header.tsx") == []  # an extension alone is below the bar
    assert about(entries, "web/Header.tsx", bar=1.0) == [entries[4]["content"]]
    assert about(entries, "pkg/__init__.py") == []  # a name every package has: weak


def test_provenance_files():
    entries = [e("Refunds are rounded in the service.", files=["payments/refund_service.py", "payments/views.py"],
                 edited=["payments/refund_service.py"])]
    assert about(entries, "payments/refund_service.py") == [entries[0]["content"]]
    assert about(entries, "payments/other.py") == []


def test_a_file_the_session_only_read_needs_another_cue_and_one_it_changed_does_not():
    """A session reads several files (AGENTS.md, a neighbour, a config) before it records what it learned about one:
    a file it only read brings the entry only with something else saying so (a word of its path), one it changed
    brings it alone. Entries recorded before `edited` existed count every file as read."""
    note = "Prisma migrations need a fresh client: run yarn prisma generate."
    entries = [e(note, files=["packages/prisma/schema.prisma", "AGENTS.md", "apps/web/lib/booking.ts"],
                 edited=["apps/web/lib/booking.ts"])]
    assert about(entries, "apps/web/lib/booking.ts", bar=2.5) == [note]  # changed: alone
    assert about(entries, "AGENTS.md", bar=2.5) == []  # only read, nothing else says so
    assert about(entries, "packages/prisma/schema.prisma", bar=2.5) == [note]  # only read, and its words say so
    older = [e(note, files=["apps/web/lib/booking.ts"])]  # no `edited`: read
    assert about(older, "apps/web/lib/booking.ts", bar=2.5) == []


def test_a_word_most_entries_have_says_nothing():
    entries = [e(f"python note {i}: the worker pool sizes itself.") for i in range(30)]
    entries.append(e("The billing worker retries on python 3.9 only."))
    assert about(entries, "billing/charge.py") == [entries[-1]["content"]]  # billing: rare, a folder word
    assert about(entries, "tools/run.py", bar=1.0) == []  # `python` is in most entries: not a kind cue here


def test_test_files_bring_test_framework_entries():
    entries = [e("pytest fixtures here must not touch the network."),
               e("Jest snapshots are regenerated with -u only after review.")]
    assert about(entries, "tests/test_api.py", bar=1.0) == [entries[0]["content"]]
    assert about(entries, "web/api.test.ts", bar=1.0) == [entries[1]["content"]]
    assert about(entries, "web/api.ts", bar=1.0) == []


def test_relative_paths():
    assert action_paths.relative("/repo/Src/A.py", "/repo") == "src/a.py"
    assert action_paths.relative("/other/a.py", "/repo") == "other/a.py"
    assert action_paths.relative("./b/c.md", "/repo") == "b/c.md"
