"""A candidate's `context = { … }` table (§18), read into a `ContextSpec` before any work.

The candidates file owns the table's keys; this module checks them (one of `window` or
`parent`, a window between 1 and MAX_WINDOW, a parent that is a splitter table of its own)
so every refusal names the candidate and the key, `context.window` or `context.parent.size`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from evaluator.candidate_keys import CONTEXT, PARENT
from evaluator.chunking.spec import MAX_WINDOW, ContextSpec, SplitterSpec
from labeler.core.errors import ConfigError

CONTEXT_KEYS = CONTEXT.names()
"""Keys of a `context` table: exactly one of them."""
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
    if len(raw) != 1:
        message = f"{label} needs one of window or parent, not {len(raw)}"
        raise ConfigError(message, file=file, key="context")
    if "window" in raw:
        return ContextSpec(window=_window(raw["window"], label, file))
    return ContextSpec(parent=_parent(raw["parent"], name, file, build))


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
