"""A candidates file another account can write is data to check, never an instruction
(§21, STYLE 20): it may set k, budgets and splitters, but no key that steers the command
(labeler.core.team.steering.CANDIDATE_KEYS: a server called, a file read, code imported).

Refused, not ignored: a candidate without its search server or chunk file would be another
candidate, and a verdict on it would be one nobody asked for. The fix is one `cp`: a copy
of one's own, read before it is run, steers as its reader chose.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any

from labeler.core.errors import ConfigError
from labeler.core.team.steering import CANDIDATE_KEYS, others_may_write, steering_embedding


def check(path: str, info: os.stat_result, data: Mapping[str, Any]) -> None:
    """Refuse the file (as `fstat` showed the descriptor read) when another account can
    write it and it sets a steering key, naming the key, the owner and mode, and the fix."""
    why = others_may_write(info)
    if why is None:
        return
    for key, registry_key in _steering(data):
        raise ConfigError(
            f"{key} sets {CANDIDATE_KEYS[registry_key]}, and {why}: a file another account "
            "can write steers no server, file or code spanlab uses",
            file=path, key=key,
            hint=f"copy it to a file of your own and read it (cp {path} mine.toml), then pass "
            f"that; or its owner makes it theirs alone (chmod go-w {path})",
        )  # fmt: skip


def _steering(data: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(where in the file, registry key) of each steering key the file's tree holds."""
    generation = data.get("generation")
    if isinstance(generation, Mapping):
        yield from ((f"generation.{k}", f"generation.{k}")
                    for k in ("url", "template", "key_env") if k in generation)  # fmt: skip
    settings = data.get("settings")
    if isinstance(settings, Mapping) and steering_embedding(settings.get("embedding")):
        yield "settings.embedding", "embedding"
    candidates = data.get("candidate")
    for n, cand in enumerate(candidates if isinstance(candidates, list) else []):
        if not isinstance(cand, Mapping):
            continue
        where = f"candidate[{n}]"
        yield from ((f"{where}.{k}", k) for k in ("url", "ranked") if k in cand)
        if isinstance(cand.get("rerank"), Mapping) and "url" in cand["rerank"]:
            yield f"{where}.rerank.url", "rerank.url"
        yield from _splitter(cand, where)
        context = cand.get("context")
        parent = context.get("parent") if isinstance(context, Mapping) else None
        if isinstance(parent, Mapping):
            yield from _splitter(parent, f"{where}.context.parent")


def _splitter(table: Mapping[str, Any], where: str) -> Iterator[tuple[str, str]]:
    if "function" in table:
        yield f"{where}.function", "function"
    options = table.get("options")
    if isinstance(options, Mapping) and "path" in options:
        yield f"{where}.options.path", "options.path"
