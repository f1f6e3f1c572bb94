#!/usr/bin/env python3
"""The redactor on its development set: recall on secrets, on secrets written alone, the share of
look-alikes it changes, and precision on the negative corpus of tests/store/test_redact.py.

    .venv/bin/python bench/redaction.py            # the figures
    .venv/bin/python bench/redaction.py --misses   # and every miss / every look-alike changed
    .venv/bin/python bench/redaction.py --worst    # and logs repeating a command rule's program (speed)

The secrets are generated (seeded) from bench/redaction_shapes.tsv: one token shape per line, written in
our own notation (`literal{class:length}…`) from the public detector definitions of TruffleHog
(pkg/detectors/*: the regex of each detector and its keyword) plus the formats of detect-secrets' plugins.
Columns: detector, `p` (a vendor prefix identifies it alone) or `k` (it needs a key name: the detector's
keyword), keyword, shape. Every secret is written in each code context below; prefixed ones also alone.
The independent check (another scanner's rule tests) is kept out of this set on purpose.
"""
from __future__ import annotations

import argparse
import base64
import random
import re
import string
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory.store.redact import redact  # noqa: E402

_CLASSES = {
    "d": string.digits, "h": "0123456789abcdef", "H": "0123456789ABCDEF", "x": "0123456789abcdefABCDEF",
    "l": string.ascii_lowercase, "u": string.ascii_uppercase, "L": string.ascii_lowercase + string.digits,
    "U": string.ascii_uppercase + string.digits, "A": string.ascii_letters, "a": string.ascii_letters + string.digits,
    "b": string.ascii_letters + string.digits + "_-", "s": string.ascii_letters + string.digits + "+/",
    "S": string.ascii_letters + string.digits + "+/=", "B": string.ascii_letters + string.digits + "_-=",
    "w": string.ascii_letters + string.digits + "_", "p": string.ascii_letters + string.digits + "_-.",
}
# Formats the detector table above lacks or words differently (shapes from detect-secrets' plugins and
# vendors' documentation).
EXTRA_SHAPES = [
    ("facebook_access_token", "p", "facebook", "EAACEdEose0cBA{a:40}"),
    ("facebook_page_token", "p", "facebook", "EAAG{a:120}"),
    ("onepassword_secret_key", "p", "1password", "A3-{U:6}-{U:6}-{U:5}-{U:5}-{U:5}-{U:5}"),
    ("vault_legacy", "k", "vault", "s.{a:24}"),
    ("vault_service", "p", "vault", "hvs.{b:95}"),
    ("telegram", "p", "telegram", "{d:10}:AA{b:33}"),
    ("mapbox_public", "p", "mapbox", "pk.eyJ1Ijoi{a:20}.{b:22}"),
    ("airtable_pat", "p", "airtable", "pat{a:14}.{h:64}"),
    ("ibm_cloud_iam", "k", "ibm_cloud_iam", "{b:44}"),
    ("softlayer", "k", "softlayer", "{h:64}"),
    ("cloudant", "k", "cloudant", "{h:64}"),
    ("discord_client_secret", "k", "discord_client", "{d:32}"),
    ("azure_storage", "k", "azure_storage_account", "{s:86}=="),
    ("basic_auth_url", "p", "basic", "https://deploy:{a:16}@ci.example.net"),
]
_SHAPE_PART = re.compile(r"\{(\w):(\d+)\}|\\(.)|([^{\\])")


def sample(shape: str, rng: random.Random) -> str:
    """A random string of `shape` (literal text and `{class:length}` runs)."""
    out = []
    for cls, count, escaped, literal in _SHAPE_PART.findall(shape):
        out.append("".join(rng.choice(_CLASSES[cls]) for _ in range(int(count))) if cls else escaped or literal)
    return "".join(out)


def load_shapes() -> list[tuple[str, str, str, str]]:
    with open(Path(__file__).with_name("redaction_shapes.tsv")) as table:
        rows = [tuple(line.rstrip("\n").split("\t")) for line in table]
    return [r for r in rows if len(r) == 4] + EXTRA_SHAPES  # type: ignore[misc]


def key_names(keyword: str, rng: random.Random) -> tuple[str, str, str]:
    """(snake, UPPER_SNAKE, camel) key names built on the detector's keyword."""
    word = re.sub(r"[^a-z0-9]+", "_", keyword.lower()).strip("_") or "service"
    last = rng.choice(["token", "secret", "api_key", "key", "password", "access_token", "auth_token"])
    snake = f"{word}_{last}"
    camel = snake.split("_")[0] + "".join(p.title() for p in snake.split("_")[1:])
    return snake, snake.upper(), camel


# Code contexts: (name, template). {k} snake key, {K} UPPER key, {c} camelCase key, {v} the secret.
CONTEXTS = [
    ("env", "{K}={v}"), ("export", 'export {K}="{v}"'), ("yaml", "{k}: {v}"), ("yaml-quoted", "  {k}: '{v}'"),
    ("json", '{{"{c}": "{v}"}}'), ("toml", '{k} = "{v}"'), ("python-kwarg", 'Client({k}="{v}")'),
    ("go-var", 'var {c} string = "{v}"'), ("go-short", '{c} := "{v}"'), ("go-const", 'const {c} = `{v}`'),
    ("php-append", '$' + '{c} .= "{v}";'), ("php-assign", "$" + "{k} = '{v}';"),
    ("php-array", "'{k}' => '{v}',"), ("make", "{K} ::= {v}"), ("make-posix", "{K} :::= {v}"),
    ("make-cond", "{K} ?= {v}"), ("ruby-const", "{K} = '{v}'"), ("ruby-hash", ":{k} => \"{v}\""),
    ("ruby-sym", '{k}: "{v}",'), ("kotlin", 'val {c} = "{v}"'), ("java", 'private static final String {K} = "{v}";'),
    ("properties", "app.{c}={v}"), ("properties-colon", "{k}: {v}"), ("csharp", 'string {c} = "{v}";'),
    ("js", "const {c} = '{v}';"), ("xml-element", "<{c}>{v}</{c}>"), ("xml-own-line", "<{c}>\n    {v}\n</{c}>"),
    ("xml-attribute", '<add key="{c}" value="{v}" />'), ("xml-attr-name", '<config {c}="{v}"/>'),
    ("yaml-block", "{k}: |\n  {v}\n"), ("yaml-folded", "{k}: >-\n    {v}"),
    ("hcl", 'resource "x" "y" {{\n  {k} = "{v}"\n}}'),
    ("ini", "[default]\n{k} = {v}"), ("shell-next-line", "export {K}=\\\n  {v}"), ("powershell", "$env:{K} = \"{v}\""),
    ("cli-flag", "deploy --{k} {v}"), ("cli-flag-eq", "deploy --{k}={v}"), ("header", 'curl -H "X-{c}: {v}" https://x'),
    ("prose", "the {k} for staging is {v}"), ("docker-env", "docker run -e {K}={v} app"),
    ("json-escaped", '{{\\"{k}\\": \\"{v}\\"}}'), ("set", "set {K}={v}"),
    ("ruby-or-assign", '{c} ||= "{v}"'), ("r-assign", '{c} <- "{v}"'), ("python-triple", '{k} = """{v}"""'),
    ("xml-value-attr", '<{c} value="{v}"/>'), ("space-separated", "{c} {v}"),
    ("csharp-verbatim", '$' + '{c} = @"{v}";'),
    ("python-raw", '{k} = r"{v}"'), ("lua-table", '["{c}"] = "{v}",'), ("compare", 'if ({c} == "{v}") {{'),
    ("compare-not", 'if {k} != "{v}":'), ("yaml-list", "{k}:\n  - {v}"), ("query", "https://api.x/v1?{k}={v}&page=2"),
]
LONE = [("alone", "{v}"), ("sentence", "use {v} for the release step"), ("quoted", '"{v}"'), ("line-end", "ok\n{v}\n")]

# Places people write credentials that are not `key = value`.
_PW = "Tr0ub4dor3xyz"


def special_samples(rng: random.Random) -> list[tuple[str, str, str]]:
    jwt = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
           + sample("{b:43}", rng))
    wrapped = base64.b64encode(jwt.encode()).decode()
    dockercfg = base64.b64encode(b'{"registry.example.com":{"auth":"' + base64.b64encode(b"u:" + _PW.encode())
                                 + b'"}}').decode()
    hook = "hooks.slack.com/services/T" + sample("{U:8}/B{U:8}/{a:24}", rng)
    pw = sample("{a:14}", rng)
    rows = [
        ("jwt-base64", f"token: {wrapped}", wrapped), ("jwt-base64-alone", wrapped, wrapped),
        ("k8s-dockercfg", f"data:\n  .dockercfg: |\n    {dockercfg}", dockercfg),
        ("k8s-dockerconfigjson", f"data:\n  .dockerconfigjson: {dockercfg}", dockercfg),
        ("slack-webhook-bare", f"post to {hook}", hook),
        ("curl-colon", f'curl -u ":{pw}" https://api.x', pw),
        ("curl-user-quoted", f"curl --user 'deploy:{pw}' https://x", pw),
        ("curl-next-line", f"curl -s \\\n  --user \\\n  deploy:{pw} https://x", pw),
        ("curl-u", f"curl -u admin:{pw} https://x", pw),
        ("nuget", f'<add key="ClearTextPassword" value="{pw}" />', pw),
        ("maven", f"<server>\n  <id>central</id>\n  <username>deploy</username>\n"
                  f"  <password>{pw}</password>\n</server>",
         pw),
        ("npmrc", f"//npm.pkg.github.com/:_authToken={pw}", pw),
        ("npmrc-password", f"//registry.x/:_password={pw}", pw),
        ("mysql", f"mysql -uadmin -p{_PW} app", _PW), ("mysql-space", f"mysql -u admin -p{pw} -h db", pw),
        ("password-eq", f"mysqldump --password={pw} app", pw), ("password-space", f"psql --password {pw}", pw),
        ("sshpass", f"sshpass -p {pw} ssh deploy@host", pw), ("sshpass-quoted", f"sshpass -p '{pw}' scp a b:", pw),
        ("redis-cli", f"redis-cli -h cache -a {pw} ping", pw), ("pgpassword", f"PGPASSWORD={pw} psql -h db", pw),
        ("bundler", f'BUNDLE_GEMS__CONTRIBSYS__COM: "deploy:{pw}"', pw),
        ("cloudflare-origin-ca", f"CLOUDFLARE_ORIGIN_CA={sample('v1.0-{h:24}-{h:146}', rng)}", None),
        ("htpasswd", f"docker login -u deploy -p {pw} registry.x", pw),
    ]
    return [(n, t, s if s is not None else t.split("=", 1)[1]) for n, t, s in rows]


# Look-alikes: credential-shaped text that is not a credential, or explains what one looks like.
LOOKALIKES = [
    "![badge](https://img.shields.io/badge/xoxo-indieweb-ff69b4.svg)",
    "see https://github.com/xoxa-nyc/site/issues/3", "SLACK_BOT_TOKEN=xoxb-my-bot-token",
    "slack token looks like xoxb-your-token-here", "curl -u <user:password> https://api.example.com",
    "curl -u $USER:$PASSWORD https://x", "curl --user \"${CI_USER}:${CI_TOKEN}\" https://x",
    "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----\n<your key here>\n-----END PRIVATE KEY-----",
    "A GitHub classic token is ghp_ followed by 36 letters and digits.",
    "Slack bot tokens start with xoxb-, user tokens with xoxp-.", "Stripe keys look like sk_live_... or sk_test_...",
    "AWS access key ids start with AKIA and are 20 characters long.", "the token format is glpat-<20 chars>",
    "mysql -u root -p app  (prompts for the password)", "psql --password -h db app", "sshpass -f ~/.pw ssh host",
    "redis-cli -a \"$REDIS_PASSWORD\" ping", "PGPASSWORD=$PGPASSWORD psql", "mysql -uadmin -p$MYSQL_PWD app",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed it", "token_id: 123e4567-e89b-12d3-a456-426614174000",
    "integrity sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==",
    "checksum: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "version: 1.24.3-rc.1",
    "fixture = base64.b64decode('aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=')", "image: nginx@sha256:" + "ab12" * 16,
    "key: value", "token: ${{ secrets.GITHUB_TOKEN }}", "password: \"\"", "api_key = os.environ['API_KEY']",
    "access_token = response.json()['access_token']", "the secret is rotated hourly by vault",
    "<password>${env.MAVEN_PASSWORD}</password>", '<add key="ClearTextPassword" value="%NUGET_PASSWORD%" />',
    "//registry.npmjs.org/:_authToken=${NPM_TOKEN}", "export GITHUB_TOKEN=$(gh auth token)",
    "KEY_FILE=/etc/ssl/private/server.key", "sort_key = 'created_at'", "public_key: ssh-ed25519 AAAAC3NzaC1lZDI1",
    "The tokenizer splits snake_case_identifiers_like_this_one into pieces.",
    "secret_santa_assignments_2024.csv is in the shared drive", "Use the password manager, never paste tokens.",
    "request_id=7f9c2ba4e88f11eea5b10242ac120002 in the log",
    "git rev-parse HEAD gives 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "hvs. tokens come from `vault login`; s. tokens are the legacy format",
    "EAA tokens from Facebook expire after an hour", "A3- is how 1Password secret keys begin",
    "npm_config_cache=/tmp/npm", "webpack chunk main.3f2b8a106c4d4e9fa1b2.js", "color #ff00aa",
    "kubectl create secret generic db --from-literal=password=$DB_PASSWORD",
    "docker login -u deploy --password-stdin < token.txt", "auth_provider: github", "TOKEN_TTL=3600",
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "STRIPE_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
    'password = "password"', "api_key = None", "token: true", "secret = ''", "password: '********'",
    "API_KEY=<API_KEY>", "auth_token = '{{ auth_token }}'", "slack_webhook: https://hooks.slack.com/services/XXX/YYY/ZZZ",
    "client_secret: REPLACE_ME", "private_key_path: ~/.ssh/id_rsa", "password_reset_url = /accounts/reset/",
    "the secret_key_base is generated by `rails secret`",
    "jwt: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 is only the header",
    "uuid_key = 3fa85f64-5717-4562-b3fc-2c963f66afa6", "cache_key = sha1:2fd4e1c67a2d28fced849ee1bb76e7391b93eb12",
    "git_commit_token=9fceb02d0ae598e95dc970b74767f19372d61af8 is a commit, not a token?",
    "the session token is stored in the cookie named __Host-session", "Bearer <token>", "Authorization: Bearer $TOKEN",
    "mysql -p\"$MYSQL_ROOT_PASSWORD\" -e 'select 1'", "sshpass -p \"$SSHPASS\" ssh host", "--password ${DB_PASSWORD}",
    "data:\n  .dockerconfigjson: <base64-encoded-config>", '<add key="ClearTextPassword" value="" />',
    "//registry.npmjs.org/:_authToken=YOUR_NPM_TOKEN", "<password>changeme</password>",
    "the key fixture is dGhpcyBpcyBhIHRlc3QgZml4dHVyZSBmb3IgdGhlIGRlY29kZXI=",
    "the token test decodes SGVsbG8sIHRoaXMgaXMgbm90IGEgc2VjcmV0IGF0IGFsbC4=",
    "the auth service runs 3.14.2-alpine3.19; its token cache image is sha256:4b825dc642cb6eb9a060e54bf8d6928",
    "the secret manager revision is 2f1c9e7a-33b0-4a51-9c9e-1d2b3c4d5e6f",
    "API key rotation landed in commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904 (v2.8.1)",
    "password hashing: argon2id$v=19$m=65536,t=3,p=4 is the default",
]


def dev_set(seed: int = 25) -> tuple[list, list]:
    """(secrets: (group, name, text, secret), look-alikes)."""
    rng = random.Random(seed)
    rows = []
    for name, kind, keyword, shape in load_shapes():
        secret = sample(shape, rng)
        if len(set(secret)) < 6:
            continue
        k, upper, camel = key_names(keyword, rng)
        for context, template in CONTEXTS:
            rows.append(("keyed", f"{name}@{context}", template.format(k=k, K=upper, c=camel, v=secret), secret))
        if kind == "p":
            for context, template in LONE:
                rows.append(("alone", f"{name}@{context}", template.format(v=secret), secret))
    rows += [("special", n, t, s) for n, t, s in special_samples(rng)]
    return rows, LOOKALIKES


def scores(show: bool = False) -> dict:
    rows, lookalikes = dev_set()
    hit = {"keyed": [0, 0], "alone": [0, 0], "special": [0, 0]}
    misses = []
    for group, name, text, secret in rows:
        out, _ = redact(text)
        ok = secret not in out
        hit[group][0] += ok
        hit[group][1] += 1
        if not ok:
            misses.append((name, text, out))
    changed = [(t, redact(t)[0]) for t in lookalikes if redact(t)[0] != t]
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "store")]
    import test_redact  # the labelled corpus of the unit tests

    recall_t, precision_t, *_ = test_redact.corpus_scores()
    total = [sum(h[0] for h in hit.values()), sum(h[1] for h in hit.values())]
    if show:
        for name, _, out in misses:
            print(f"MISS {name}: {out!r}")
        for text, out in changed:
            print(f"CHANGED: {text!r} -> {out!r}")
    return {"recall": total[0] / total[1], "samples": total[1], "recall_keyed": hit["keyed"][0] / hit["keyed"][1],
            "recall_alone": hit["alone"][0] / hit["alone"][1], "alone": hit["alone"][1],
            "recall_special": hit["special"][0] / hit["special"][1], "special": hit["special"][1],
            "lookalikes_changed": len(changed) / len(lookalikes), "lookalikes": len(lookalikes),
            "test_recall": recall_t, "test_precision": precision_t}


def worst_cases(size: int = 40_000) -> list[tuple[str, float]]:
    """Seconds to redact `size` characters of a log naming one rule's command on every line (and on one long
    line), as a ratio to the same size of this repository's README: near 1 is linear, a ratio growing with
    `size` is a rule reading on to the end of the text from every match."""
    import time

    def seconds(text: str) -> float:
        started = time.perf_counter()
        redact(text)
        return time.perf_counter() - started

    readme = (ROOT / "README.md").read_text()
    baseline = seconds((readme * (size // len(readme) + 1))[:size])
    rows = []
    for command in ("docker login registry.example.com", "mysql -h db -u app", "redis-cli -h cache ping",
                    "curl -s https://example.com/x", "ssh-keygen -t ed25519", "sudo -S true", "lftp host"):
        for joiner in ("\n", " "):
            text = ((command + joiner) * (size // len(command) + 1))[:size]
            rows.append((f"{command!r} {'per line' if joiner == chr(10) else 'one line'}", seconds(text) / baseline))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--misses", action="store_true", help="print every miss and every look-alike changed")
    parser.add_argument("--benign", nargs="*", default=[], metavar="FILE",
                        help="also count the lines of these (secret-free) files that redaction changes")
    parser.add_argument("--worst", action="store_true",
                        help="also time logs repeating a command rule's program, as ratios to prose of their size")
    args = parser.parse_args(argv)
    for name, ratio in worst_cases() if args.worst else ():
        print(f"worst case {name:48} {ratio:6.1f}x the README's time")
    s = scores(args.misses)
    if args.benign:
        lines = [line for path in args.benign for line in Path(path).read_text(errors="replace").splitlines()
                 if line.strip()]
        changed = [line for line in lines if redact(line)[0] != line]
        for line in changed if args.misses else ():
            print(f"BENIGN CHANGED: {line[:160]!r}")
        print(f"benign lines changed         {len(changed)} of {len(lines)} ({len(changed) / max(1, len(lines)):.3%})")
    print(f"secrets redacted             {s['recall']:.1%} of {s['samples']}")
    print(f"  with a key name            {s['recall_keyed']:.1%}")
    print(f"  written alone              {s['recall_alone']:.1%} of {s['alone']}")
    print(f"  special forms (CLI, k8s…)  {s['recall_special']:.1%} of {s['special']}")
    print(f"look-alikes changed          {s['lookalikes_changed']:.1%} of {s['lookalikes']}")
    print(f"tests/store/test_redact.py corpus  recall {s['test_recall']:.1%}, precision {s['test_precision']:.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
