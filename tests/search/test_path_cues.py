"""memory.search.path_cues: what an entry's text names (the cues the map is built from)."""
from memory.search import path_cues


def test_mentions_are_paths_not_urls_or_versions():
    files, folders, exts, prose = path_cues._mentions(
        "See src/api/routes.py and ./Makefile, the `migrations` folder, tests/e2e/ and *.tsx files; not "
        "https://example.com/a.py, not v1.2.3, not e.g. this.")
    assert files == {"src/api/routes.py", "makefile"}
    assert folders == {"tests/e2e", "migrations"} and exts == {"tsx"}
    assert "routes.py" not in prose and "the `migrations` folder" in prose
