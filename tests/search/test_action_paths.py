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


def test_a_compound_folder_named_alone_is_that_folder_and_its_words_count_once():
    """A crate or package is named alone (`uv-auth` is crates/uv-auth/): that names the folder. Its parts'
    words (auth) are that same name, so an entry that names it among others gets the folder's weight only,
    not the folder's plus its words'."""
    keyring = e("Keyring support is in `uv-keyring` and netrc support in `uv-auth`.")
    layers = e("Lower layers never depend on higher ones: `uv-fs`, `uv-normalize` first, `uv-client` later.")
    guide = e("Refer to the DataTable guide at `packages/features/data-table/GUIDE.md` for its patterns.")
    common = [e(f"uv {i} refreshes the auth and data caches on sync.") for i in range(6)]  # words too common to count
    entries = [keyring, layers, guide, *common]
    assert about(entries, "crates/uv-auth/src/keyring.rs", bar=2.5) == [keyring["content"]]  # folder + name
    assert about(entries, "crates/uv-normalize/src/package_name.rs", bar=2.5) == []  # the folder alone
    assert about(entries, "crates/uv-normalize/src/package_name.rs", bar=2.0) == [layers["content"]]
    assert about(entries, "packages/features/data-table/components/DataTable.tsx".lower(), bar=2.5) == \
        [guide["content"]]


def test_a_module_path_names_its_file_without_the_extension():
    routes = e("Alerting routes: `/alerting/list` rules list, `/alerting/routes` notification policies.")
    entries = [routes, e("Other notes about the list view."), e("Nothing else.")]
    assert about(entries, "public/app/features/alerting/routes.tsx", bar=4.0) == [routes["content"]]
    assert about(entries, "public/app/features/other/routes.tsx", bar=2.5) == []


def test_a_file_named_after_a_compound_folder_still_counts_its_name():
    """`oauth-clients/oauth-client.repository.ts`: with the folder named by its compound (`OAuthClient`), its
    words (oauth, client) are the file name's, and count as such."""
    tables = e("Two OAuth client tables: `OAuthClient` for apps, `PlatformOAuthClient` for the platform.")
    entries = [tables, e("Bookings are paged by cursor."), e("Webhooks retry three times.")]
    assert about(entries, "apps/api/v2/src/modules/oauth-clients/oauth-client.repository.ts", bar=3.5) == \
        [tables["content"]]


def test_a_workspace_folder_says_nothing_about_the_area():
    """`crates/` holds every crate of a Rust workspace, as `packages/` does a JS one: its word is no area."""
    release = e("Crates are published by the release job, never by hand.")
    entries = [release, e("The billing worker retries twice."), e("Tokens expire after an hour.")]
    assert about(entries, "crates/uv-resolver/src/pubgrub.rs", bar=1.0) == []
    assert about(entries, "release/notes.md", bar=2.0) == [release["content"]]  # an area word still counts
