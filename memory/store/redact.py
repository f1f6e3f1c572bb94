"""Credentials out before anything is written: well-shaped secrets become `<redacted:TYPE>`.

Precision matters as much as recall: a false positive permanently damages stored knowledge. Three kinds
of rule: vendor formats recognised by their prefix alone (memory.store.redact_vendors); assignments in the
layouts code and config are written in (`.env`, shell, YAML incl. block scalars, JSON, TOML, HCL, INI,
Go `var x string =`, PHP `.=`, Makefile `::=`, XML elements and `key=… value=…` attributes, CLI flags),
judged on the key's last word and the value's shape (memory.store.redact_values); and credentials with no key
name: command lines (`mysql -pPW`, `sshpass -p`, `redis-cli -a`, `curl -u`), URLs with a password, and
long random strings in a sentence about a token, key, secret or password. Commit SHAs, UUIDs, checksums,
versions, paths and colours carry none of these shapes.

Speed: each rule lists lowercase trigger substrings; a rule is compiled and run only when one occurs in
the text (the prefilter), and the triggered vendor formats run as one alternation in a single pass.
"""
from __future__ import annotations

import re

from memory import TYPE_CHECKING
from memory.store import redact_commands, redact_vendors
from memory.store.redact_values import (
    PLACEHOLDER,
    credential_key,
    looks_random,
    looks_random_alone,
    looks_secret,
    rx,
    typed_password,
)

if TYPE_CHECKING:
    from typing import Any, Callable

# `\b` is no boundary between `_` and a letter (`_` is a word character), so `\bpassword` misses
# `DB_PASSWORD` and `x_ghp_…`. Tokens are bounded by "no letter or digit" on either side instead.
_S = r"(?<![A-Za-z0-9])"
_E = r"(?![A-Za-z0-9])"

# Credential words a key name is searched for; the key is then judged word by word (credential_key).
_KEY_WORDS = r"pass|pwd|pw|secret|token|key|cred|auth|pat|dockercfg|dockerconfig|session|cookie"
_KEY_TRIGGERS = ("pass", "pwd", "pw", "secret", "token", "key", "cred", "auth", "pat", "dockercfg", "dockerconfig",
                 "session", "cookie")
_ASSIGNMENT = (
    r"(?i)(?<![\w.-])(?=[\w.-]{0,60}?(?:" + _KEY_WORDS + r"))([\w.-]{1,100})"           # 1 the key, whole
    r"(?:[\\\"'`\]]{0,3}(?:[ \t]+(?:string|str|String|&str|\[\]byte))?[ \t]*"         # Go `x string =`
    r"(?::{1,3}=|[.+?]=|\|\|=|=>|<-|[!=<]==?|=|:(?![:/]))"                           # = := ::= .= ||= <- == !=
    r"|[\"'][ \t]*,(?=[ \t]*[\"'])"                                                  # ("API_KEY", "…")
    r"|[ \t]+(?:(?:for|in|on|of)[ \t]+[\w.-]{1,30}[ \t]+)?(?:is|was)[ \t]+)"        # the password (for x) is …
    r"(?:[ \t]*(?:[|>][+-]?[ \t]*)?\\?\r?\n[ \t]*(?:-[ \t]+)?)?"                      # YAML `|`, `- `, `\` newline
    r"[ \t]*(\\?(?:[@rRbBuUfF]{1,2}(?=[\"']))?[\"'`]{0,3})"                         # 2 opening quote
    # 3 the value; unquoted, up to `;Key=` / `&key=`, so that a connection string's next pair is read too
    r"((?<=[\"'`])\S{1,1000}|(?:(?![;&][ \t]*[\w.-]{1,100}=)\S){1,1000})")
# `--password VALUE`: a flag takes its value after a space (same groups as _ASSIGNMENT)
_FLAG = (r"(?i)(?<![\w-])(--?(?=[\w.-]{0,60}?(?:" + _KEY_WORDS + r"))[\w.-]{1,100})[ \t]+(?=[^\s=:-]|-[^\s-]{15})"
         r"(\\?[\"'`]?)(\S{1,1000})")
# `password VALUE`, only a space between (prose, .netrc, `mysqladmin password NEW`): the password family alone, and
# a value typed as one (check "spaced"); same groups as _ASSIGNMENT
_SPACED_PASSWORD = (r"(?i)(?<![\w.-])([\w.-]{0,60}?(?:pass(?:word|wd|phrase)|pwd))s?[ \t]+(\\?[\"'`]?)"
                    r"(?=[^\s\"'`]*\d)([^\s\"'`]{8,200})")
# `npm config set //r/:_authToken VALUE`, `aws configure set aws_secret_access_key VALUE`, `git config KEY VALUE`,
# `dotnet user-secrets set "Db:Password" "VALUE"` (same groups as _ASSIGNMENT)
_CONFIG_NAMED = r"(?=[\w.:/@-]{0,100}?(?:" + _KEY_WORDS + r"))"  # a name holding a credential word
_CONFIG_SET = (r"(?i)(?:\b(?:user-secrets|config(?:ure)?)\s+set|\bgit\s+config)\s+"
               r"(?:--?[\w-]+(?:\s+(?!-)(?!" + _CONFIG_NAMED[3:-1] + r")\S+)?\s+)*"  # --profile prod
               r"[\"']?" + _CONFIG_NAMED + r"([\w.:/@-]{1,100}?)[\"']?[ \t]+(\\?[\"'`]?)(\S{1,1000})")
# <apiToken value="…"/>: an element named for the credential, its value in an attribute
_XML_VALUE_ATTRIBUTE = (r"(?i)<([\w.:-]*(?:" + _KEY_WORDS + r")[\w.-]*)\s+(?:value|content)\s*=\s*[\"']"
                        r"([^\"'\n]{1,1000})")
_XML_ELEMENT = r"(?i)<([\w.:-]*(?:" + _KEY_WORDS + r")[\w.-]*)>\s*([^<\s]{1,1000})\s*</"
# <add key="ClearTextPassword" value="…"/>, {"name": "DB_PASSWORD", "value": "…"}, k8s `- name: X\n value: …`
_KEY_VALUE_PAIR = (r"(?i)(?<![\w-])[\"']?(?:key|name)[\"']?\s*[:=]\s*[\"']?([\w.-]{1,100})[\"']?\s*,?\s*(?:-\s*)?"
                   r"[\"']?value[\"']?\s*[:=]\s*(?:[\"']([^\"'\n]{1,300})|([^\s\"',}<>]{1,300}))")
_BUNDLER = r"(?i)\bBUNDLE_[A-Z0-9_]*__[A-Z]{2,}[\"']?\s*[:=]\s*[\"']?[^\s:\"']+:([^\s\"']{1,200})"
_LONE = r"(?<![\w./+=~-])[A-Za-z0-9][\w./+~-]{18,300}[A-Za-z0-9]={0,2}(?![\w/+=~-]|\.\w)"
_CONTEXT_WORD = (r"(?:(?<![A-Za-z])(?i:pass(?:word|wd|phrase|code)?|secret|token|api[ _-]?key|key|credential|creds?"
                 r"|auth|bearer)|(?<=[a-z0-9])(?:Pass(?:word|wd|phrase)?|Secret|Token|Key|Credential|Creds?|Auth))"
                 r"s?(?![a-z])")

# (type, pattern, group holding the secret or None for the whole match, lowercase triggers, check or None)
_RULES: list[tuple[str, str, int | None, tuple[str, ...]] | tuple[str, str, int | None, tuple[str, ...], str]] = [
    ("private_key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                    r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)", None, ("private key",),
     "key_block"),
    ("vendor", "", None, (), "vendors"),  # the vendor table, one pass (memory.store.redact_vendors)
    ("aws_access_key_id", _S + r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[0-9A-Z]{16}" + _E,
     None, ("akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "a3t")),
    ("aws_secret_access_key", r"(?i)aws_?(?:secret_?(?:access_?)?key|secret)(?![A-Za-z0-9])[\"']?\s*[:=]\s*[\"']?"
                              r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])", 1, ("aws",)),
    ("aws_bedrock_key", _S + r"ABSK[A-Za-z0-9+/]{109,269}={0,2}", None, ("absk",)),
    ("gitlab_token", _S + r"(?:glpat|glptt|gldt|glrt|glcbt|glft|glimt|glagent|gloas|glsoat|glffct)-[\w-]{20,}"
                     r"(?:\.[0-9a-z]{9})?", None, ("glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "glft-", "glimt-",
                                                  "glagent-", "gloas-", "glsoat-", "glffct-"), "random"),
    ("gitlab_token", _S + r"GR1348941[\w-]{20,}", None, ("gr1348941",)),
    ("anthropic_key", _S + r"sk-ant-[A-Za-z0-9_-]{20,}", None, ("sk-ant-",)),
    ("stripe_key", _S + r"(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,}" + _E, None, ("_live_", "_test_", "_prod_")),
    ("stripe_key", _S + r"whsec_[A-Za-z0-9+/=]{24,}", None, ("whsec_",)),
    ("openai_key", _S + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}", None, ("sk-",), "strong"),
    ("google_api_key", _S + r"AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])", None, ("aiza",)),
    ("npm_token", _S + r"npm_[A-Za-z0-9]{36}" + _E, None, ("npm_",)),
    ("pypi_token", _S + r"pypi-[A-Za-z0-9_-]{50,}", None, ("pypi-",)),
    ("twilio_key", _S + r"SK[0-9a-fA-F]{32}" + _E, None, ("sk",), "strong"),
    ("heroku_key", _S + r"HRKU-AA[\w-]{58}(?![\w-])", None, ("hrku-",)),
    ("shopify_token", _S + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _E, None, ("shpat_", "shpca_", "shppa_", "shpss_")),
    ("square_token", _S + r"(?:sq0atp-[\w-]{22,60}|sq0csp-[\w-]{40,60}|sq0i[a-z]{2}-[\w-]{22,60}"
                     r"|sq0c[a-z]{2}-[\w-]{40,60}|EAAA[\w-]{22,60})"
                     r"(?![\w-])", None, ("sq0", "eaaa")),
    ("databricks_token", _S + r"dapi[a-f0-9]{32}(?:-\d)?" + _E, None, ("dapi",)),
    ("azure_client_secret", r"(?<![\w~.-])[\w~.]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])", None, ("q~",)),
    ("doppler_token", _S + r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}" + _E, None, ("dp.",)),
    ("linear_key", _S + r"lin_(?:api|oauth)_[A-Za-z0-9]{40}" + _E, None, ("lin_api_", "lin_oauth_")),
    ("grafana_token", _S + r"glc_[A-Za-z0-9+/]{32,400}={0,3}", None, ("glc_",)),
    ("sentry_token", _S + r"(?:sntryu_[a-f0-9]{64}|sntrys_eyJ[\w+/=]{60,})", None, ("sntryu_", "sntrys_")),
    ("planetscale_token", _S + r"pscale_(?:tkn|oauth|pw)_[\w=.-]{32,64}", None, ("pscale_",)),
    ("discord_token", _S + r"[MNO][A-Za-z0-9_-]{23,25}\.[\w-]{6}\.[\w-]{27,38}(?![\w-])", None, ("discord",)),
    ("discord_webhook", r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w-]{40,}", None,
     ("discord",)),
    ("telegram_bot_token", _S + r"\d{5,16}:A[\w-]{34}(?![\w-])", None, (":a",), "random"),
    ("teams_webhook", r"https://[\w.-]+\.webhook\.office\.com/webhookb2/[^\s\"'<>]+", None, ("webhook.office.com",)),
    ("dynatrace_token", _S + r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}" + _E, None, ("dt0c01.",)),
    ("flyio_token", _S + r"(?:fo1_[\w-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})", None, ("fo1_", "fm1", "fm2")),
    ("terraform_token", _S + r"[a-z0-9]{14}\.atlasv1\.[\w=-]{60,70}", None, ("atlasv1",)),
    ("age_secret_key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", None, ("age-secret-key-1",)),
    ("onepassword_token", _S + r"ops_eyJ[A-Za-z0-9+/]{250,}={0,3}", None, ("ops_eyj",)),
    ("authorization", r"(?i)(?<![A-Za-z0-9])(?:authorization[\"']?\s*[:=]\s*[\"']?(?:(?:Bearer|Basic|Token|Bot)\s+)?"
                      r"|Bearer\s+)([A-Za-z0-9._~+/=-]{8,})", 1, ("bearer", "authorization"), "strong"),
    ("url_credentials", r"(?<![A-Za-z0-9+.-])[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@\"'<>]*:([^/\s@\"'<>]+)@", 1, ("://",)),
    ("url_credentials", redact_commands.CURL_USER, 2, ("curl",), "curl"),
    ("cli_password", redact_commands.CLI, 1, redact_commands.CLI_TRIGGERS, "cli"),
    ("cli_password", redact_commands.SLASH_LOGIN, 1, redact_commands.SLASH_TRIGGERS, "cli"),
    ("cli_password", redact_commands.PERCENT_LOGIN, 1, redact_commands.PERCENT_TRIGGERS, "cli"),
    ("cli_password", redact_commands.STDIN_PASSWORD, 1, ("-stdin", "sudo", "chpasswd", "kinit"), "cli"),
    ("url_credentials", redact_commands.HTTPIE_AUTH, 2, (" -a ", " -a=", "--auth"), "curl"),
    ("url_credentials", redact_commands.AUTH_PAIR, 1, ("auth=", "auth =", "basicauth(", "digestauth(", "proxyauth("),
     "strong"),
    ("url_signature", redact_commands.URL_SIGNATURE, 1, ("sig=", "signature="), "strong"),
    ("url_credentials", redact_commands.URL_TOKEN_USER, 1, ("://",), "alone"),
    ("url_credentials", _BUNDLER, 1, ("bundle_",), "strong"),
    ("secret_assignment", _KEY_VALUE_PAIR, 2, ("value",), "pair"),
    ("secret_assignment", _XML_ELEMENT, 2, _KEY_TRIGGERS, "assignment"),
    ("secret_assignment", _XML_VALUE_ATTRIBUTE, 2, ("value", "content"), "pair"),
    ("secret_assignment", _ASSIGNMENT, 3, _KEY_TRIGGERS, "assignment"),
    ("secret_assignment", _FLAG, 3, ("--", " -"), "assignment"),
    ("secret_assignment", _CONFIG_SET, 3, ("config set", "configure set", "git config", "user-secrets"), "assignment"),
    ("secret_assignment", _SPACED_PASSWORD, 3, ("pass", "pwd"), "spaced"),
    ("secret_in_prose", _LONE, None, ("pass", "secret", "token", "key", "cred", "auth", "bearer"), "prose"),
]
_TRIGGERS = [(trigger, index) for index, rule in enumerate(_RULES) for trigger in rule[3]]


def _assignment_value(match: re.Match) -> tuple[int, int] | None:
    """Span of the secret in a `key = value` match, or None when it is not one."""
    key = match.group(1)
    strength = credential_key(key)
    last = match.lastindex or 0  # never 0: both assignment rules end in a group that always takes part
    start = match.start(last)
    between = match.string[match.end(1):start]
    if strength == "weak" and "," in between:
        strength = None  # a list of quoted names, not a ("NAME", "value") pair
    if strength is None:
        return None
    raw = match.group(last)
    quote = match.group(2).lstrip("\\@rRbBuUfF")[:1] if last == 3 else ""  # one of " ' `
    stop = rx(rf"[\\{quote}]" if quote else r"[\"'`,;)\]}\\<]|&(?=\w+=)").search(raw)
    value = raw[:stop.start()] if stop else raw
    value = value.rstrip(".") if not quote else value  # the full stop ending a sentence
    if not looks_secret(value, strict=strength == "weak"):
        return None
    return start, start + len(value)


def _pair_value(match: re.Match) -> tuple[int, int] | None:
    group = 2 if match.group(2) is not None else 3
    strength = credential_key(match.group(1))
    if strength is None or not looks_secret(match.group(group), strict=strength == "weak"):
        return None
    return match.span(group)


def _in_credential_sentence(text: str, start: int, end: int) -> bool:
    """A credential word in the same sentence, before the token or just after it."""
    left = text[max(0, start - 120):start]
    left = re.split(r"[.!?](?:\s|$)|\n\s*\n|\n(?=\S)", left)[-1]
    right = re.split(r"[.!?](?:\s|$)|\n", text[end:end + 40])[0]
    return bool(rx(_CONTEXT_WORD).search(left) or rx(_CONTEXT_WORD).search(right))


def _span(kind: str, check: str | None, group: int | None, match: re.Match) -> tuple[int, int] | None:
    """Span of the secret in `match`, or None when the check says it is not one."""
    if check == "assignment":
        return _assignment_value(match)
    if check == "spaced":
        span = _assignment_value(match)
        return span if span and typed_password(match.string[span[0]:span[1]]) else None
    if check == "pair":
        return _pair_value(match)
    if group and match.group(group) is None:  # a rule whose alternatives each have their own group
        group = match.lastindex
    secret = match.group(group) if group else match.group(0)
    # sk_test_xxxx…, AKIA…EXAMPLE, ${TOKEN}, "$REDIS_PASSWORD"
    if secret.startswith("<redacted:") or rx(PLACEHOLDER).search(secret.strip("\"'")):
        return None
    if check == "cli":
        bare = secret.strip("\"'")
        if not bare or bare.startswith("-") or len(bare) < 4:
            return None
        offset = match.start(group or 0) + (len(secret) - len(secret.lstrip("\"'")))
        return offset, offset + len(bare)
    if check == "curl" and (match.group(1).startswith("$") or secret.startswith("$")):
        return None
    if check in ("strong", "curl") and not looks_secret(secret):
        return None
    if check == "alone" and not looks_random_alone(secret):
        return None
    if check == "random" and not looks_random(secret):
        return None
    if check == "key_block" and not rx(r"[A-Za-z0-9+/=]{32,}").search(secret):  # a stub: `...`, `<your key>`
        return None
    if check == "prose" and not (looks_random_alone(secret) and _in_credential_sentence(match.string, *match.span())):
        return None
    return match.span(group or 0)


def _vendor_pass(text: str, lowered: str, found: list[str]) -> str:
    """The triggered vendor formats of memory.store.redact_vendors, as one alternation in one pass."""
    if len(text) < 16:  # no vendor token is shorter
        return text
    indexes = tuple(sorted({index for trigger, index in redact_vendors.TRIGGERS if trigger in lowered}))
    if not indexes:
        return text

    def replace(match: re.Match) -> str:
        kind = redact_vendors.VENDORS[indexes[(match.lastindex or 1) - 1]][0]
        if not looks_random(match.group(0)):
            return match.group(0)
        found.append(kind)
        return f"<redacted:{kind}>"
    return rx(redact_vendors.alternation(indexes)).sub(replace, text)


def redact(text: str) -> tuple[str, list[str]]:
    """`text` with credentials replaced, and the sorted list of credential types found."""
    found: list[str] = []
    if len(text) < 8:  # shorter than any credential (record fields such as `main`, `learned`, `BD-1`)
        return text, found
    lowered = text.lower()
    triggered = {index for trigger, index in _TRIGGERS if trigger in lowered} | {1}
    for index in sorted(triggered):
        kind, source, group, _, *check = _RULES[index]
        if check == ["vendors"]:
            text = _vendor_pass(text, lowered, found)
            continue
        text = rx(source).sub(_replacer(kind, group, check[0] if check else None, found), text)
    return text, sorted(set(found))


def _replacer(kind: str, group: int | None, check: str | None,
              found: list[str]) -> Callable[[re.Match], str]:
    def replace(match: re.Match) -> str:
        span = _span(kind, check, group, match)
        if span is None:
            return match.group(0)
        found.append(kind)
        offset, full = match.start(0), match.group(0)
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
