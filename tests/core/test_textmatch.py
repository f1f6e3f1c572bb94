"""memory.core.textmatch: the word index's definitions agree with the substring search they stand in for."""
import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from memory.core import textmatch


def test_word_part_decides_word_characters_as_re_does():
    """`\\w` (the index's words, via re) and isalnum-or-underscore (the query side, without re) are the same
    set of characters, for every code point this Python knows."""
    word = re.compile(r"\w")
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        assert bool(word.match(char)) == (textmatch.word_part(char) == char), hex(code)


@settings(max_examples=400)
@given(text=st.text(), term=st.text(min_size=1).filter(lambda t: not any(c.isspace() for c in t)))
def test_a_text_holding_a_term_holds_its_word_part_inside_one_of_its_words(text, term):
    text, term = textmatch.fold(text), textmatch.fold(term)
    if term and term in text:
        part = textmatch.word_part(term)
        assert part == "" or any(part in word for word in textmatch.words(text))


@settings(max_examples=400)
@given(values=st.lists(st.text(), min_size=1, max_size=5), tags=st.lists(st.text(), max_size=3),
       terms=st.lists(st.text(min_size=1).filter(lambda t: not any(c.isspace() for c in t)), max_size=3))
def test_matches_is_the_haystack_search(values, tags, terms):
    entry = dict(zip(("content", "key", "bead"), values), tags=tags)
    folded = [textmatch.fold(t) for t in terms]
    assert textmatch.matches(entry, folded) == all(t in textmatch.haystack(entry) for t in folded)
