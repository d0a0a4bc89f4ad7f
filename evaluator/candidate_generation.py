"""The candidates file's `[generation]` table (§23), read once into a frozen value.

The template is read here too, at the edge, so its text and its sha256 travel together and
every later step (the prompt, the cache key, the manifest) reads the same bytes. A template
or key another account can write would steer what is asked: refused, naming the key.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from evaluator.candidate_keys import GENERATION
from labeler.core.display import unsafe_at
from labeler.core.errors import ConfigError
from labeler.core.team.steering import others_may_write
from labeler.core.typed import Refusal, sized, typed

SOURCES, QUESTION = "{{sources}}", "{{question}}"
"""The template's two placeholders, each exactly once."""
MAX_TEMPLATE = 64 * 1024
"""Largest template file (bytes)."""
MAX_SEED = 2**32 - 1
MAX_TOKENS = 32_768
MAX_TIMEOUT = 3600.0
ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]{0,63}")
"""What `key_env` may name: an environment variable, nothing else."""
DEFAULT_KEY_ENV = "SPANLAB_GENERATION_KEY"
SEND = ("hit", "all")
"""Which answerable queries are asked: those hit at budget (per candidate), or all."""


@dataclass(frozen=True)
class Generation:
    """The generator, its decoding and its prompt, fixed for every candidate."""

    url: str
    """The API's base URL; requests go to `{url}/chat/completions`."""
    model: str
    """The model name sent."""
    template: str
    """Where the template was read (resolved against the candidates file)."""
    template_text: str
    """The template's text, with `{{sources}}` and `{{question}}` once each."""
    template_sha256: str
    """`sha256:` and the hex digest of the template's bytes: the manifest's and the cache's."""
    abstention: str
    """The phrase the template asks for when the sources do not hold the answer."""
    temperature: float = 0.0
    """Always 0: greedy decoding, so a rerun asks for the same answer."""
    seed: int = 0
    """Sent with every request."""
    max_tokens: int = 512
    """Most tokens an answer may take."""
    key_env: str = DEFAULT_KEY_ENV
    """The environment variable the bearer key is read from (never stored here)."""
    timeout: float = 120.0
    """Seconds one request may take, whole."""
    send: str = "hit"
    """Which answerable queries are asked: `hit` (at budget, per candidate) or `all`."""

    @property
    def endpoint_url(self) -> str:
        return self.url.rstrip("/") + "/chat/completions"

    def decoding(self) -> str:
        """The decoding as one canonical string, for the cache key."""
        return f"temperature={self.temperature:g};seed={self.seed};max_tokens={self.max_tokens}"

    def key(self) -> str:
        """The bearer key from the environment; empty when unset (a local server)."""
        return os.environ.get(self.key_env, "")


@dataclass(frozen=True)
class _Key:
    """A key of `[generation]`, as `typed` refuses it."""

    file: str
    key: str = ""

    def at(self, key: str) -> _Key:
        return replace(self, key=key)

    def refuse(self, refusal: Refusal) -> ConfigError:
        said = refusal.message if not refusal.about_type else f"wrong type ({refusal.got})"
        return self.error(said)

    def error(self, message: str) -> ConfigError:
        where = f"generation.{self.key}" if self.key else "generation"
        return ConfigError(f"[generation]: {message}", file=self.file, key=where)


def read_generation(raw: Any, file: str) -> Generation | None:
    """`[generation]` checked whole (types, ranges, the template file); None when absent."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise _Key(file).error("must be a table")
    types = GENERATION.types()
    for key, value in raw.items():
        if key not in types:
            known = ", ".join(types)
            raise _Key(file, key).error(f"unknown key {key!r} (known: {known})")
        typed(value, types[key], _Key(file, key))
    for key in ("url", "model", "template", "abstention"):
        if key not in raw:
            raise _Key(file, key).error(f"needs {key!r}")
    values = {k: v for k, v in raw.items() if k != "template"}
    values["temperature"] = float(raw.get("temperature", 0.0))
    values["timeout"] = float(raw.get("timeout", 120.0))
    path = _relative(file, raw["template"])
    text, digest = read_template(path, _Key(file, "template"))
    found = Generation(template=str(path), template_text=text, template_sha256=digest, **values)
    _check(found, _Key(file))
    return found


def _relative(file: str, template: str) -> Path:
    path = Path(template)
    if path.is_absolute() or file.startswith("preset:"):
        return path
    return Path(file).parent / path


def read_template(path: Path, where: _Key) -> tuple[str, str]:
    """The template's text and `sha256:…`, once it is a regular file of the runner's own,
    UTF-8, within MAX_TEMPLATE, holding each placeholder once."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        raise where.error(f"cannot read the template {str(path)!r}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise where.error(f"the template {str(path)!r} is not a regular file")
        if why := others_may_write(info):
            raise where.error(f"the template {str(path)!r} steers what is asked, and {why}")
        raw = sized(handle.read(MAX_TEMPLATE + 1), MAX_TEMPLATE, where)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise where.error(f"the template is not UTF-8 (byte {exc.start})") from None
    for mark in (SOURCES, QUESTION):
        if text.count(mark) != 1:
            raise where.error(f"the template must hold {mark} once, not {text.count(mark)} times")
    return text, "sha256:" + hashlib.sha256(raw).hexdigest()


def _check(g: Generation, where: _Key) -> None:
    checks = [
        ("url", not re.match(r"https?://[^/\s]+", g.url), "url must be http:// or https://"),
        ("model", not g.model.strip(), "model must not be empty"),
        ("temperature", g.temperature != 0.0 or not math.isfinite(g.temperature),
         f"temperature must be 0 (greedy: answers are cached), got {g.temperature:g}"),
        ("seed", not 0 <= g.seed <= MAX_SEED, f"seed must be 0 to {MAX_SEED}, got {g.seed}"),
        ("max_tokens", not 1 <= g.max_tokens <= MAX_TOKENS,
         f"max_tokens must be 1 to {MAX_TOKENS:,}, got {g.max_tokens}"),
        ("key_env", not ENV_NAME.fullmatch(g.key_env),
         f"key_env must name an environment variable (A-Z, 0-9, _), got {g.key_env[:40]!r}"),
        ("timeout", not 1.0 <= g.timeout <= MAX_TIMEOUT,
         f"timeout must be 1 to {MAX_TIMEOUT:g} seconds, got {g.timeout:g}"),
        ("abstention", not g.abstention.strip(), "abstention must not be empty"),
        ("model", unsafe_at(g.model) is not None, "model holds a control character"),
        ("abstention", unsafe_at(g.abstention) is not None,
         "abstention holds a control character"),
        ("template", unsafe_at(g.template) is not None, "the template's path holds a control "
         "character"),
        ("send", g.send not in SEND, f"send must be \"hit\" or \"all\", got {g.send[:20]!r}"),
        ("abstention", g.abstention.strip() not in g.template_text,
         "the abstention phrase must appear in the template (the model is told to use it)"),
    ]  # fmt: skip
    for key, bad, message in checks:
        if bad:
            raise replace(where, key=key).error(message)
