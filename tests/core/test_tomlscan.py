"""memory.core.tomlscan: the tables of Codex CLI's config.toml as the doctor reads them."""
from memory.core import tomlscan

CONFIG = '''model = "gpt-5" # the default
features.codex_hooks = false

[projects."/home/a/app"]
trust_level = "trusted"

[features]
web_search = true

[hooks.state."/home/a/app/.codex/hooks.json:stop:0:0"]
trusted_hash = "sha256:ab12"
enabled = false

[hooks.state]
"/home/a/app/.codex/hooks.json:session_start:0:0" = { trusted_hash = "sha256:cd, 34", enabled = true }

[[profiles.x.hooks]]
hooks = false
[model_providers.fake]
name = 'fake'
'''


def test_headers_dotted_keys_and_inline_tables():
    found = tomlscan.tables(CONFIG)
    assert found[()] == {"model": "gpt-5"}
    assert found[("features",)] == {"codex_hooks": "false", "web_search": "true"}
    assert found[("projects", "/home/a/app")] == {"trust_level": "trusted"}
    assert found[("hooks", "state", "/home/a/app/.codex/hooks.json:stop:0:0")] == {
        "trusted_hash": "sha256:ab12", "enabled": "false"}
    assert found[("hooks", "state", "/home/a/app/.codex/hooks.json:session_start:0:0")] == {
        "trusted_hash": "sha256:cd, 34", "enabled": "true"}
    assert found[("model_providers", "fake")] == {"name": "fake"}
    assert ("profiles", "x", "hooks") not in found  # an array of tables: not read


def test_what_is_not_toml_is_skipped():
    assert tomlscan.tables("= 3\nkey = \n[[[\nc = 2\n[a b]\nd = 4\n\x00") == {(): {"key": ""}}


def test_escapes_toml_has_and_json_lacks():
    """`\\UXXXXXXXX` (TOML's 8-digit escape) is the character it names; an escape neither knows (`\\e` is TOML
    1.1's) stays as written; neither raises."""
    found = tomlscan.tables('[projects."/home/caf\\U000000e9"]\ntrust_level = "trusted"\n'
                            '["a\\eb"]\nk = "\\U0001F600"\n')
    assert found[("projects", "/home/caf\u00e9")] == {"trust_level": "trusted"}
    assert found[("a\\eb",)] == {"k": "\U0001F600"}
