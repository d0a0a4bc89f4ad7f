"""Ask many prompts, cache first, and count what happened (§23).

A failure is per prompt, named and counted, never raised: one refused or malformed answer
does not lose the others. A server that fails `STOP_AFTER` prompts running, or once in a
way that says it is down or hanging (`DOWN`), ends the asking there, and the prompts left
are counted as not asked: a hung server costs one question's time, not every question's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from evaluator.candidate_generation import Generation
from evaluator.embedding.http import Endpoint
from evaluator.generation.cache import AnswerCache
from evaluator.generation.client import AskFailed, Reply, ask, endpoint
from evaluator.generation.prompt import Prompt

STOP_AFTER = 3
"""Failures in a row after which the server is taken to be down and asking stops."""
DOWN = frozenset({"timeout", "unreachable"})
"""Failures that stop asking at once: the next question would wait as long."""


@dataclass(frozen=True)
class Asked:
    """One prompt's outcome: a reply, or why there is none."""

    prompt: Prompt
    reply: Reply | None
    """None when asking failed or was not tried."""
    failure: str = ""
    """One of client.FAILURES, or `not asked`; empty with a reply."""
    message: str = ""
    """The failure's (redacted) words; show them through the display rule."""
    cached: bool = False
    """The reply came from the cache: the server was not asked."""


@dataclass(frozen=True)
class Tally:
    """What asking did, for the run's header and the progress line."""

    asked: int = 0
    """Requests that reached a reply (cached ones not included)."""
    cached: int = 0
    refused: int = 0
    """Replies that were the server's refusal."""
    failed: dict[str, int] = field(default_factory=dict)
    """Failure kind -> prompts, `not asked` included."""


def ask_all(
    g: Generation, cache: AnswerCache, prompts: Sequence[Prompt],
    advance: Callable[[int], None] | None = None, *, where: Endpoint | None = None,
) -> tuple[list[Asked], Tally]:  # fmt: skip
    """Every prompt's outcome, in order, and the counts. `advance(1)` is called per prompt
    (asked, cached, failed or skipped): the shape of `pipeline.progress.task`'s bar."""
    where = where or endpoint(g)
    out: list[Asked] = []
    in_a_row = 0
    for prompt in prompts:
        if in_a_row >= STOP_AFTER:
            one = Asked(prompt, None, "not asked", "the server failed too often")
        else:
            one = _one(g, cache, prompt, where)
            in_a_row = _failures_after(in_a_row, one)
        out.append(one)
        if advance is not None:
            advance(1)
    return out, tally(out)


def _failures_after(in_a_row: int, one: Asked) -> int:
    """Failures in a row once `one` is counted: none after a reply, STOP_AFTER at once when
    the server is down."""
    if one.reply is not None:
        return 0
    return STOP_AFTER if one.failure in DOWN else in_a_row + 1


def _one(g: Generation, cache: AnswerCache, prompt: Prompt, where: Endpoint) -> Asked:
    key = prompt.key(g)
    if (kept := cache.get(key)) is not None:
        return Asked(prompt, kept, cached=True)
    try:
        reply = ask(g, prompt.messages(), where=where)
    except AskFailed as exc:
        return Asked(prompt, None, exc.kind, exc.message)
    cache.put(key, reply)
    return Asked(prompt, reply)


def tally(outcomes: Sequence[Asked]) -> Tally:
    replies = [a for a in outcomes if a.reply is not None]
    return Tally(
        asked=sum(not a.cached for a in replies),
        cached=sum(a.cached for a in replies),
        refused=sum(a.reply.refused for a in replies if a.reply is not None),
        failed=dict(Counter(a.failure for a in outcomes if a.reply is None)),
    )
