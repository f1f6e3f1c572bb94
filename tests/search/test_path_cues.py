"""memory.search.path_cues: what an entry's text names (the cues the map is built from)."""
from memory.search import path_cues


def test_mentions_are_paths_not_urls_or_versions():
    files, folders, exts, prose = path_cues._mentions(
        "See src/api/routes.py and ./Makefile, the `migrations` folder, tests/e2e/ and *.tsx files; not "
        "https://example.com/a.py, not v1.2.3, not e.g. this.")
    assert files == {"src/api/routes.py", "makefile"}
    assert folders == {"tests/e2e", "migrations"} and exts == {"tsx"}
    assert "routes.py" not in prose and "the `migrations` folder" in prose


def test_a_large_archive_without_its_part_is_read_in_the_background_and_mapped_from_the_next_event(tmp_path,
                                                                                                    monkeypatch):
    """A hook never reads a large archive (memory.store.archived): while no part is kept for it (a pull changed
    it, no session start since), the map is built without it and not saved, and a detached process reads it;
    the events after that map it (before, every event rebuilt the map until the next session start: 0.3 s each)."""
    import json
    import os
    import time

    from memory.core import layout
    from memory.search import action_paths, index
    from memory.store import archived, entry, store
    from memory.surface import start_cache

    d = str(tmp_path / "m")
    store.append(d, [entry.build("src/api/routes.py registers every route twice", "BD-1", "orchestrator")])
    with open(os.path.join(d, layout.ARCHIVE), "w") as fh:
        fh.write(json.dumps(entry.build("alembic/env.py must import every model", "BD-2", "orchestrator")) + "\n")
    monkeypatch.setattr(archived, "INLINE_BYTES", 10)
    time.sleep(start_cache.RACY_NS / 1e9 + 0.02)
    fp = action_paths.fingerprint(d)
    jobs = []
    monkeypatch.setattr(index, "in_background", lambda memory_dir, job: jobs.append(job) or False)

    def about(rel):
        return [hit[1] for hit in action_paths.about(path_cues.load(d, fp), rel, 2.5)]

    assert about("alembic/env.py") == [] and len(about("src/api/routes.py")) == 1 and len(jobs) == 2
    assert not os.path.exists(os.path.join(d, layout.PATH_CUES))  # without the archive: not kept
    jobs[0]()  # what the detached process does
    assert len(about("alembic/env.py")) == 1 and os.path.exists(os.path.join(d, layout.PATH_CUES))
    assert len(start_cache.live_view(d).latest) == 2  # session start takes the part and computes its view


def test_a_rebuild_draws_the_cues_of_new_and_changed_entries_only(tmp_path, monkeypatch):
    """After a capture the map is built again on the next file event: every entry's mentions and words were read
    again (45 ms at 1,000 entries, twice that with the archive's); the entries' cues are kept with the map, so
    only the new entry's are drawn, and an upgrade of the rules draws them all again."""
    from memory.search import action_paths
    from memory.store import entry, store

    d = str(tmp_path / "m")
    store.append(d, [entry.build(f"note {i} about src/mod{i}.py", "BD-1", "orchestrator") for i in range(20)])
    first = path_cues.load(d, action_paths.fingerprint(d))
    drawn = []
    real = path_cues.entry_cues
    monkeypatch.setattr(path_cues, "entry_cues", lambda e: drawn.append(e["content"]) or real(e))
    store.append(d, [entry.build("a new note about src/new.py", "BD-2", "orchestrator")])
    again = path_cues.load(d, action_paths.fingerprint(d))
    assert drawn == ["a new note about src/new.py"]
    assert {k: v for k, v in again.items() if k not in ("fp", "n", "entries", "names", "words")} == \
        {k: v for k, v in first.items() if k not in ("fp", "n", "entries", "names", "words")}
    fresh = path_cues.build(store.latest(store.load(d).entries))
    assert again["names"] == fresh["names"] and again["words"] == fresh["words"]  # the same map as drawn afresh
    monkeypatch.setattr(path_cues, "_rules", lambda: ("another version",))
    store.append(d, [entry.build("one more note", "BD-3", "orchestrator")])
    drawn.clear()
    path_cues.load(d, action_paths.fingerprint(d))
    assert len(drawn) == 22  # all again


def test_a_rebuild_screens_only_the_texts_the_screen_has_not_seen(tmp_path, monkeypatch):
    """The map leaves held entries out, so building it screens the live entries; it took the screen's verdicts
    from its machine-local cache (knowledge.screen) no more than session start does: the first Read after a
    capture screened every entry again (5 s at 1,000 entries of 2,000 characters, against a 10 s timeout)."""
    from memory.search import action_paths
    from memory.store import entry, screen, store

    d = str(tmp_path / "m")
    store.append(d, [entry.build(f"note {i} about src/mod{i}.py", "BD-1", "orchestrator") for i in range(20)])
    path_cues.load(d, action_paths.fingerprint(d))
    screened = []
    real = screen._screen
    monkeypatch.setattr(screen, "_screen", lambda text: screened.append(text) or real(text))
    monkeypatch.setattr(screen, "_verdicts", {})  # this process's memo: as in a new hook process
    store.append(d, [entry.build("a new note about src/new.py", "BD-2", "orchestrator")])
    path_cues.load(d, action_paths.fingerprint(d))
    assert screened == ["a new note about src/new.py"]
