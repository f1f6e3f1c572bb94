"""The shared protocol check must catch what it exists for: any stdout a runtime would misread."""
import pytest

from helpers import assert_protocol


@pytest.mark.parametrize("out", [b"oops", b"{}", b'{"a":1}', b'{"additional_context":"x"}{"x":1}', b'[1]',
                                 b'{"decision":"approve","reason":"x"}',
                                 b'{"hookSpecificOutput":{"hookEventName":"X"}}', b'  oops'])
def test_rejects(out):
    with pytest.raises((AssertionError, ValueError)):
        assert_protocol(out)
@pytest.mark.parametrize("out", [b"", b'{"additional_context":"x"}',
                                 b'{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x"}}',
                                 b'{"decision":"block","reason":"r"}'])
def test_accepts(out):
    assert_protocol(out)
