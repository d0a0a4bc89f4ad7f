"""Treatment keys as `[settings]` defaults (§19): every candidate takes them unless it sets
its own, and `false` on a candidate turns a default table off.

Split from `candidates` so the candidates file's reader stays one readable module; a
refusal of a default a candidate took names `settings.KEY`, not the candidate's key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from evaluator.candidate_keys import DEFAULT_TREATMENTS as DEFAULT_TREATMENTS
from evaluator.retrieval import treatment as treatments
from evaluator.retrieval.treatment import Treatment
from labeler.core.errors import ConfigError

SWITCHED = ("mmr", "rerank", "max_per_source", "filter")
"""Defaults a candidate turns off with `false`."""


def with_defaults(raw: dict[str, Any], defaults: Mapping[str, Any], label: str,
                   file: str) -> dict[str, Any]:  # fmt: skip
    """The candidate's table with the settings' treatment defaults it does not set; `false`
    on a candidate drops a default table or number."""
    merged = {**{k: v for k, v in defaults.items() if k not in raw}, **raw}
    for key in SWITCHED:
        if merged.get(key) is True:
            message = (f"{label}: {key!r} has the wrong type (true): it takes a table or a "
                       "number, or false to turn a [settings] default off")  # fmt: skip
            raise ConfigError(message, file=file, key=key)
        if merged.get(key) is False:
            del merged[key]
    return merged


def treatment_of(raw: dict[str, Any], defaults: Mapping[str, Any], label: str, retriever: str,
                 known: tuple[str, ...], file: str) -> Treatment:  # fmt: skip
    """The candidate's treatment; a refusal of a default it took names `settings.KEY`."""
    try:
        return treatments.parse(with_defaults(raw, defaults, label, file), label, retriever,
                                known, file)  # fmt: skip
    except ConfigError as exc:
        base = (exc.key or "").split(".")[0]
        if base in defaults and base not in raw:
            exc.key = f"settings.{exc.key}"
            exc.message += " (the [settings] default)"
        raise replace(exc, file=file) from None
