"""memory.search.grounded: a ranked entry passes only when it holds a rare word of the part that matters."""
from helpers import make_repo
from memory.search import grounded
from memory.search.tokenize import terms
from memory.store import entry, store

HOW = "Run the vitest suite with yarn vitest run from the repository root."
SLOTS = "Hourly slots in the vitest suite shift by the UTC offset unless TZ=UTC is set."


def knowledge(tmp_path):
    memory = str(make_repo(tmp_path / "app") / ".beads" / "memory")
    store.append(memory, [entry.build(HOW, "BD-1", "x"), entry.build(SLOTS, "BD-2", "x")]
                 + [entry.build(f"The {w} service keeps its own queue.", f"BD-{3 + i}", "x")
                    for i, w in enumerate(("billing", "search", "mailer", "auth", "cache", "export"))])
    return memory


def contents(found):
    return [s.entry["content"] for s in found]


def test_only_entries_holding_a_rare_grounding_word_pass(tmp_path):
    memory = knowledge(tmp_path)
    words = terms("yarn vitest run hourly slots shifted")
    found = grounded.passing(memory, words, terms("hourly slots shifted"), 0.1, 1, 0.08, 5)
    assert contents(found) == [SLOTS]  # HOW matches the command's words, not the error's
    assert grounded.passing(memory, words, terms("collapses separators"), 0.1, 1, 0.08, 5) == []
    assert grounded.passing(memory, terms("nothing known here"), words, 0.1, 1, 0.08, 5) == []


def test_a_word_most_entries_hold_grounds_nothing(tmp_path):
    memory = knowledge(tmp_path)
    words = terms("service queue")  # in 6 of 8 entries
    assert grounded.passing(memory, words, words, 0.0, 1, 0.08, 5) == []
    assert len(grounded.passing(memory, words, words, 0.0, 1, 1.0, 5)) == 5  # every entry may ground


def test_an_entry_holding_several_rare_words_passes_at_the_lower_bar(tmp_path):
    """`weighty`: below the bar, an entry passes only when the rare words it holds weigh two words one entry
    holds (hourly, slots, offset: SLOTS); a word two entries hold (suite: HOW and SLOTS) is not enough."""
    memory = knowledge(tmp_path)
    said = terms("hourly slots shifted by an offset in the suite today")
    words = terms("yarn vitest run") + said
    assert grounded.passing(memory, words, said, 0.99, 1, 0.08, 5) == []  # nothing reaches this bar
    found = grounded.passing(memory, words, said, 0.99, 1, 0.08, 5, weighty=(0.0, 2.0))
    assert contents(found) == [SLOTS]
    assert grounded.passing(memory, words, said, 0.99, 1, 0.08, 5, weighty=(0.98, 2.0)) == []  # the lower bar holds
    suite = terms("the suite today")
    assert grounded.passing(memory, words, suite, 0.99, 1, 0.08, 5, weighty=(0.0, 1.0)) == []  # suite: 2 holders
    assert len(grounded.passing(memory, words, suite, 0.99, 1, 0.08, 5, weighty=(0.0, 0.8))) == 2
