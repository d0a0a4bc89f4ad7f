"""`[extraction]` in a candidates file (§22): alternatives to the project's extraction.

Read once at the edge into frozen values, every key checked against the key registry and
every extractor and setting against the extractor table, so a run starts only when the
whole table is right; an error names the file and the key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaluator import candidate_keys as keys
from labeler.core.corpus.extract.choices import Chosen, choose
from labeler.core.errors import ConfigError
from labeler.core.names import check_name

DEFAULT_CONFIDENCE = 0.7
"""Least re-anchoring score at which a span counts as found in an alternative's text: an
exact quote scores 0.54 on its own (§8's weights) and needs some of its context to reach
it; an edited quote, its context too."""
MAX_ALTERNATIVES = 20
"""Most alternatives one run compares (each is a re-extraction and an index)."""


@dataclass(frozen=True)
class Alternative:
    """One alternative extraction."""

    name: str
    """As reports print it."""
    chosen: Chosen
    """The extractor and its settings."""

    def describe(self) -> str:
        """`pdf:pypdfium2 tables=off`."""
        settings = " ".join(f"{k}={v}" for k, v in self.chosen.settings)
        return f"{self.chosen.choice.name} {settings}".strip()


@dataclass(frozen=True)
class Extraction:
    """The `[extraction]` table: a threshold and the alternatives."""

    confidence: float
    """Least re-anchoring score at which a span counts as found."""
    alternatives: tuple[Alternative, ...]
    """In file order."""


def _unknown(table: dict[str, Any], known: tuple[str, ...], where: str, file: str) -> None:
    for key in table:
        if key not in known:
            raise ConfigError(f"{where}: unknown key {key[:40]!r} (known: {', '.join(known)})",
                              file=file, key=f"{where}.{key}")  # fmt: skip


def _alternative(raw: Any, index: int, file: str) -> Alternative:
    where = f"extraction.alternative[{index}]"
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} must be a table", file=file, key=where)
    _unknown(raw, keys.EXTRACTION_ALTERNATIVE.names(), where, file)
    for key in ("name", "extractor"):
        if key not in raw:
            raise ConfigError(f"{where}: missing key {key!r}", file=file, key=f"{where}.{key}")
    check_name(raw["name"], "alternative name", file=file, key=f"{where}.name",
               error=ConfigError)  # fmt: skip
    return Alternative(raw["name"], choose(raw["extractor"], raw.get("settings", {}),
                                           file=file, key=where))  # fmt: skip


def read_extraction(raw: Any, file: str) -> Extraction | None:
    """The `[extraction]` table, or None when the file has none."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ConfigError("extraction must be a table", file=file, key="extraction")
    _unknown(raw, keys.EXTRACTION.names(), "extraction", file)
    confidence = raw.get("confidence", DEFAULT_CONFIDENCE)
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise ConfigError("extraction: confidence must be a number", file=file,
                          key="extraction.confidence")  # fmt: skip
    if not 0 < confidence <= 1:
        raise ConfigError(f"extraction: confidence must lie in (0, 1], got {confidence}",
                          file=file, key="extraction.confidence")  # fmt: skip
    found = raw.get("alternative")
    if not isinstance(found, list) or not found:
        raise ConfigError("extraction: no [[extraction.alternative]] tables", file=file,
                          key="extraction.alternative")  # fmt: skip
    if len(found) > MAX_ALTERNATIVES:
        raise ConfigError(f"extraction: at most {MAX_ALTERNATIVES} alternatives", file=file,
                          key="extraction.alternative")  # fmt: skip
    alternatives = tuple(_alternative(a, i, file) for i, a in enumerate(found))
    names = [a.name for a in alternatives]
    for i, name in enumerate(names):
        if names.index(name) != i:
            raise ConfigError(f"alternative name {name!r} is used twice", file=file,
                              key=f"extraction.alternative[{i}].name")  # fmt: skip
    return Extraction(float(confidence), alternatives)
