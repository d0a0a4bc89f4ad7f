"""Credentials out of every message (§21): the one function that every error, warning and
server message passes before anyone sees it, so a key in a URL someone configured
(`user:pass@`, `?api_key=`, `token=`) or a bearer token a server echoes is never shown.

Records (run.json, fingerprints) keep a URL without its user or query at all
(`evaluator.embedding.server.public_url`); this is for free text, where URLs sit in words.
"""

from __future__ import annotations

import re

REDACTED = "[redacted]"
"""What stands where a credential was."""
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@?#]*@")
"""`scheme://user:password@` (any user part: a token is often the user alone)."""
_PARAM = re.compile(
    r"(?i)(^|[?&;\s,(\"'])([\w.-]*(?:key|token|secret|pass|password|passwd|pwd|auth|sig|"
    r"signature|credentials?|session)=)[^&\s#\"',;)]+"
)
"""`api_key=…`, `access_token=…`, `password=…`, `X-Amz-Signature=…`: a parameter whose name
ends in a word for a secret, in a query or in words (`max_tokens=` is no secret)."""
_SCHEME = re.compile(r"(?i)\b(bearer)(\s+)[A-Za-z0-9._~+/=-]{4,}")
"""`Bearer sk-…`: an Authorization header's value, wherever a server echoes it."""
_HEADER = re.compile(
    r"(?i)\b((?:proxy-)?authorization|x-api-key|api-key)(\s*[:=]\s*)"
    r"(?:(?:bearer|basic|token)\s+)?[^\s,;]+"
)
"""`Authorization: …`, `x-api-key=…` written out."""


def redact(text: str, *secrets: str) -> str:
    """`text` with every credential it holds replaced by `[redacted]`: each of `secrets`
    (4 characters or more: a key spanlab holds), then what looks like one."""
    for secret in secrets:
        if len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    text = _USERINFO.sub(rf"\1{REDACTED}@", text)
    text = _PARAM.sub(rf"\1\2{REDACTED}", text)
    text = _HEADER.sub(rf"\1\2{REDACTED}", text)
    return _SCHEME.sub(rf"\1\2{REDACTED}", text)
