"""Judging a candidate for memory.store.redact: is this key name a credential, does this value look like a secret?

A false positive permanently damages stored knowledge, so a value must look like a secret rather than a
reference, path, URL, number, version, placeholder or plain words; a key is judged on its last word.
"""
from __future__ import annotations

import re

_compiled: dict = {}


def rx(source: str) -> re.Pattern:
    """The compiled pattern, compiled on first use: most captures never need most patterns."""
    return _compiled.get(source) or _compiled.setdefault(source, re.compile(source))


PLACEHOLDER = (r"(?i)^(?:\$|<|\{|%|\*|x{4,}|\.\.\.|(?:pass(?:word|wd)?|pwd|secret|token)$)"
               r"|changeme|change_me|replace_?me|example|redacted|placeholder|dummy|your[_-]|x{6,}|\*{3,}")
# Not a secret itself: a path, a URL (credentials in URLs have their own rule), a version, or code
# (`os.getenv(`, `line[pos:]`, `(user, pw)`).
_NOT_A_VALUE = r"(?:\.{0,2}|~)/|[a-zA-Z][a-zA-Z0-9+.-]*://|v?\d+(?:\.\d+)+(?:[-+.][\w.]+)?$|[(\[]|[A-Za-z_][\w.]*[(\[]"
_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+"  # settings.SECRET_KEY, process.env.TOKEN: a reference if wordy
# Pieces of a value made of plain words, numbers and version-ish bits: `my-app-secrets`, `gpt-4o-mini`.
_WORDY_PIECE = r"[a-z]{1,14}\d{0,4}|[A-Z]{1,14}\d{0,4}|\d{1,8}[a-z]{0,3}|(?:[A-Z]?[a-z]{1,14}){1,4}"
_PIECE_SPLIT = r"[-_.:/@+]+"
_SEQUENCE = r"(?i)abcdefgh|01234567|12345678|qwertyui"  # alphabets and keyboard runs, not keys
CAMEL = r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+"  # the words of a name: API, Key; client, Secret; DB, PASSWORD
_CONSONANTS = r"(?i)[bcdfghjklmnpqrstvwxz]{5}"  # five consonants in a row: rare in words, common in keys

# Key words: the last word of the key name decides (after trailing qualifiers such as `_PROD`, `_B64`).
_STRONG_WORDS = {"password", "passwd", "pwd", "pw", "pass", "passphrase", "passcode", "secret", "token", "apikey",
                 "credential", "credentials", "creds", "pat", "dockercfg", "dockerconfigjson", "htpasswd",
                 "sshpass"}
_STRONG_SUFFIXES = ("password", "passwd", "passphrase", "secret", "token", "apikey")  # PGPASSWORD, authtoken
_KEY_STRONG_BEFORE = {"api", "secret", "private", "access", "signing", "sign", "encryption", "encrypt", "enc", "master",
                      "auth", "client", "app", "service", "account", "shared", "webhook", "hmac", "jwt", "session",
                      "license", "consumer", "root", "admin", "deploy", "integration", "subscription", "crypto",
                      "cipher", "aes", "ingest", "write", "read", "management"}
_NOT_SECRET_BEFORE = {  # …_KEY / …_TOKEN names that are not credentials (PRIMARY_KEY, NEXT_PAGE_TOKEN)
    "public", "publishable", "pub", "primary", "foreign", "sort", "partition", "cache", "idempotency", "object", "row",
    "composite", "unique", "hash", "lookup", "natural", "sequence", "schema", "index", "dedup", "dedupe", "routing",
    "map", "dict", "registry", "translation", "i18n", "message", "bucket", "s3", "gcs", "blob", "file", "kv",
    "lock", "group", "ordering", "shard", "sharding", "join", "dimension", "host", "known", "max", "min", "num",
    "total", "count", "page", "next", "continuation", "pagination", "cancellation", "cancel", "sync", "resume",
    "lexer", "parser", "eos", "bos", "pad", "unk", "sep", "cls", "mask", "special", "start", "end", "stop", "list",
    "hot", "short", "storage", "csrf", "xsrf", "uuid", "guid"}
_QUALIFIERS = {"prod", "production", "dev", "development", "staging", "stage", "stg", "test", "testing", "qa", "uat",
               "local", "live", "sandbox", "ci", "base", "b64", "base64", "hex", "raw", "value", "val", "old", "new",
               "current", "prev", "previous", "primary", "secondary", "backup", "default", "plain", "plaintext",
               "encoded", "str", "string", "v"}


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    if not value:
        return 0.0
    import math  # here: most captures judge no value (~0.25 ms to import)

    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    return -sum(c / len(value) * math.log2(c / len(value)) for c in counts.values())


def _wordy(value: str) -> bool:
    """Made of words and small numbers joined by separators: `my-bot-token`, `gpt-4o-mini`, `config.apiKey`."""
    pieces = [p for p in rx(_PIECE_SPLIT).split(value) if p]
    return len(pieces) > 1 and all(rx(_WORDY_PIECE).fullmatch(p) for p in pieces)


def _human_password(value: str) -> bool:
    """Words a person made into a password (`hunter2-Correct-Horse`): capitals, small letters and a digit. A
    placeholder or a name made of words has not all three (`my-db-password`, `gpt-4o-mini`, `Config.ApiKey`)."""
    return any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)


def typed_password(value: str) -> bool:
    """A password written after the word with only a space (`the db password Zq8!rT2vLp9x`): letters and a
    digit, three kinds of character or twelve characters (`argon2id` is a name), and none of the characters
    code and settings are written with (`min_length=12`, `hash(pw)`)."""
    classes = (any(c.islower() for c in value) + any(c.isupper() for c in value) + any(c.isdigit() for c in value)
               + any(not c.isalnum() for c in value))
    return (any(c.isdigit() for c in value) and any(c.isalpha() for c in value) and (classes >= 3 or len(value) >= 12)
            and not any(c in "=()[]{}<>;,$" for c in value))


def _random_letters(value: str) -> bool:
    """Letters only, yet no words: long, high-entropy, with a run of five consonants."""
    return len(value) >= 16 and entropy(value) >= 3.5 and bool(rx(_CONSONANTS).search(value))


def looks_secret(value: str, strict: bool = False) -> bool:
    """Whether a value assigned to a credential name is itself a secret (not a placeholder, reference,
    path, number, version or plain words). `strict` is for names that are only sometimes credentials
    (`…_KEY`, `auth`): then the value must also be long and random-looking."""
    if len(value) < 8 or rx(PLACEHOLDER).search(value) or rx(_NOT_A_VALUE).match(value) or rx(_SEQUENCE).search(value):
        return False
    if value.isdigit():  # a numeric secret (Discord client secret) under a credential name, never a TTL or port
        return not strict and len(value) >= 16 and len(set(value)) >= 6
    if (_wordy(value) and (strict or not _human_password(value))) or (rx(_DOTTED).fullmatch(value) and all(
            rx(_WORDY_PIECE).fullmatch(p) for p in re.split(r"[._]+", value) if p)):
        return False
    has_lower, has_upper, has_digit = (any(c.islower() for c in value), any(c.isupper() for c in value),
                                       any(c.isdigit() for c in value))
    has_other = any(not c.isalnum() for c in value)
    bits = entropy(value)
    if not (has_digit or has_other):  # letters only: words or CamelCase unless long and random
        return (len(value) >= 20 and bits >= 4.0 and len(value) < 3 * len(rx(CAMEL).findall(value))) \
            or _random_letters(value)
    if strict:
        floor = 3.0 if len(value) >= 24 else 3.3  # a long hex value has at most 4 bits a character
        return len(value) >= 16 and has_lower + has_upper + has_digit >= 2 and bits >= floor
    return has_lower + has_upper + has_digit + has_other >= 2 and bits >= 2.5


def looks_random(token: str) -> bool:
    """A vendor-prefixed token's body is random, not a placeholder or words (`xoxb-my-bot-token`)."""
    return not rx(PLACEHOLDER).search(token) and not _wordy(token) and entropy(token) >= 3.0


def _base64_of_prose(value: str) -> bool:
    """A base64 test fixture: it decodes to plain words (`aGVsbG8gd29ybGQ=` is "hello world")."""
    import base64
    import binascii

    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("ascii")
    except (binascii.Error, ValueError):
        return False
    letters = sum(c.isalpha() or c == " " for c in decoded)
    return " " in decoded and letters >= 0.85 * len(decoded)


def _camel_identifier(value: str) -> bool:
    """`HttpLib2ErrorWithResponse`: mixed case, the letters mostly in capitalised words (random text has
    short lowercase runs, and words have no five consonants in a row)."""
    if value.islower() or value.isupper():
        return False
    words = [w for w in rx(r"[A-Z][a-z]{2,}").findall(value) if not rx(_CONSONANTS).search(w)]
    return sum(map(len, words)) >= 0.8 * sum(c.isalpha() for c in value)


def looks_random_alone(value: str) -> bool:
    """A token with no key name, next to a credential word: long, mixed, random; never hex (commit SHAs,
    checksums, UUIDs), a path, a URL, a version, a dotted name or words."""
    if len(value) < 20 or rx(r"[0-9a-fA-F-]+=*").fullmatch(value) or "/" in value[:1] or "://" in value:
        return False
    if rx(PLACEHOLDER).search(value) or _wordy(value) or rx(_DOTTED).fullmatch(value) or rx(_SEQUENCE).search(value):
        return False
    if _camel_identifier(value):
        return False
    classes = sum((any(c.islower() for c in value), any(c.isupper() for c in value), any(c.isdigit() for c in value)))
    return classes >= 2 and any(c.isdigit() for c in value) and entropy(value) >= 3.6 and not _base64_of_prose(value)


def credential_key(key: str) -> str | None:
    """"strong" when the key names a credential, "weak" when it only may (`STRIPE_KEY`, `AUTH`), else None."""
    words = [w.lower() for w in rx(CAMEL).findall(key)]
    while words and (words[-1] in _QUALIFIERS or words[-1].lstrip("v").isdigit()):  # _PROD, _2, _V2
        words.pop()
    if not words:
        return None
    last, before = words[-1], words[-2] if len(words) > 1 else ""
    if before in _NOT_SECRET_BEFORE and (last.endswith(("key", "token")) or last == "id"):
        return None
    if last in _STRONG_WORDS or last.endswith(_STRONG_SUFFIXES):
        return "strong"
    if last == "key":
        return "strong" if before in _KEY_STRONG_BEFORE else "weak"
    if last.endswith("key") and last[:-3] in _KEY_STRONG_BEFORE:  # SECRETKEY, accesskey
        return "strong"
    if last == "id" and words[-3:-1] == ["private", "key"]:  # GCP service-account private_key_id
        return "strong"
    if last in ("auth", "session", "cookie"):  # a session cookie is a credential when it looks like one
        return "weak"
    return None
