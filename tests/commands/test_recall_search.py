"""memory.commands.recall_search: the byte-level keyword path agrees with parsing every line."""
import json
import shutil

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.commands import recall_search
from memory.core import jsonio, textmatch
from memory.store import store

# the in-process twin of the class: the byte-level fast path must agree with parsing every line
_ALPHABET = "aSsKkIiflt \"\\/-" + "".join(recall_search.FOLDS_TO_ASCII) + "éΣσςａＡ\u0301\u00a0"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.text(_ALPHABET, min_size=1, max_size=12), min_size=1, max_size=6),
       keyword=st.text(_ALPHABET, min_size=1, max_size=4), escaped=st.lists(st.booleans(), min_size=6, max_size=6))
def test_fast_path_agrees_with_full_parse(tmp_path, texts, keyword, escaped):
    memory = tmp_path / "m"
    shutil.rmtree(memory, ignore_errors=True)
    memory.mkdir()
    with open(memory / store.ACTIVE, "wb") as fh:
        for i, text in enumerate(texts):
            item = {"key": f"k{i % 3}-{text}", "type": "learned", "content": text, "source": "o", "tags": [text],
                    "ts": i, "bead": "B"}
            fh.write((json.dumps(item) + "\n").encode() if escaped[i] else jsonio.dumps_line(item))
    terms = textmatch.terms_of([keyword])
    if not terms:
        return
    full = recall_search.select(store.latest(store.load(str(memory)).entries), terms, None, None)
    assert recall_search.search(str(memory), terms, None, None, False)[0] == full


def test_folds_to_ascii_is_complete():
    """Every character whose fold holds ASCII (or vanishes) is listed, or the fast path would miss its lines."""
    import sys
    import unicodedata

    def folds_to_ascii(char):
        folded = textmatch.fold(char)
        return folded == "" or any(c < "\x80" for c in folded)

    found = {chr(c) for c in range(0x80, sys.maxunicode + 1) if not 0xD800 <= c < 0xE000 and folds_to_ascii(chr(c))}
    missing = sorted(found - set(recall_search.FOLDS_TO_ASCII))
    assert not missing, (unicodedata.unidata_version, missing)
