"""The candidates file's `[gates]` (§7, §17): limits overall, per slice and per boundary
pattern, checked against what the run will compute before any work starts.

Split from `candidates` so the settings and the gates each stay one readable module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.candidate_keys import GATES, GENERATION_GATES
from labeler.core.errors import ConfigError
from labeler.core.names import check_name
from labeler.core.typed import Refusal, typed
from labeler.core.values import Boundary, valid_slice

GATE_KEYS = GATES.names()
"""Every gate a candidates file may set; the last three gate cost (§17)."""
VECTOR_GATES = ("max_index_bytes_ratio",)
"""Gates on a figure only a retriever with vectors computes (the vectors' bytes)."""


@dataclass(frozen=True)
class Gates:
    overall: dict[str, float] = field(default_factory=dict)
    """Gate name -> limit, over every query."""
    slices: dict[str, dict[str, float]] = field(default_factory=dict)
    """Slice -> gate name -> limit, over that slice's queries."""
    patterns: dict[str, dict[str, float]] = field(default_factory=dict)
    """Boundary pattern -> gate name -> limit, over the queries of that pattern (§17)."""
    generation: dict[str, float] = field(default_factory=dict)
    """`[gates.generation]`: gate name -> limit on the answers (§23)."""

    def set_gates(self) -> list[tuple[str, str]]:
        """(key path, gate) for every gate set, as messages name them."""
        scopes = [("gates", self.overall)]
        scopes += [(f"gates.slice.{n}", t) for n, t in self.slices.items()]
        scopes += [(f"gates.pattern.{n}", t) for n, t in self.patterns.items()]
        return [(f"{where}.{gate}", gate) for where, table in scopes for gate in table]


@dataclass(frozen=True)
class _Limit:
    """A gate's limit: any number."""

    file: str
    """The candidates file."""
    where: str
    """Its table, as messages name it: `gates`, `gates.slice.critical`."""
    key: str
    """The gate."""

    def at(self, key: str) -> _Limit:
        return _Limit(self.file, self.where, f"{self.key}.{key}")

    def refuse(self, refusal: Refusal) -> ConfigError:
        return ConfigError(f"{self.where}: {self.key} must be a number", file=self.file,
                           key=self.key)  # fmt: skip


def _limits(
    table: Mapping[str, Any], where: str, file: str, known: tuple[str, ...] = GATE_KEYS
) -> dict[str, float]:
    out: dict[str, float] = {}
    for key, value in table.items():
        if key not in known:
            raise ConfigError(
                f"{where}: unknown gate {key!r} (known: {', '.join(known)})",
                file=file,
                key=f"{where}.{key}",
            )
        out[key] = float(typed(value, float, _Limit(file, where, key)))
    return out


def _tables(raw: Any, kind: str, file: str) -> dict[str, Any]:
    """`[gates.KIND.NAME]` tables, each name checked."""
    found = raw.get(kind, {})
    if not isinstance(found, dict) or not all(isinstance(v, dict) for v in found.values()):
        raise ConfigError(f"[gates.{kind}.NAME] must be tables", file=file, key=f"gates.{kind}")
    for name in found:
        key = f"gates.{kind}.{name}"
        if kind == "pattern" and name not in {b.value for b in Boundary}:
            known = ", ".join(b.value for b in Boundary)
            raise ConfigError(f"unknown boundary pattern {name!r} (known: {known})", file=file,
                              key=key)  # fmt: skip
        if kind == "slice" and not valid_slice(name):
            check_name(name, "slice name", file=file, key=key, error=ConfigError)
            raise ConfigError(f"slice name {name!r} holds white space or a comma", file=file,
                              key=key)  # fmt: skip
    return found


def read_gates(raw: Any, file: str) -> Gates:
    """`[gates]` as read: every key known, every limit a number."""
    if raw is None:
        return Gates()
    if not isinstance(raw, dict):
        raise ConfigError("[gates] must be a table", file=file, key="gates")
    slices, patterns = _tables(raw, "slice", file), _tables(raw, "pattern", file)
    top = {k: v for k, v in raw.items() if k not in ("slice", "pattern", "generation")}
    overall = _limits(top, "gates", file)
    answers = raw.get("generation", {})
    if not isinstance(answers, dict):
        raise ConfigError("[gates.generation] must be a table", file=file, key="gates.generation")
    return Gates(
        overall,
        {n: _limits(t, f"gates.slice.{n}", file) for n, t in slices.items()},
        {n: _limits(t, f"gates.pattern.{n}", file) for n, t in patterns.items()},
        _answer_limits(answers, file),
    )


def _answer_limits(table: Mapping[str, Any], file: str) -> dict[str, float]:
    """`[gates.generation]`: its own keys; `max_failed` a share of prompts, 0 to 1."""
    found = _limits(table, "gates.generation", file, GENERATION_GATES.names())
    share = found.get("max_failed")
    if share is not None and not 0.0 <= share <= 1.0:
        raise ConfigError(
            f"gates.generation: max_failed must be a share of a candidate's prompts from 0 to 1 "
            f"(0.05: at most 5 % without an answer), not {share:g}",
            file=file, key="gates.generation.max_failed",
        )  # fmt: skip
    return found


def uncomputed(gates: Gates, without_vectors: str | None) -> tuple[str, str] | None:
    """(key, message) for the first gate on a figure the run will not compute;
    `without_vectors` names what stores no vectors (the retriever, or a candidate whose own
    retriever does not), None when every candidate's does."""
    for key, gate in gates.set_gates():
        if gate in VECTOR_GATES and without_vectors is not None:
            return key, f"{key}: {without_vectors} stores no vectors, so no index bytes to gate"
    return None
