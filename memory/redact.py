"""Credentials out before anything is written: well-shaped secrets become `<redacted:TYPE>`.

Precision matters as much as recall: a false positive permanently damages stored knowledge, so every
pattern is anchored on a vendor prefix or a credential-shaped context. Assignments (`.env`, `export`,
YAML, JSON, kwargs, headers, "the password is …") are judged on the whole key name, split into its
words — `POSTGRES_PASSWORD`, `clientSecret`, `PGPASSWORD` are credentials, `PASSWORD_MIN_LENGTH`,
`TOKEN_TTL`, `MAX_TOKENS` are not — and on a value that must look like a secret rather than a
reference, path, number, version, placeholder or plain word. Commit SHAs, UUIDs, checksums, versions,
paths and colours carry none of these shapes.
"""
from __future__ import annotations

import math
import re

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, Callable

# `\b` is no boundary between `_` and a letter (`_` is a word character), so `\bpassword` misses
# `DB_PASSWORD` and `x_ghp_…`. Tokens are bounded by "no letter or digit" on either side instead.
_S = r"(?<![A-Za-z0-9])"
_E = r"(?![A-Za-z0-9])"

# Credential words a key name is searched for; the key is then judged word by word in _credential_key.
_KEY_WORDS = r"pass|pwd|pw|secret|token|key|cred|auth|pat"
_ASSIGNMENT = (
    r"(?i)(?<![\w.-])(?=[\w.-]{0,60}?(?:" + _KEY_WORDS + r"))([\w.-]{1,100})"   # 1 the key, whole
    r"(?:[\\\"'`]{0,2}[ \t]*(?::=|=>|\?=|=(?!=)|:(?![:/]))"                     # KEY=, "key": , key =>
    r"|[\"'][ \t]*,(?=[ \t]*[\"'])"                                              # ("API_KEY", "…")
    r"|[ \t]+(?:is|was)[ \t]+)"                                                 # the password is …
    r"[ \t]*(\\?[\"'`]?)(\S{1,200})")                                           # 2 opening quote, 3 value

# (type, pattern, group holding the secret or None for the whole match, lowercase trigger substrings,
# value check or None). A rule is compiled and run only when one of its triggers occurs in the text,
# which keeps a capture cheap: a typical insight triggers three or four of them.
_RULES: list[tuple[str, str, int | None, tuple[str, ...]] | tuple[str, str, int | None, tuple[str, ...], str]] = [
    ("private_key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                    r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)", None, ("private key",)),
    ("jwt", _S + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", None, ("eyj",)),
    ("aws_access_key_id", _S + r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[0-9A-Z]{16}" + _E,
     None, ("akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "a3t")),
    ("aws_secret_access_key", r"(?i)aws_?(?:secret_?(?:access_?)?key|secret)(?![A-Za-z0-9])[\"']?\s*[:=]\s*[\"']?"
                              r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])", 1, ("aws",)),
    ("aws_bedrock_key", _S + r"ABSK[A-Za-z0-9+/]{109,269}={0,2}", None, ("absk",)),
    ("github_token", _S + r"(?:ghp|gho|ghs|ghr|ghu)_[A-Za-z0-9]{36,255}" + _E, None,
     ("ghp_", "gho_", "ghs_", "ghr_", "ghu_")),
    ("github_token", _S + r"github_pat_\w{22,255}", None, ("github_pat_",)),
    ("gitlab_token", _S + r"(?:glpat|glptt|gldt|glrt|glcbt|glft|glimt|glagent|gloas|glsoat)-[\w-]{20,}", None,
     ("glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "glft-", "glimt-", "glagent-", "gloas-", "glsoat-")),
    ("gitlab_token", _S + r"GR1348941[\w-]{20,}", None, ("gr1348941",)),
    ("slack_webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+]{20,}", None,
     ("hooks.slack.com",)),
    ("slack_token", _S + r"(?:xox[abeoprs]|xapp)-[A-Za-z0-9.-]{10,}", None, ("xox", "xapp-")),
    ("anthropic_key", _S + r"sk-ant-[A-Za-z0-9_-]{20,}", None, ("sk-ant-",)),
    ("stripe_key", _S + r"(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,}" + _E, None, ("_live_", "_test_", "_prod_")),
    ("stripe_key", _S + r"whsec_[A-Za-z0-9+/=]{24,}", None, ("whsec_",)),
    ("openai_key", _S + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}", None, ("sk-",), "strong"),
    ("google_api_key", _S + r"AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])", None, ("aiza",)),
    ("npm_token", _S + r"npm_[A-Za-z0-9]{36}" + _E, None, ("npm_",)),
    ("pypi_token", _S + r"pypi-[A-Za-z0-9_-]{50,}", None, ("pypi-",)),
    ("rubygems_token", _S + r"rubygems_[a-f0-9]{48}" + _E, None, ("rubygems_",)),
    ("huggingface_token", _S + r"(?:hf_|api_org_)[A-Za-z]{34}" + _E, None, ("hf_", "api_org_")),
    ("sendgrid_key", _S + r"SG\.[\w-]{22}\.[\w-]{43}(?![\w-])", None, ("sg.",)),
    ("sendinblue_key", _S + r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}" + _E, None, ("xkeysib-",)),
    ("twilio_key", _S + r"SK[0-9a-fA-F]{32}" + _E, None, ("sk",), "strong"),
    ("mailgun_key", _S + r"key-[0-9a-f]{32}" + _E, None, ("mailgun",)),  # only where Mailgun is named
    ("heroku_key", _S + r"HRKU-AA[\w-]{58}(?![\w-])", None, ("hrku-",)),
    ("digitalocean_token", _S + r"do[opr]_v1_[a-f0-9]{64}" + _E, None, ("_v1_",)),
    ("shopify_token", _S + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _E, None, ("shpat_", "shpca_", "shppa_", "shpss_")),
    ("square_token", _S + r"(?:sq0atp-[\w-]{22,60}|sq0csp-[\w-]{40,60}|EAAA[\w-]{60})(?![\w-])", None,
     ("sq0atp-", "sq0csp-", "eaaa")),
    ("databricks_token", _S + r"dapi[a-f0-9]{32}(?:-\d)?" + _E, None, ("dapi",)),
    ("vault_token", _S + r"hv[sb]\.[\w-]{90,300}", None, ("hvs.", "hvb.")),
    ("azure_client_secret", r"(?<![\w~.-])[\w~.]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])", None, ("q~",)),
    ("atlassian_token", _S + r"AT(?:ATT|CTT)3[\w=-]{150,}", None, ("atatt3", "atctt3")),
    ("doppler_token", _S + r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}" + _E, None, ("dp.",)),
    ("pulumi_token", _S + r"pul-[a-f0-9]{40}" + _E, None, ("pul-",)),
    ("linear_key", _S + r"lin_(?:api|oauth)_[A-Za-z0-9]{40}" + _E, None, ("lin_api_", "lin_oauth_")),
    ("postman_key", _S + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}" + _E, None, ("pmak-",)),
    ("newrelic_key", _S + r"(?:NRAK-[A-Z0-9]{27}|NRII-[\w-]{32}|[a-f0-9]{36}NRAL)" + _E, None,
     ("nrak-", "nrii-", "nral")),
    ("grafana_token", _S + r"(?:glc_[A-Za-z0-9+/]{32,400}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})", None,
     ("glc_", "glsa_")),
    ("sentry_token", _S + r"(?:sntryu_[a-f0-9]{64}|sntrys_eyJ[\w+/=]{60,})", None, ("sntryu_", "sntrys_")),
    ("planetscale_token", _S + r"pscale_(?:tkn|oauth|pw)_[\w=.-]{32,64}", None, ("pscale_",)),
    ("discord_token", _S + r"[MNO][A-Za-z0-9_-]{23,25}\.[\w-]{6}\.[\w-]{27,38}(?![\w-])", None, ("discord",)),
    ("discord_webhook", r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w-]{40,}", None,
     ("discord",)),
    ("telegram_bot_token", _S + r"\d{8,10}:AA[\w-]{33}(?![\w-])", None, (":aa",)),
    ("teams_webhook", r"https://[\w.-]+\.webhook\.office\.com/webhookb2/[^\s\"'<>]+", None, ("webhook.office.com",)),
    ("dynatrace_token", _S + r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}" + _E, None, ("dt0c01.",)),
    ("flyio_token", _S + r"(?:fo1_[\w-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})", None, ("fo1_", "fm1", "fm2")),
    ("terraform_token", _S + r"[a-z0-9]{14}\.atlasv1\.[\w=-]{60,70}", None, ("atlasv1",)),
    ("age_secret_key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", None, ("age-secret-key-1",)),
    ("onepassword_token", _S + r"ops_eyJ[A-Za-z0-9+/]{250,}={0,3}", None, ("ops_eyj",)),
    ("vendor_token", _S + r"(?:pplx-[A-Za-z0-9]{48}|pnu_[A-Za-z0-9]{36}|ntn_\d{11}[A-Za-z0-9]{35}|sgp_[a-f0-9]{16}_"
                     r"[a-f0-9]{40}|rdme_[a-z0-9]{70}|tfp_[A-Za-z0-9_.=-]{59}|AKCp[A-Za-z0-9]{69}|LTAI[A-Za-z0-9]{20}"
                     r"|CLOJARS_[a-z0-9]{60}|shippo_(?:live|test)_[a-f0-9]{40}|duffel_(?:live|test)_[\w=-]{43}"
                     r"|sha256~[\w-]{43}|EZ[AT]K[A-Za-z0-9]{54})" + _E, None,
     ("pplx-", "pnu_", "ntn_", "sgp_", "rdme_", "tfp_", "akcp", "ltai", "clojars_", "shippo_", "duffel_", "sha256~",
      "ezak", "eztk")),
    ("authorization", r"(?i)(?<![A-Za-z0-9])(?:authorization[\"']?\s*[:=]\s*[\"']?(?:(?:Bearer|Basic|Token|Bot)\s+)?"
                      r"|Bearer\s+)([A-Za-z0-9._~+/=-]{8,})", 1, ("bearer", "authorization"), "strong"),
    ("url_credentials", r"(?<![A-Za-z0-9+.-])[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@\"'<>]*:([^/\s@\"'<>]+)@", 1, ("://",)),
    ("url_credentials", r"\bcurl\b[^\n]*?\s(?:-u|--user)[ =][\"']?[^\s:\"'@]+:([^\s\"']+)", 1, ("curl",), "strong"),
    ("secret_assignment", _ASSIGNMENT, 3, ("pass", "pwd", "pw", "secret", "token", "key", "cred", "auth", "pat"),
     "assignment"),
    ("secret_assignment", r"(?i)<([\w.-]*(?:password|passwd|secret|token|api_?key))>([^<\s]{1,200})</", 2,
     ("pass", "secret", "token", "key"), "assignment"),
]
_TRIGGERS = [(trigger, index) for index, rule in enumerate(_RULES) for trigger in rule[3]]

# Value checks, compiled on first use like the rules.
_PLACEHOLDER = (r"(?i)^(?:\$|<|\{|%|\*|x{4,}|\.\.\.|(?:pass(?:word|wd)?|pwd|secret|token)$)"
                r"|changeme|change_me|replace_?me|example|redacted|placeholder|dummy|your[_-]|x{6,}|\*{3,}")
# Not a secret itself: a path, a URL (credentials in URLs have their own rule), a version, code
# (`os.getenv(`, `line[pos:]`, `(user, pw)`) or a dotted reference (`settings.SECRET_KEY`).
_NOT_A_VALUE = (r"(?:\.{0,2}|~)/|[a-zA-Z][a-zA-Z0-9+.-]*://|v?\d+(?:\.\d+)+(?:[-+.][\w.]+)?$"
                r"|[(\[]|[A-Za-z_][\w.]*[(\[]|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
# Pieces of a value made of plain words, numbers and version-ish bits: `my-app-secrets`, `gpt-4o-mini`.
_WORDY_PIECE = r"[a-z]+\d{0,4}|[A-Z]+\d{0,4}|[A-Z][a-z]+|\d+[a-z]{0,3}"
_PIECE_SPLIT = r"[-_.:/@]+"
_SEQUENCE = r"(?i)abcdefgh|01234567|12345678|qwertyui"  # alphabets and keyboard runs, not keys
_CAMEL = r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+"  # the words of a name: API, Key; client, Secret; DB, PASSWORD
_compiled: dict = {}


def _rx(source: str) -> re.Pattern:
    """The compiled pattern, compiled on first use: most captures never need most patterns."""
    return _compiled.get(source) or _compiled.setdefault(source, re.compile(source))


# Key words: the last word of the key name decides (after trailing qualifiers such as `_PROD`, `_B64`).
_STRONG_WORDS = {"password", "passwd", "pwd", "pw", "pass", "passphrase", "passcode", "secret", "token", "apikey",
                 "credential", "credentials", "creds", "pat"}
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
    "hot", "short", "storage", "csrf", "xsrf"}
_QUALIFIERS = {"prod", "production", "dev", "development", "staging", "stage", "stg", "test", "testing", "qa", "uat",
               "local", "live", "sandbox", "ci", "base", "b64", "base64", "hex", "raw", "value", "val", "old", "new",
               "current", "prev", "previous", "primary", "secondary", "backup", "default", "plain", "plaintext",
               "encoded", "str", "string", "v"}


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    if not value:
        return 0.0
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    return -sum(c / len(value) * math.log2(c / len(value)) for c in counts.values())


def _looks_secret(value: str, strict: bool = False) -> bool:
    """Whether a value assigned to a credential name is itself a secret (not a placeholder, reference,
    path, number, version or plain words). `strict` is for names that are only sometimes credentials
    (`…_KEY`, `auth`): then the value must also be long and random-looking."""
    if (len(value) < 8 or _rx(_PLACEHOLDER).search(value) or _rx(_NOT_A_VALUE).match(value) or value.isdigit()
            or _rx(_SEQUENCE).search(value)):
        return False
    pieces = [p for p in _rx(_PIECE_SPLIT).split(value) if p]
    if len(pieces) > 1 and all(_rx(_WORDY_PIECE).fullmatch(p) for p in pieces):
        return False
    has_lower, has_upper, has_digit = (any(c.islower() for c in value), any(c.isupper() for c in value),
                                       any(c.isdigit() for c in value))
    has_other = any(not c.isalnum() for c in value)
    bits = entropy(value)
    if not (has_digit or has_other):  # letters only: words or CamelCase unless long and random
        return len(value) >= 20 and bits >= 4.0 and len(value) < 3 * len(_rx(_CAMEL).findall(value))
    if strict:
        return len(value) >= 16 and has_lower + has_upper + has_digit >= 2 and bits >= 3.3
    return has_lower + has_upper + has_digit + has_other >= 2 and bits >= 2.5


def _credential_key(key: str) -> str | None:
    """"strong" when the key names a credential, "weak" when it only may (`STRIPE_KEY`, `AUTH`), else None."""
    words = [w.lower() for w in _rx(_CAMEL).findall(key)]
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
    if last == "auth":
        return "weak"
    return None


def _assignment_value(match: re.Match) -> tuple[int, int] | None:
    """Span of the secret in a `key = value` match, or None when it is not one."""
    strength = _credential_key(match.group(1))
    last = match.lastindex or 0  # never 0: both assignment rules end in a group that always takes part
    start = match.start(last)
    if strength == "weak" and "," in match.string[match.end(1):start]:
        strength = None  # a list of quoted names, not a ("NAME", "value") pair
    if strength is None:
        return None
    raw = match.group(last)
    quote = match.group(2).lstrip("\\") if last == 3 else ""
    stop = _rx(rf"[\\{quote}]" if quote else r"[\"'`,;)\]}\\]").search(raw)  # quote is one of " ' `
    value = raw[:stop.start()] if stop else raw
    value = value.rstrip(".") if not quote else value  # the full stop ending a sentence
    if not _looks_secret(value, strict=strength == "weak"):
        return None
    return start, start + len(value)


def redact(text: str) -> tuple[str, list[str]]:
    """`text` with credentials replaced, and the sorted list of credential types found."""
    found: list[str] = []
    lowered = text.lower()
    triggered = {index for trigger, index in _TRIGGERS if trigger in lowered}
    for index in sorted(triggered):
        kind, source, group, _, *check = _RULES[index]
        text = _rx(source).sub(_replacer(kind, group, check[0] if check else None, found), text)
    return text, sorted(set(found))


def _replacer(kind: str, group: int | None, check: str | None,
              found: list[str]) -> Callable[[re.Match], str]:
    def replace(match: re.Match) -> str:
        if check == "assignment":
            span = _assignment_value(match)
            if span is None:
                return match.group(0)
        else:
            secret = match.group(group) if group else match.group(0)
            if secret.startswith("<redacted:") or (check == "strong" and not _looks_secret(secret)):
                return match.group(0)
            if _rx(_PLACEHOLDER).search(secret):  # sk_test_xxxx…, AKIA…EXAMPLE, ${TOKEN}
                return match.group(0)
            span = match.span(group or 0)
        found.append(kind)
        offset = match.start(0)
        full = match.group(0)
        return full[:span[0] - offset] + f"<redacted:{kind}>" + full[span[1] - offset:]
    return replace


def scrub_record(record: Any) -> Any:
    """A copy of a JSON-like record with every string redacted; found types merge into `redacted`."""
    found: list[str] = []

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            clean, kinds = redact(value)
            found.extend(kinds)
            return clean
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    cleaned = walk(record)
    if found and isinstance(cleaned, dict):
        previous = cleaned.get("redacted")
        if not isinstance(previous, list):
            previous = []
        cleaned["redacted"] = sorted(set(previous) | set(found))
    return cleaned
