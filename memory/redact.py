"""Credentials out before anything is written: well-shaped secrets become `<redacted:TYPE>`.

Precision matters as much as recall: a false positive permanently damages stored knowledge, so every
pattern is anchored on a vendor prefix or a credential-shaped context, and the generic
`password=`-style rule also demands a high-entropy value. Commit SHAs, UUIDs, checksums, versions,
paths and colours carry none of these shapes.
"""
from __future__ import annotations

import math
import re

TYPE_CHECKING = False  # typing costs ~3 ms to import; annotations are strings here
if TYPE_CHECKING:
    from typing import Any, Callable, List, Optional, Tuple

# (type, pattern, group holding the secret or None for the whole match, lowercase trigger substrings).
# A rule is compiled and run only when one of its triggers occurs, which keeps a capture cheap.
_RULES = [
    ("private_key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                    r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)", None, ("private key",)),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", None, ("eyj",)),
    ("aws_access_key_id", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[0-9A-Z]{16}\b", None,
     ("akia", "asia", "agpa", "aida", "aroa", "aipa", "anpa", "anva")),
    ("aws_secret_access_key", r"(?i)\baws_?(?:secret_?(?:access_?)?key|secret)\b[\"']?\s*[:=]\s*[\"']?"
                              r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])", 1, ("aws",)),
    ("github_token", r"\b(?:ghp|gho|ghs|ghr|ghu)_[A-Za-z0-9]{36,255}\b", None, ("ghp_", "gho_", "ghs_", "ghr_", "ghu_")),
    ("github_token", r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b", None, ("github_pat_",)),
    ("gitlab_token", r"\bglpat-[A-Za-z0-9_-]{20,}", None, ("glpat-",)),
    ("slack_webhook", r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/]{20,}", None, ("hooks.slack.com",)),
    ("slack_token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}", None, ("xox",)),
    ("anthropic_key", r"\bsk-ant-[A-Za-z0-9_-]{20,}", None, ("sk-ant-",)),
    ("stripe_key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b", None, ("_live_", "_test_")),
    ("openai_key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}", None, ("sk-",)),
    ("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])", None, ("aiza",)),
    ("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b", None, ("npm_",)),
    ("pypi_token", r"\bpypi-[A-Za-z0-9_-]{50,}", None, ("pypi-",)),
    ("authorization", r"(?i)\b(?:Bearer|Basic|Token)\s+([A-Za-z0-9._~+/=-]{12,})", 1, ("bearer", "basic", "token")),
    ("url_credentials", r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@\"'<>]+:([^/\s@\"'<>]+)@", 1, ("://",)),
    ("secret_assignment", r"(?i)\b(?:password|passwd|pwd|secret|client_?secret|token|access_?token|auth_?token"
                          r"|refresh_?token|api_?key|apikey|private_?key|secret_?key)\b[\"']?\s*[:=]\s*[\"']?"
                          r"([^\s\"'`,;)]{8,})", 1,
     ("pass", "pwd", "secret", "token", "key")),
]
_compiled: dict = {}
_NEEDS_ENTROPY = {"secret_assignment", "openai_key", "authorization"}
_PLACEHOLDER = r"(?i)^(?:\$|<|\{|%|\*|x{4,}|\.\.\.)|changeme|example|redacted|placeholder|your[_-]"


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    if not value:
        return 0.0
    counts = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    return -sum(c / len(value) * math.log2(c / len(value)) for c in counts.values())


def _looks_secret(value: str) -> bool:
    if re.search(_PLACEHOLDER, value):
        return False
    classes = sum((any(c.islower() for c in value), any(c.isupper() for c in value),
                   any(c.isdigit() for c in value), any(not c.isalnum() for c in value)))
    return classes >= 2 and entropy(value) >= 3.0


def redact(text: str) -> Tuple[str, List[str]]:
    """`text` with credentials replaced, and the sorted list of credential types found."""
    found: List[str] = []
    lowered = text.lower()
    for kind, source, group, triggers in _RULES:
        if not any(t in lowered for t in triggers):
            continue
        pattern = _compiled.get(source) or _compiled.setdefault(source, re.compile(source))
        text = pattern.sub(_replacer(kind, group, found), text)
    return text, sorted(set(found))


def _replacer(kind: str, group: Optional[int], found: List[str]) -> Callable[[re.Match], str]:
    def replace(match: re.Match) -> str:
        secret = match.group(group) if group else match.group(0)
        if secret.startswith("<redacted:"):
            return match.group(0)
        if kind in _NEEDS_ENTROPY and not _looks_secret(secret):
            return match.group(0)
        if group is not None and re.search(_PLACEHOLDER, secret):
            return match.group(0)
        found.append(kind)
        if group is None:
            return f"<redacted:{kind}>"
        start, end = match.span(group)
        whole_start = match.start(0)
        full = match.group(0)
        return full[:start - whole_start] + f"<redacted:{kind}>" + full[end - whole_start:]
    return replace


def scrub_record(record: Any) -> Any:
    """A copy of a JSON-like record with every string redacted; found types merge into `redacted`."""
    found: List[str] = []

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
        previous = cleaned.get("redacted") if isinstance(cleaned.get("redacted"), list) else []
        cleaned["redacted"] = sorted(set(previous) | set(found))
    return cleaned
