"""A run with answers (§23) on the triage corpus, asked of the loopback chat server.

The triage project's corpus and queries (conftest) at k = 1 and a budget of 40 tokens, so
each prompt holds two 40-character sources. The server answers by question:

- q-0001 (facts `bbpp`; `zzzz | ccpp`; `missing fact`): "Blocks bbpp and ccpp [1]. The
  code is 42 [99]. Blocks bbpp and ccpp [2]." Through the baseline c40-ov20 its sources
  are [1] a.md 20–60 (holds e1) and [2] a.md 0–40 (none): [1] cited with evidence, [2]
  cited without, [99] no source; precision 1/3, recall 1/1, 42 unsupported, the sentence
  repeated, facts ✓ ✓ ✗. Through c40: [1] 0–40 and [2] 40–80, neither holds e1 (cut).
- q-0003: an answer holding terminal escapes (colour, a window title, a bell) citing [1].
- q-0002: the abstention phrase.

With `abstentions`, three abstention queries too (no evidence: the right answer abstains).
The baseline sends a.md 60–100 and 80–120 for q-0004 "eepp eeqq", the candidate 80–120 and
0–40; for q-0005 "zzzz yyyy" the baseline sends 0–40 and 20–60, the candidate 0–40 and 40–80.
The server answers q-0004 when a source starts at block a (the candidate's context: it
answers where the baseline abstained, the candidate's abstention lost), q-0005 when a
source starts at block b (the baseline's: gained), and abstains on q-0006 through both.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from evaluator.candidates import parse
from evaluator.pipeline import run_evaluation, run_file
from evaluator.runs.folder import write_run
from labeler.core.corpus.folder import Corpus
from labeler.core.values import Query
from tests.evaluator.generation.chat_server import State, serve
from tests.tui.triage.conftest import CANDIDATES, LATEST, TEXTS, queries

TEMPLATE = ("Answer from the sources; cite them as [n]. Say NOT IN SOURCES when they do not "
            "hold it.\n{{sources}}\nQ: {{question}}\n")  # fmt: skip
FACTS = (("bbpp",), ("zzzz", "ccpp"), ("missing fact",))
"""q-0001's labelled facts: the first two stated, the third not."""
ANSWER = "Blocks bbpp and ccpp [1]. The code is 42 [99]. Blocks bbpp and ccpp [2]."
HOSTILE = "Blocks \x1b[31mccpp [1]\x1b]0;pwned\x07 here.\x1b[2J"


ABSTENTIONS = (Query("q-0004", "eepp eeqq", abstain=True),
               Query("q-0005", "zzzz yyyy", abstain=True),
               Query("q-0006", "yyyy xxxx", abstain=True))  # fmt: skip
"""Abstention queries: the candidate's answer lost, gained, and the same as the baseline's."""
UNWISE = "Blocks eepp and eeqq [1]."
"""The candidate's answer to q-0004, which it should not have answered."""


def answer(prompt: str) -> str:
    question = prompt.rsplit("Q: ", 1)[1]
    if question.startswith("bbpp bbqq"):
        return ANSWER
    if question.startswith("bbpp ccpp"):
        return HOSTILE
    if question.startswith("eepp eeqq") and "] (a.md) aapp" in prompt:
        return UNWISE
    if question.startswith("zzzz yyyy") and "] (a.md) bbpp" in prompt:
        return "The code is 7 [2]."
    return "NOT IN SOURCES"


def write_answered_run(root: Path, *, abstentions: bool = False) -> Path:
    """The runs folder of one run with answers (id LATEST), made under `root`; with
    `abstentions`, ABSTENTIONS asked too."""
    (root / "answer.txt").write_text(TEMPLATE, encoding="utf-8")
    state = State(answer)
    server = serve(state)
    try:
        settings = {**CANDIDATES["settings"], "budget": 40}  # type: ignore[dict-item]
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        generation = {"url": url, "model": "tiny", "template": "answer.txt", "send": "all",
                      "abstention": "NOT IN SOURCES", "timeout": 5.0}  # fmt: skip
        cfile = parse({**CANDIDATES, "settings": settings, "generation": generation},
                      file=str(root / "candidates.toml"))  # fmt: skip
        corpus = Corpus.from_texts(TEXTS)
        found = queries(corpus)
        found[0] = dataclasses.replace(found[0], facts=FACTS)
        found += ABSTENTIONS if abstentions else ()
        result = run_evaluation(cfile, corpus, found, label_corpus_hash=corpus.hash,
                                label_set_hash="sha256:test")  # fmt: skip
    finally:
        state.stop.set()
        server.shutdown()
        server.server_close()
    run = dataclasses.replace(result, id=LATEST, started="2025-01-02T12:00:00Z")
    runs = root / ".spanlab" / "runs"
    write_run(run_file(run, include_text=False), runs)
    return runs
