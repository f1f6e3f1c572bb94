"""Redaction both ways: realistic credentials of every format go, look-alikes stay."""
import random
import re
import string

import pytest

from memory.redact import redact, scrub_record

_rng = random.Random(7)


def rand(n, alphabet=string.ascii_letters + string.digits):
    return "".join(_rng.choice(alphabet) for _ in range(n))


SECRETS = {
    "aws_access_key_id": f"export AWS_ACCESS_KEY_ID=AKIA{rand(16, string.ascii_uppercase + string.digits)}",
    "aws_secret_access_key": f"aws_secret_access_key = {rand(40, string.ascii_letters + string.digits + '/+')}",
    "github_token": f"git clone https://x-access-token@github.com with ghp_{rand(36)}",
    "gitlab_token": f"GITLAB=glpat-{rand(20)}",
    "slack_token": f"slack bot xoxb-{rand(11, string.digits)}-{rand(12, string.digits)}-{rand(24)}",
    "slack_webhook": f"post to https://hooks.slack.com/services/T{rand(8, string.ascii_uppercase)}/B{rand(8, string.ascii_uppercase)}/{rand(24)}",
    "anthropic_key": f"ANTHROPIC_API_KEY is sk-ant-api03-{rand(80, string.ascii_letters + string.digits + '_-')}",
    "openai_key": f"key sk-proj-{rand(60, string.ascii_letters + string.digits + '_-')}",
    "stripe_key": f"stripe sk_live_{rand(24)}",
    "google_api_key": f"maps AIza{rand(35, string.ascii_letters + string.digits + '_-')}",
    "npm_token": f"//registry.npmjs.org/:_authToken=npm_{rand(36)}",
    "pypi_token": f"twine upload -p pypi-AgEIcHlwaS5vcmc{rand(60, string.ascii_letters + string.digits + '_-')}",
    "jwt": "cookie eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
           "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "private_key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
                   "-----END OPENSSH PRIVATE KEY-----",
    "authorization": f'curl -H "Authorization: Bearer {rand(40)}" https://api.example.com',
    "url_credentials": "DATABASE_URL=postgres://app:S3cr3tP4ss@db.internal:5432/app",
    "secret_assignment": f'client config: password="{rand(16)}!"',
}

HARMLESS = [
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed the race",
    "request id 123e4567-e89b-12d3-a456-426614174000 timed out",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "bump to v1.2.3-rc.1, then 2.0.0+build.5",
    "edit /usr/local/lib/python3.11/site-packages/pkg/module.py line 40",
    "set color: #ff00aa; background: #1e1e1e",
    "Use Bearer tokens for the API and rotate them weekly.",
    "the sk-learn-pipeline-configuration option",
    "password=$DB_PASSWORD comes from the environment",
    "token=<your-token-here> in the template",
    "api_key: ${API_KEY}",
    "git@github.com:org/repo.git is the remote",
    "passwords must be at least 12 characters",
    "TaskGroup requires @Sendable closures in strict concurrency mode.",
    "https://example.com/path?page=2&sort=desc",
]


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_credential_format_is_redacted(kind):
    text, found = redact(SECRETS[kind])
    assert kind in found, (kind, text)
    assert f"<redacted:{kind}>" in text


def test_secret_value_is_gone():
    for kind, sample in SECRETS.items():
        text, _ = redact(sample)
        # every run of 12+ random-looking characters in the sample is part of its secret
        runs = [w for w in re.findall(r"[A-Za-z0-9_/+-]{12,}", sample) if any(c.isdigit() for c in w)
                and any(c.isupper() for c in w) and any(c.islower() for c in w)]
        for run in runs:
            assert run not in text, (kind, run, text)


@pytest.mark.parametrize("sample", HARMLESS)
def test_lookalikes_pass_untouched(sample):
    assert redact(sample) == (sample, [])


def test_redaction_is_idempotent():
    text, _ = redact(SECRETS["github_token"])
    assert redact(text) == (text, [])


def test_scrub_record_walks_nested_values_and_merges_types():
    record = {"prompt": SECRETS["stripe_key"], "nested": [{"x": SECRETS["npm_token"]}], "redacted": ["jwt"]}
    clean = scrub_record(record)
    assert SECRETS["stripe_key"].split("_")[-1] not in str(clean)
    assert SECRETS["npm_token"].split("npm_")[-1] not in str(clean)
    assert clean["redacted"] == ["jwt", "npm_token", "stripe_key"]
