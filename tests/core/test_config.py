"""Project settings: config.json over the defaults, only values of the default's type."""
import json

import pytest

from memory.core import config


@pytest.mark.parametrize("text, expected", [
    (None, config.DEFAULTS["prompt_budget_tokens"]),
    ('{"prompt_budget_tokens": 800}', 800),
    ('{"prompt_budget_tokens": "800"}', config.DEFAULTS["prompt_budget_tokens"]),
    ('{"prompt_budget_tokens": true}', config.DEFAULTS["prompt_budget_tokens"]),
    ("not json", config.DEFAULTS["prompt_budget_tokens"]),
    ("[1, 2]", config.DEFAULTS["prompt_budget_tokens"]),
])
def test_values_of_the_right_type_override(tmp_path, text, expected):
    if text is not None:
        (tmp_path / "config.json").write_text(text)
    assert config.load(str(tmp_path))["prompt_budget_tokens"] == expected


def test_booleans_and_unknown_keys(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"semantic": True, "nonsense": 1}))
    loaded = config.load(str(tmp_path))
    assert loaded["semantic"] is True and "nonsense" not in loaded


def test_budget_chars_is_capped_below_the_runtime_limit():
    assert config.budget_chars(500) == 2000
    assert config.budget_chars(10**6) == config.MAX_INJECTED_CHARS < 10_000
