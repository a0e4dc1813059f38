"""Secrets kept out of every message and log line that shows a model entry.

An entry may carry a key by mistake (`api_key: sk-...`, a token in `base_url`, a header): a value
under a key whose name says secret (key, token, secret, password, authorization, credential) is
replaced whole, and any text that looks like a token (`sk-...`, `hf_...`, a long run of letters and
digits) is replaced wherever it appears. The way to give a key is `api_key_env`, the name of an
environment variable, which is shown as it is.
"""
from __future__ import annotations

import re
from typing import Any

MASK = "***"
_SECRET_KEY = re.compile(r"key|token|secret|passw|authori[sz]ation|credential|bearer|cookie", re.I)
# Names of environment variables are not secrets: `api_key_env: OPENAI_API_KEY` is the recommended way.
_NAME_KEY = re.compile(r"_env$", re.I)
_PREFIXED_TOKEN = re.compile(r"\b(?:sk|pk|rk|hf|ghp|gho|ghs|github_pat|xox[abpr]|glpat|AKIA)[-_][A-Za-z0-9_\-]{6,}")
_LONG_RUN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{32,}(?![A-Za-z0-9])")
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{8,}")
_URL_CREDENTIALS = re.compile(r"(?<=://)[^/@\s:]+:[^/@\s]+(?=@)")


def _looks_like_token(run: str) -> bool:
    """A long run with letters and digits both; a sha256 hex digest (a cache key, a file's hash) is no secret."""
    return any(c.isdigit() for c in run) and any(c.isalpha() for c in run) and not re.fullmatch(r"[0-9a-f]{64}", run)


def redact_text(text: str) -> str:
    """`text` with every token-like substring replaced by MASK."""
    text = _URL_CREDENTIALS.sub(MASK, text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {MASK}", text)
    text = _PREFIXED_TOKEN.sub(MASK, text)
    return _LONG_RUN.sub(lambda m: MASK if _looks_like_token(m.group(0)) else m.group(0), text)


def is_secret_key(key: Any) -> bool:
    return isinstance(key, str) and bool(_SECRET_KEY.search(key)) and not _NAME_KEY.search(key)


def redact_entry(value: Any) -> Any:
    """A copy of an entry (mappings and lists, nested) safe to show: secret-keyed values and tokens masked."""
    if isinstance(value, dict):
        return {k: (MASK if is_secret_key(k) and v is not None else redact_entry(v)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact_entry(v) for v in value)
    if isinstance(value, str):
        return redact_text(value)
    return value


def secret_values(value: Any) -> set[str]:
    """Every text under a secret-named key of an entry, at any depth (to scrub from any message)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            if is_secret_key(k) and v is not None and not isinstance(v, (dict, list, tuple)):
                found.add(str(v))
            found |= secret_values(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            found |= secret_values(v)
    return found


def scrub(message: str, entries: Any) -> str:
    """`message` with the secrets of `entries` (and anything token-like) masked, however it quoted them."""
    for secret in sorted(secret_values(entries), key=len, reverse=True):
        if secret:
            message = message.replace(repr(secret)[1:-1], MASK).replace(secret, MASK)
    return redact_text(message)
