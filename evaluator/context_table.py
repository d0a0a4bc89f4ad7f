"""A candidate's `context = { … }` table (§18), read into a `ContextSpec` before any work.

The candidates file owns the table's keys; this module checks them (one of `window` or
`parent`, a window between 1 and MAX_WINDOW, a parent that is a splitter table of its own,
`merge` a boolean beside a window, `merge_ratio` in (0, 1] beside a parent) so every refusal
names the candidate and the key, `context.window` or `context.parent.size`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from evaluator.candidate_keys import CONTEXT, PARENT
from evaluator.chunking.spec import MAX_WINDOW, ContextSpec, SplitterSpec
from labeler.core.errors import ConfigError

CONTEXT_KEYS = CONTEXT.names()
"""Keys of a `context` table: one of window or parent, `merge` with a window (§24),
`merge_ratio` with a parent."""
PARENT_KEYS = PARENT.names()
"""Keys of `context.parent`: a candidate's splitter keys, without a name or a context."""


def read_context(
    raw: Any, name: str, file: str, build: Callable[[dict[str, Any], str], SplitterSpec]
) -> ContextSpec:
    """The candidate's context; `build(table, where)` makes and validates the parent's spec
    as the candidates file makes a candidate's."""
    label = f"candidate {name!r}: context"
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{label} must be a table", file=file, key="context")
    _known(raw, CONTEXT_KEYS, label, file, "context")
    found = [key for key in ("window", "parent") if key in raw]
    if len(found) != 1:
        message = f"{label} needs one of window or parent, not {len(found)}"
        raise ConfigError(message, file=file, key="context")
    if "window" in raw:
        _beside(raw, "merge_ratio", "parent", label, file)
        merge = _merge(raw.get("merge", True), label, file)
        return ContextSpec(window=_window(raw["window"], label, file), merge=merge)
    _beside(raw, "merge", "window", label, file)
    ratio = _ratio(raw["merge_ratio"], label, file) if "merge_ratio" in raw else None
    return ContextSpec(parent=_parent(raw["parent"], name, file, build), merge_ratio=ratio)


def _beside(raw: Mapping[str, Any], key: str, needs: str, label: str, file: str) -> None:
    """Refuse `key` in a context that has not the unit it applies to."""
    if key in raw:
        message = f"{label}: {key} applies to a {needs}, not here"
        raise ConfigError(message, file=file, key=f"context.{key}")


def _merge(value: Any, label: str, file: str) -> bool:
    if not isinstance(value, bool):
        message = f"{label}: merge must be true or false, got {value!r}"
        raise ConfigError(message, file=file, key="context.merge")
    return value


def _ratio(value: Any, label: str, file: str) -> float:
    """A share in (0, 1]: LlamaIndex merges when more than it is retrieved (1: never)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        message = f"{label}: merge_ratio must be a number in (0, 1], got {value!r}"
        raise ConfigError(message, file=file, key="context.merge_ratio")
    return float(value)


def _known(raw: Mapping[str, Any], known: Sequence[str], label: str, file: str, at: str) -> None:
    """Refuse the first key of a context table that is not `known`, naming it."""
    for key in raw:
        if key not in known:
            message = f"{label}: unknown key {key!r} (known: {', '.join(known)})"
            raise ConfigError(message, file=file, key=f"{at}.{key}")


def _window(value: Any, label: str, file: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        message = f"{label}: window must be an integer, got {value!r}"
        raise ConfigError(message, file=file, key="context.window")
    if not 1 <= value <= MAX_WINDOW:
        message = f"{label}: window must lie between 1 and {MAX_WINDOW:,}, got {value:,}"
        raise ConfigError(message, file=file, key="context.window")
    return value


def _parent(
    raw: Any, name: str, file: str, build: Callable[[dict[str, Any], str], SplitterSpec]
) -> SplitterSpec:
    label = f"candidate {name!r}: context.parent"
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{label} must be a table", file=file, key="context.parent")
    _known(raw, PARENT_KEYS, label, file, "context.parent")
    try:
        return build(dict(raw), label)
    except ConfigError as exc:
        where, message = f"candidate {name!r}:", exc.message
        if not message.startswith(label):  # the splitter's own checks name the candidate only
            message = message.replace(where, f"{where} context.parent:", 1)
        key = f"context.parent.{exc.key}" if exc.key else "context.parent"
        raise replace(exc, message=message, key=key, file=exc.file or file) from None
