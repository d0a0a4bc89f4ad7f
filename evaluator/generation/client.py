"""One question to a chat completions server (OpenAI's API), through the embedding client's
HTTP helper: the same total deadline, retries, body bound and redaction, not a copy.

The answer's JSON is checked for the one shape used (`choices[0].message.content`, or the
`refusal` a hosted API sends); anything else is a named failure, never a KeyError.
The answer's text is kept raw for the checks; whatever shows it passes the display rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaluator.candidate_generation import Generation
from evaluator.embedding.http import Cancel, Endpoint, PostFailed, post_json
from labeler.core.display import shown
from labeler.core.errors import ConfigError

MAX_BODY = 4 * 1024 * 1024
"""Largest answer read (bytes): 32,768 tokens of text and its JSON fit many times over."""
MAX_ANSWER = 200_000
"""Longest answer text kept (characters); a longer one is a named failure."""
FAILURES = ("timeout", "too large", "bad JSON", "bad shape", "HTTP error", "unreachable")
"""Every way asking can fail, as counts and messages name them."""


@dataclass(frozen=True)
class Reply:
    """What the server answered."""

    text: str
    """The answer as sent (raw: show it only through labeler.core.display.shown)."""
    refused: bool = False
    """The server refused (`message.refusal`, or `finish_reason = "content_filter"`)."""
    finish: str = ""
    """`finish_reason` as sent (`stop`, `length`, …), through the display rule, cut to 40
    characters: unlike the answer, no check reads it, so it is kept safe to write."""


class AskFailed(Exception):
    """No usable answer; `kind` is one of FAILURES, `message` is redacted and on one line
    with the server's own words' escapes made visible (`shown`): a failure is written to
    the run and printed, and a hostile server's error text must reach neither raw."""

    def __init__(self, kind: str, message: str) -> None:
        message = shown(message, lines=False)
        super().__init__(message)
        self.kind, self.message = kind, message


def endpoint(g: Generation) -> Endpoint:
    """The HTTP helper's endpoint for `g`: its deadline, three retries, a chat-sized bound."""
    return Endpoint(g.endpoint_url, g.key(), timeout=g.timeout, retries=3, backoff=0.5,
                    budget=g.timeout * 2, role="generation", max_body=MAX_BODY)  # fmt: skip


def payload(g: Generation, messages: Sequence[Mapping[str, str]]) -> dict[str, Any]:
    """The request body: model and decoding fixed, no streaming."""
    return {
        "model": g.model,
        "messages": [dict(m) for m in messages],
        "temperature": g.temperature,
        "seed": g.seed,
        "max_tokens": g.max_tokens,
        "stream": False,
    }


def ask(
    g: Generation, messages: Sequence[Mapping[str, str]], cancel: Cancel | None = None,
    *, where: Endpoint | None = None,
) -> Reply:  # fmt: skip
    """The server's reply to `messages`, or AskFailed naming what went wrong."""
    where = where or endpoint(g)
    try:
        answer = post_json(where, payload(g, messages), cancel)
    except ConfigError as exc:  # PostFailed says which failure; any other: no answer had
        kind = exc.kind if isinstance(exc, PostFailed) else "unreachable"
        raise AskFailed(kind, exc.message) from None
    return reply(answer, where)


def reply(answer: Any, where: Endpoint) -> Reply:
    """The reply a decoded answer holds, or AskFailed("bad shape")."""
    choice = _first_choice(answer)
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise _shape(where, "no choices[0].message")
    finish = choice.get("finish_reason")
    finish = shown(finish, lines=False)[:40] if isinstance(finish, str) else ""
    refusal, content = message.get("refusal"), message.get("content")
    if isinstance(refusal, str) and refusal:
        return Reply(_bounded(refusal, where), refused=True, finish=finish)
    if content is None and finish == "content_filter":
        return Reply("", refused=True, finish=finish)
    if not isinstance(content, str):
        raise _shape(where, "choices[0].message.content is not text")
    return Reply(_bounded(content, where), refused=finish == "content_filter", finish=finish)


def _first_choice(answer: Any) -> Any:
    choices = answer.get("choices") if isinstance(answer, dict) else None
    return choices[0] if isinstance(choices, list) and choices else None


def _bounded(text: str, where: Endpoint) -> str:
    if len(text) > MAX_ANSWER:
        raise AskFailed("too large", f"{where.url} answered {len(text):,} characters, over "
                        f"the limit of {MAX_ANSWER:,}")  # fmt: skip
    return text


def _shape(where: Endpoint, detail: str) -> AskFailed:
    return AskFailed("bad shape", where.redact(f"{where.url} answered without the chat "
                                               f"completions shape: {detail}"))  # fmt: skip
