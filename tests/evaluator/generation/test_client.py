"""The chat client against the loopback server: each hostile mode bounded in time, named
by its kind, counted by `ask_all`, and never a traceback; answers cached by what decides
them, so a rerun asks nothing."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.candidate_generation import Generation
from evaluator.generation.asking import ask_all
from evaluator.generation.cache import AnswerCache
from evaluator.generation.checks.citations import citations
from evaluator.generation.client import AskFailed, Reply, ask, endpoint
from evaluator.generation.prompt import Prompt
from labeler.core.display import shown
from labeler.core.errors import SpanlabError
from tests.evaluator.generation.chat_server import CITE_99, ESCAPES, REFUSAL, State, serve

TEMPLATE = "Say NOPE when unsure.\n{{sources}}\nQ: {{question}}"


@pytest.fixture
def state() -> Iterator[State]:
    s = State()
    server = serve(s)
    s.url = f"http://127.0.0.1:{server.server_address[1]}/v1"  # type: ignore[attr-defined]
    yield s
    s.stop.set()
    server.shutdown()
    server.server_close()


def gen(state: State, **over: object) -> Generation:
    g = Generation(state.url, "tiny", "t.txt", TEMPLATE, "sha256:t", "NOPE",  # type: ignore[attr-defined]
                   seed=3, max_tokens=32, timeout=2.0)  # fmt: skip
    return dataclasses.replace(g, **over)  # type: ignore[arg-type]


def prompt(qid: str = "q-1", question: str = "What rate?", context: str = "ctx") -> Prompt:
    return Prompt(qid, question, (), f"{context}\nQ: {question}")


MESSAGES = [{"role": "user", "content": "hello"}]


def test_a_good_answer_and_the_request_sent(state: State) -> None:
    state.answer = "The rate is 3.5 % [1]."
    reply = ask(gen(state), MESSAGES)
    assert reply == Reply("The rate is 3.5 % [1].", False, "stop")
    sent = state.requests[-1]
    assert (sent["model"], sent["temperature"], sent["seed"], sent["max_tokens"]) == (
        "tiny", 0.0, 3, 32)  # fmt: skip
    assert sent["stream"] is False and sent["messages"] == MESSAGES


def test_the_key_is_sent_and_never_shown(state: State, monkeypatch: pytest.MonkeyPatch) -> None:
    state.key = "sk-abcdefghijklmnop"
    monkeypatch.setenv("SPANLAB_GENERATION_KEY", "sk-abcdefghijklmnop")
    assert ask(gen(state), MESSAGES).text == "The answer [1]."
    monkeypatch.setenv("SPANLAB_GENERATION_KEY", "sk-wrongwrongwrong")
    with pytest.raises(AskFailed) as err:
        ask(gen(state), MESSAGES)
    assert err.value.kind == "HTTP error" and "HTTP 401" in err.value.message
    assert "sk-wrongwrongwrong" not in err.value.message


def test_a_5xx_is_retried_then_answered(state: State) -> None:
    state.fail = [503, 502]
    assert ask(gen(state), MESSAGES).text == "The answer [1]."
    assert len(state.requests) == 3


@pytest.mark.parametrize(
    ("mode", "kind", "most"),
    [
        ("stall", "timeout", 6.0),
        ("trickle", "timeout", 6.0),
        ("huge", "too large", 3.0),
        ("endless", "too large", 6.0),
        ("bad-json", "bad JSON", 3.0),
        ("no-choices", "bad shape", 3.0),
    ],
)
def test_hostile_servers_are_bounded_and_named(
    state: State, mode: str, kind: str, most: float
) -> None:
    state.mode = mode
    g = gen(state, timeout=1.0)
    start = time.monotonic()
    with pytest.raises(AskFailed) as err:
        ask(g, MESSAGES, where=dataclasses.replace(endpoint(g), budget=2.5, max_body=1 << 20))
    assert err.value.kind == kind
    assert time.monotonic() - start < most
    assert "Traceback" not in err.value.message


def test_escapes_are_kept_for_the_checks_and_never_shown(state: State) -> None:
    state.mode = "escapes"
    reply = ask(gen(state), MESSAGES)
    assert reply.text == ESCAPES
    assert "\x1b" not in shown(reply.text) and "\x07" not in shown(reply.text)


def test_a_citation_of_a_source_that_does_not_exist_is_listed(state: State) -> None:
    state.mode = "cite-99"
    reply = ask(gen(state), MESSAGES)
    assert reply.text == CITE_99
    assert citations(reply.text, 3).unknown == (99,)


def test_a_refusal_is_a_reply_marked_refused(state: State) -> None:
    state.mode = "refusal"
    assert ask(gen(state), MESSAGES) == Reply(REFUSAL, True, "stop")


def test_ask_all_counts_and_caches_so_a_rerun_asks_nothing(state: State, tmp_path: Path) -> None:
    g, cache = gen(state), AnswerCache(tmp_path / "answers.db")
    prompts = [prompt("q-1"), prompt("q-2", "Other?"), prompt("q-3", "Third?")]
    seen: list[int] = []
    first, tally = ask_all(g, cache, prompts, seen.append)
    assert (tally.asked, tally.cached, tally.failed) == (3, 0, {})
    assert seen == [1, 1, 1] and len(state.requests) == 3
    # the same question over the same context, for another candidate: from the cache
    again, tally = ask_all(g, cache, [*prompts, prompt("q-1b", "What rate?")])
    assert (tally.asked, tally.cached) == (0, 4) and len(state.requests) == 3
    assert [a.reply for a in again[:3]] == [a.reply for a in first]
    # another decoding asks again
    _, tally = ask_all(dataclasses.replace(g, seed=4), cache, prompts[:1])
    assert tally.asked == 1 and len(state.requests) == 4
    cache.close()
    assert AnswerCache(tmp_path / "answers.db").count() == 4


def test_ask_all_counts_failures_and_stops_when_the_server_is_down(state: State) -> None:
    state.mode = "no-choices"
    prompts = [prompt(f"q-{n}", f"Q{n}?") for n in range(6)]
    out, tally = ask_all(gen(state), AnswerCache(), prompts)
    assert tally.failed == {"bad shape": 3, "not asked": 3}
    assert [a.failure for a in out] == ["bad shape"] * 3 + ["not asked"] * 3
    assert len(state.requests) == 3


def test_ask_all_counts_refusals(state: State) -> None:
    state.mode = "refusal"
    _, tally = ask_all(gen(state), AnswerCache(), [prompt()])
    assert (tally.asked, tally.refused) == (1, 1)


def test_credentials_in_the_url_never_reach_a_message(state: State) -> None:
    g = gen(state, url="http://user:hunter2secret@127.0.0.1:9/v1", timeout=1.0)
    with pytest.raises(AskFailed) as err:
        ask(g, MESSAGES, where=dataclasses.replace(endpoint(g), budget=1.5))
    assert err.value.kind == "unreachable"
    assert "hunter2secret" not in err.value.message


def test_the_cache_refuses_a_link_and_a_file_that_is_not_sqlite(tmp_path: Path) -> None:
    (tmp_path / "elsewhere.db").write_bytes(b"")
    (tmp_path / "link.db").symlink_to(tmp_path / "elsewhere.db")
    with pytest.raises(SpanlabError):
        AnswerCache(tmp_path / "link.db")
    (tmp_path / "junk.db").write_bytes(b"not a database, not at all" * 100)
    with pytest.raises(SpanlabError, match="answer cache"):
        AnswerCache(tmp_path / "junk.db")


def test_a_hung_server_costs_one_question_not_every_one(state: State) -> None:
    state.mode = "stall"
    g = gen(state, timeout=1.0)
    start = time.monotonic()
    prompts = [prompt(f"q-{n}", f"Q{n}?") for n in range(5)]
    out, tally = ask_all(
        g, AnswerCache(), prompts, where=dataclasses.replace(endpoint(g), budget=1.5)
    )
    assert tally.failed == {"timeout": 1, "not asked": 4}
    assert out[0].failure == "timeout" and len(state.requests) == 1
    assert time.monotonic() - start < 4.0


@pytest.mark.parametrize("mode", ["error-escapes", "finish-escapes"])
def test_a_servers_escapes_never_reach_a_failure_or_the_finish_reason(
    state: State, mode: str
) -> None:
    # The answer is kept raw for the checks; what is not the answer (a failure's words,
    # finish_reason) is written to the run and printed as it is, so it is made safe here.
    state.mode = mode
    try:
        said = ask(gen(state), MESSAGES).finish
    except AskFailed as exc:
        said = exc.message
    assert "\x1b" not in said and "\x07" not in said and "\\x1b[31m" in said


def test_a_url_password_the_server_echoes_is_redacted(state: State) -> None:
    # The server's words quote the password alone, without the URL that redaction knows.
    state.answer = "unused"
    state.fail = [400]
    g = gen(state, url=state.url.replace("http://", "http://user:hunter2secret@"))  # type: ignore[attr-defined]
    where = endpoint(g)
    assert where.redact("denied: hunter2secret is wrong") == "denied: [redacted] is wrong"
    with pytest.raises(AskFailed) as err:
        ask(g, MESSAGES, where=where)
    assert err.value.kind == "HTTP error" and "hunter2secret" not in err.value.message
