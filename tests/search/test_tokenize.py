"""memory.search.tokenize: identifiers split every way a prompt may spell them, stop words out, one stem per family."""
from __future__ import annotations

import pytest

from memory.search.tokenize import raw_terms, stem, terms


@pytest.mark.parametrize("text, expected", [
    ("src/api/routes.py", ["src", "api", "routes", "py"]),
    ("useEffect", ["use", "effect", "useeffect"]),
    ("HTTPServerError", ["http", "server", "error", "httpservererror"]),
    ("max_retries", ["max", "retries", "maxretries"]),
    ("max-retries", ["max", "retries", "maxretries"]),
    ("MaxRetries", ["max", "retries", "maxretries"]),
    ("os.path.join", ["os", "path", "join"]),
    ("C:\\Users\\me\\app.ts", ["c", "users", "me", "app", "ts"]),
    ("python3 v2", ["python", "3", "python3", "v", "2", "v2"]),
    ("BD-12", ["bd", "12", "bd12"]),
    ("émoji café", ["émoji", "café"]),  # a word in any script is a word
    ("Никогда не храните пароли", ["никогда", "не", "храните", "пароли"]),
    ("über-Größe", ["über", "größe", "übergröße"]),
    ("परीक्षण सर्वर", ["परीक्षण", "सर्वर"]),  # the vowel signs are part of the word, not breaks in it
    ("测试服务器 ::1", ["测试", "试服", "服务", "务器", "1"]),  # unspaced scripts: pairs of characters
    ("テスト用", ["テス", "スト", "ト用"]),
    ("ทดสอบ", ["ทด", "ดส", "สอ", "อบ"]),
    ("QA-тест", ["qa", "тест", "qaтест"]),
    ("", []),
    ("  ,;!  ", []),
])
def test_raw_terms_split_identifiers_and_keep_the_whole(text, expected):
    assert raw_terms(text) == expected


@pytest.mark.parametrize("family", [
    ["cache", "caches", "cached", "caching", "cacheable"],
    ["migrate", "migrated", "migration", "migrations"],
    ["configure", "configured", "configuration"],
    ["dependency", "dependencies", "depend", "dependent"],
    ["install", "installed", "installing", "installation"],
    ["query", "queries", "queried"],
    ["retry", "retries", "retried", "retrying"],
    ["compile", "compiled", "compiler", "compilation"],
    ["optimize", "optimized", "optimization"],
    ["rotate", "rotated", "rotation", "rotating"],
])
def test_stem_gives_one_form_per_family(family):
    assert len({stem(word) for word in family}) == 1, {word: stem(word) for word in family}


@pytest.mark.parametrize("distinct", [("user", "use"), ("test", "text"), ("client", "cli"), ("local", "loc"),
                                      ("index", "indent"), ("build", "built")])
def test_stem_keeps_different_words_apart(distinct):
    assert stem(distinct[0]) != stem(distinct[1])


def test_terms_drop_stop_words_and_single_letters_and_lowercase():
    assert terms("How do I make the Tests pass in a CI pipeline?") == ["test", "pass", "ci", "pipelin"]


def test_every_spelling_of_an_identifier_meets_the_others():
    spellings = ["maxRetries", "max_retries", "max-retries", "MAX_RETRIES", "max retries"]
    term_sets = [set(terms(s)) for s in spellings]
    assert all({"max", stem("retries")} <= t for t in term_sets)
    assert all(stem("maxretries") in t for t in term_sets[:4])  # the whole identifier, in every spelling


def test_terms_are_deterministic_and_order_preserving():
    text = "Rebuild the index when knowledge.jsonl rotates; see memory/search/index.py"
    assert terms(text) == terms(text)
    assert terms(text)[0] == stem("rebuild")
