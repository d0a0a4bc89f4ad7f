"""The demo's whole verdict, recomputed from its run folder alone (issue 40): all seven
candidates (the four chunkings, the window, the parent and the MMR one), at k and at budget.

Only run.json's ranked lists, chunks.tsv's rows (prefix sources and kinds, window and parent
units), the corpus and the labels are read; tokens are counted with `tokenizers` on the
MiniLM files. Nothing of evaluator.metrics or evaluator.pipeline measures here: the match
rule, groups, context units and the budget cut are written again from the docs.
"""

from __future__ import annotations

import csv
import hashlib
import json
import statistics
import tomllib
from pathlib import Path
from typing import Any

import pytest
from tokenizers import Tokenizer
from typer.testing import CliRunner

from evaluator.candidates import read, with_retriever
from evaluator.chunking.tokenizers import minilm_dir
from evaluator.pipeline.options import RunOptions
from evaluator.pipeline.record import run_file
from evaluator.pipeline.run import run_evaluation
from evaluator.runs.folder import write_run
from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from labeler.core.labels import labelset
from labeler.core.resources import bundled

DEMO = bundled("data/demo")
SEVEN = {"tok128-ov32", "tok128-ov0", "tok256-ov64", "markdown-200", "tok128-window1",
         "tok128-parent512", "tok128-ov32-mmr"}  # fmt: skip
UNIT = {"tok128-window1": "window", "tok128-parent512": "parent"}
MEASURES = ("evidence_recall@k", "hit@k", "document_hit@k", "unique_evidence@k")

Range = tuple[int, int]
Row = tuple[Range, tuple[tuple[Range, str], ...]]
"""A chunks.tsv row: its own range, then each prefix source range with its kind."""
Table = dict[str, dict[str, dict[str, list[Row]]]]
"""candidate -> unit -> doc -> rows, in file order."""


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = Corpus.read(DEMO / "corpus")
    queries = labelset.read(DEMO / "labels.json", corpus).queries
    cfile = with_retriever(read(DEMO / "candidates.toml"), "exact")
    assert {c.name for c in cfile.candidates} == SEVEN
    tmp = tmp_path_factory.mktemp("demo7")
    result = run_evaluation(cfile, corpus, queries, label_corpus_hash=corpus.hash,
                            label_set_hash="sha256:demo",
                            options=RunOptions(cache_path=tmp / "cache.db",
                                               progress=False))  # fmt: skip
    return write_run(run_file(result, include_text=False), tmp / "runs")


def read_table(path: Path) -> Table:
    out: Table = {}
    with path.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, dialect="excel-tab"):
            pairs = [tuple(map(int, p.split("-"))) for p in row["prefix_source"].split()]
            kinds = row["prefix_kind"].split()
            assert len(kinds) == len(pairs)
            prefix = tuple(((a, b), k) for (a, b), k in zip(pairs, kinds, strict=True))
            own = (int(row["start"]), int(row["end"]))
            units = out.setdefault(row["candidate"], {}).setdefault(row["unit"], {})
            units.setdefault(row["doc"], []).append((own, prefix))
    return out


def merged(ranges: list[Range]) -> list[Range]:
    """Ranges that overlap or touch, as one (a window's merge rule)."""
    out: list[Range] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def holds(unit: list[Range], s: int, e: int, threshold: float) -> bool:
    """The match rule `chunk`: one range contains the span, or the unit's ranges (own and
    prefix sources) cover at least `threshold` of its characters."""
    if any(a <= s and e <= b for a, b in unit):
        return True
    shared = merged([(max(a, s), min(b, e)) for a, b in unit if max(a, s) < min(b, e)])
    return sum(b - a for a, b in shared) / (e - s) >= threshold


class Recompute:
    """What each candidate sends for its top n, its tokens, and the measures on it."""

    def __init__(self, table: Table, texts: dict[str, str], threshold: float) -> None:
        self.table, self.texts, self.threshold = table, texts, threshold
        tok = Tokenizer.from_file(str(minilm_dir() / "tokenizer.json"))
        tok.no_truncation()
        tok.no_padding()
        self.tok, self.counted = tok, dict[str, int]()
        self.rows = {name: {(doc, r[0]): r for doc, rs in units["chunk"].items() for r in rs}
                     for name, units in table.items()}  # fmt: skip

    def tokens(self, text: str) -> int:
        if text not in self.counted:
            self.counted[text] = len(self.tok.encode(text, add_special_tokens=False).ids)
        return self.counted[text] if text else 0

    def window(self, name: str, doc: str, own: Range) -> Range:
        """One neighbour a side (the demo's window = 1), from the chunk rows in order."""
        order = sorted(r[0] for r in self.table[name]["chunk"][doc])
        i = order.index(own)
        unit = (order[max(i - 1, 0)][0], order[min(i + 1, len(order) - 1)][1])
        assert (unit, ()) in self.table[name]["window"][doc]  # the table's window row
        return unit

    def parent(self, name: str, doc: str, own: Range) -> Range:
        (unit,) = [p[0] for p in self.table[name]["parent"][doc]
                   if p[0][0] <= own[0] and own[1] <= p[0][1]]  # fmt: skip
        return unit

    def sent(self, name: str, ranked: list[list[Any]], n: int) -> list[tuple[str, Row]]:
        """The units sent for the top n: chunk rows (prefixes included), else the merged
        windows, else each parent once."""
        if name not in UNIT:
            return [(str(d), self.rows[name][str(d), (s, e)]) for _i, d, s, e, _ in ranked[:n]]
        out: dict[str, list[Range]] = {}
        for _id, doc, s, e, _score in ranked[:n]:
            get = self.window if UNIT[name] == "window" else self.parent
            out.setdefault(str(doc), []).append(get(name, str(doc), (s, e)))
        pick = merged if UNIT[name] == "window" else (lambda rs: sorted(set(rs)))
        return [(doc, (r, ())) for doc, rs in out.items() for r in pick(rs)]

    def row_tokens(self, doc: str, row: Row) -> int:
        """tokens(prefix) + tokens(text): the prefix is the breadcrumb's heading lines, each
        ended by a line break, then a table's or fence's head, as copied from the text."""
        text = self.texts[doc]
        prefix = "".join(text[a:b] + ("\n" if kind == "heading" else "")
                         for (a, b), kind in row[1])  # fmt: skip
        return self.tokens(prefix) + self.tokens(text[row[0][0] : row[0][1]])

    def prompt(self, name: str, ranked: list[list[Any]], n: int) -> int:
        return sum(self.row_tokens(doc, row) for doc, row in self.sent(name, ranked, n))

    def cut(self, name: str, ranked: list[list[Any]], budget: int) -> int:
        """Ranked chunks in order while what they send fits; the crossing one is left out."""
        n = 0
        while n < len(ranked) and self.prompt(name, ranked, n + 1) <= budget:
            n += 1
        return n

    def values(self, name: str, query: dict[str, Any], n: int) -> dict[str, float]:
        entry = query["candidates"][name]
        sent = self.sent(name, entry["ranked"], n)
        groups: dict[object, list[bool]] = {}  # per group (a span alone is its own): matched, doc
        for i, span in enumerate(query["evidence"]):
            key = ("group", span["group"]) if "group" in span else ("span", i)
            doc, s, e = str(span["doc"]), int(span["start"]), int(span["end"])
            units = [[row[0], *(r for r, _ in row[1])] for d, row in sent if d == doc]
            found = any(holds(u, s, e, self.threshold) for u in units)
            seen = any(str(c[1]) == doc for c in entry["ranked"][:n])
            was = groups.get(key, [False, False])
            groups[key] = [was[0] or found, was[1] or seen]
        matched = [g[0] for g in groups.values()]
        return {
            "evidence_recall@k": sum(matched) / len(matched) if matched else 0.0,
            "hit@k": float(bool(matched) and all(matched)),
            "document_hit@k": float(bool(groups) and all(g[1] for g in groups.values())),
            "unique_evidence@k": float(sum(matched)),
            "prompt_tokens@k": float(self.prompt(name, entry["ranked"], n)),
        }

    def unit_at(self, name: str, ranked: list[list[Any]], i: int) -> list[Range]:
        """What is sent for rank i (0-based): the chunk row with its prefix sources, or the
        window merged with the ranks above it that holds it, or its parent."""
        doc, own = str(ranked[i][1]), (int(ranked[i][2]), int(ranked[i][3]))
        for d, row in self.sent(name, ranked, i + 1):
            if d == doc and row[0][0] <= own[0] and own[1] <= row[0][1]:
                return [row[0], *(r for r, _ in row[1])]
        raise AssertionError((name, ranked[i]))

    def ranks(self, name: str, query: dict[str, Any], k: int) -> dict[str, Any]:
        """first_match_rank per span (null beyond depth), the mean of each group's best, and
        evidence_coverage@k per span: the share of it the top k's units of its document cover."""
        ranked = query["candidates"][name]["ranked"]
        units = [(str(c[1]), self.unit_at(name, ranked, i)) for i, c in enumerate(ranked)]
        firsts: list[int | None] = []
        coverage: list[float] = []
        best: dict[object, int] = {}
        for n, span in enumerate(query["evidence"]):
            doc, s, e = str(span["doc"]), int(span["start"]), int(span["end"])
            at = [
                i + 1
                for i, (d, u) in enumerate(units)
                if d == doc and holds(u, s, e, self.threshold)
            ]
            firsts.append(at[0] if at else None)
            key = ("group", span["group"]) if "group" in span else ("span", n)
            if at:
                best[key] = min(best.get(key, at[0]), at[0])
            top = [(max(a, s), min(b, e)) for d, u in units[:k] if d == doc for a, b in u
                   if max(a, s) < min(b, e)]  # fmt: skip
            coverage.append(sum(b - a for a, b in merged(top)) / (e - s))
        mean = statistics.fmean(best.values()) if best else None
        return {"first_match_rank": firsts, "evidence_coverage@k": coverage,
                "mean_first_match_rank": mean}  # fmt: skip


Figures = dict[tuple[str, str, str], dict[str, float]]
"""(basis, candidate, query) -> the recomputed measures."""


@pytest.fixture(scope="module")
def recomputed(folder: Path) -> tuple[dict[str, Any], Recompute, Figures, list[str]]:
    data = json.loads((folder / "run.json").read_text("utf-8"))
    text = (folder / "chunks.tsv").read_text("utf-8")
    sha = "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert data["chunk_table"] == {"file": "chunks.tsv", "sha256": sha}
    texts = dict(Corpus.read(DEMO / "corpus").texts())  # the PDF and HTML pages extracted
    settings = data["manifest"]["settings"]
    assert settings["match"] == "chunk" and settings["decide"] == "budget"
    again = Recompute(read_table(folder / "chunks.tsv"), texts, settings["coverage_threshold"])
    figures: Figures = {}
    mismatched: list[str] = []
    for qid, query in data["queries"].items():
        for name, entry in query["candidates"].items():
            cut = again.cut(name, entry["ranked"], settings["budget"])
            if cut != entry["budget_cut"]:
                mismatched.append(f"{qid} {name} budget_cut {cut} != {entry['budget_cut']}")
            figures["k", name, qid] = again.values(name, query, settings["k"])
            figures["budget", name, qid] = again.values(name, query, cut)
    return data, again, figures, mismatched


Recomputed = tuple[dict[str, Any], Recompute, Figures, list[str]]


def answerable(data: dict[str, Any]) -> list[str]:
    return [q for q, v in data["queries"].items() if not v["abstain"] and v["evidence"]]


def test_the_budget_cut_of_every_query_and_candidate_is_recomputed(recomputed: Recomputed) -> None:
    data, _, figures, mismatched = recomputed
    assert mismatched == []
    assert {n for _, n, _ in figures} == SEVEN and len(data["queries"]) == 81


def test_every_per_query_value_at_k_equals_run_json(recomputed: Recomputed) -> None:
    data, _, figures, _ = recomputed
    said = []
    for qid, query in data["queries"].items():
        for name, entry in query["candidates"].items():
            values, mine = entry["values"], figures["k", name, qid]
            keys = (*MEASURES, "prompt_tokens@k") if qid in answerable(data) else (
                "prompt_tokens@k",)  # fmt: skip
            for key in keys:
                if float(values[key]) != mine[key]:
                    said.append(f"{qid} {name} {key}: run.json {values[key]}, again {mine[key]}")
    assert said == []


def test_what_the_context_candidates_send_for_each_rank_is_rebuilt(recomputed: Recomputed) -> None:
    """run.json's `sent` per rank: the window merged with those of the ranks above it (one
    parent, once) — rebuilt from chunks.tsv's chunk, window and parent rows alone."""
    data, again, _, _ = recomputed
    compared = 0
    for name in UNIT:
        for qid, query in data["queries"].items():
            entry = query["candidates"][name]
            assert len(entry["sent"]) == len(entry["ranked"])
            for i, (chunk, sent) in enumerate(zip(entry["ranked"], entry["sent"], strict=True)):
                own = (int(chunk[2]), int(chunk[3]))
                units = [r[0] for d, r in again.sent(name, entry["ranked"], i + 1) if d == chunk[1]]
                (holder,) = [u for u in units if u[0] <= own[0] and own[1] <= u[1]]
                assert (sent[1], sent[2], sent[3]) == (chunk[1], *holder), (name, qid, i)
                compared += 1
    assert compared == 2 * 81 * 50


def means(data: dict[str, Any], figures: Figures, basis: str, name: str) -> dict[str, float]:
    asked = answerable(data)
    out = {m: statistics.fmean(figures[basis, name, q][m] for q in asked) for m in MEASURES}
    out["prompt_tokens@k"] = statistics.fmean(
        figures[basis, name, q]["prompt_tokens@k"] for q in data["queries"]
    )
    return out


@pytest.mark.parametrize(("basis", "key"), [("k", "metrics"), ("budget", "metrics_at_budget")])
def test_every_total_equals_run_json(recomputed: Recomputed, basis: str, key: str) -> None:
    data, again, figures, _ = recomputed
    for name, record in data["candidates"].items():
        mine = means(data, figures, basis, name) | span_means(data, again, basis, name)
        for measure, value in mine.items():
            assert record[key][measure] == pytest.approx(value, abs=1e-12), (name, measure)


def span_means(data: dict[str, Any], again: Recompute, basis: str, name: str) -> dict[str, float]:
    """Over every labelled span (both copies of a group), as run.json's totals take them:
    first_match_rank among spans found within depth, mean_first_match_rank over queries with
    a group found, evidence_coverage@k per span at the basis's context."""
    k = data["manifest"]["settings"]["k"]
    found: list[int] = []
    per_query: list[float] = []
    coverage: list[float] = []
    for qid in answerable(data):
        query = data["queries"][qid]
        n = k if basis == "k" else query["candidates"][name]["budget_cut"]
        ranks = again.ranks(name, query, n)
        found += [r for r in ranks["first_match_rank"] if r is not None]
        if ranks["mean_first_match_rank"] is not None:
            per_query.append(ranks["mean_first_match_rank"])
        coverage += ranks["evidence_coverage@k"]
    return {"first_match_rank": statistics.fmean(found),
            "mean_first_match_rank": statistics.fmean(per_query),
            "evidence_coverage@k": statistics.fmean(coverage)}  # fmt: skip


def status(base: float, cand: float) -> str:
    return {(0.0, 1.0): "gained", (1.0, 0.0): "lost", (1.0, 1.0): "unchanged-hit",
            (0.0, 0.0): "unchanged-miss"}[base, cand]  # fmt: skip


@pytest.mark.parametrize(("basis", "key"),
                         [("k", "comparisons"), ("budget", "comparisons_at_budget")])  # fmt: skip
def test_gained_and_lost_per_query_and_in_total_equal_run_json(
    recomputed: Recomputed, basis: str, key: str
) -> None:
    data, again, figures, _ = recomputed
    base = data["manifest"]["settings"]["baseline"]
    assert set(data[key]) == SEVEN - {base}
    for name, comparison in data[key].items():
        counts = dict.fromkeys(("gained", "lost", "unchanged_hit", "unchanged_miss"), 0)
        for qid in answerable(data):
            b, c = figures[basis, base, qid], figures[basis, name, qid]
            said = comparison["queries"][qid]
            assert said["status"] == status(b["hit@k"], c["hit@k"]), (name, qid)
            delta = c["evidence_recall@k"] - b["evidence_recall@k"]
            assert said["recall_delta"] == pytest.approx(delta, abs=1e-12), (name, qid)
            counts[said["status"].replace("-", "_")] += 1
        assert comparison["overall"]["counts"] == counts, name
        mine = means(data, figures, basis, name) | span_means(data, again, basis, name)
        theirs = means(data, figures, basis, base) | span_means(data, again, basis, base)
        for measure, value in mine.items():
            delta = comparison["overall"]["deltas"][measure]
            assert delta == pytest.approx(value - theirs[measure], abs=1e-9), (name, measure)


def test_first_match_ranks_and_coverage_per_span_equal_run_json(recomputed: Recomputed) -> None:
    data, again, _, _ = recomputed
    k, said = data["manifest"]["settings"]["k"], []
    for qid in answerable(data):
        for name, entry in data["queries"][qid]["candidates"].items():
            mine = again.ranks(name, data["queries"][qid], k)
            for key, value in mine.items():
                theirs = entry["values"][key]
                if value != pytest.approx(theirs, abs=1e-12):
                    said.append(f"{qid} {name} {key}: run.json {theirs}, again {value}")
    assert said == []


@pytest.fixture(scope="module")
def trec(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("trec") / "out"
    args = ["trec", str(folder / "run.json"), str(out), "--corpus", str(DEMO / "corpus")]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    return out


def measured(out: Path, run: str, measures: list[Any]) -> dict[tuple[str, str], float]:
    """(query, measure) -> ir_measures' value over `trec`'s span files (read as TREC's
    columns say: qrels `qid 0 item rel`, run `qid Q0 item rank score tag`)."""
    import ir_measures

    qrels: dict[str, dict[str, int]] = {}
    for line in (out / "spans.qrels").read_text("utf-8").splitlines():
        qid, _, item, rel = line.split()
        qrels.setdefault(qid, {})[item] = int(rel)
    ranked: dict[str, dict[str, float]] = {}
    for line in (out / run).read_text("utf-8").splitlines():
        qid, _, item, _rank, score, _tag = line.split()
        ranked.setdefault(qid, {})[item] = float(score)
    return {(m.query_id, str(m.measure)): float(m.value)
            for m in ir_measures.iter_calc(measures, qrels, ranked)}  # fmt: skip


def reciprocal_rank(values: dict[str, Any], evidence: list[dict[str, Any]], k: int) -> float:
    """1 / the query's first-match rank; where two groups are first matched by the one unit
    at rank k, the span file can hold only one at k (the other stands at k - 1, as its
    README says), so a TREC tool reads 1 / (k - 1) there."""
    best: dict[object, int] = {}
    for n, (span, rank) in enumerate(zip(evidence, values["first_match_rank"], strict=True)):
        key = ("group", span["group"]) if "group" in span else ("span", n)
        if rank is not None:
            best[key] = min(best.get(key, rank), rank)
    if not best:
        return 0.0
    first = min(best.values())
    shared = first == k and sum(r == first for r in best.values()) > 1
    return 1 / (first - 1) if shared else 1 / first


@pytest.mark.parametrize("name", sorted(SEVEN))
def test_ir_measures_on_trecs_files_equals_run_json_and_the_recomputation(
    recomputed: Recomputed, trec: Path, name: str
) -> None:
    """R@k, hit (R@k = 1) and RR over the span files at k; R@depth over the budget's."""
    from ir_measures import RR, R

    data, _, figures, _ = recomputed
    k, depth = data["manifest"]["settings"]["k"], data["manifest"]["settings"]["depth"]
    at_k = measured(trec, f"{name}.spans.run", [R @ k, RR])
    at_budget = measured(trec, f"{name}.budget.spans.run", [R @ depth])
    for qid in answerable(data):
        values = data["queries"][qid]["candidates"][name]["values"]
        recall = at_k.get((qid, f"R@{k}"), 0.0)
        assert recall == pytest.approx(values["evidence_recall@k"], abs=1e-12), qid
        assert (recall == 1.0) is values["hit@k"], qid
        rr = reciprocal_rank(values, data["queries"][qid]["evidence"], k)
        assert at_k.get((qid, "RR"), 0.0) == pytest.approx(rr, abs=1e-12), qid
        mine = figures["budget", name, qid]["evidence_recall@k"]
        assert at_budget.get((qid, f"R@{depth}"), 0.0) == pytest.approx(mine, abs=1e-12), qid


@pytest.mark.parametrize(("basis", "key"), [("budget", "gates"), ("k", "gates_other_basis")])
def test_every_gate_is_recomputed_from_the_folder_and_the_candidates_file(
    recomputed: Recomputed, basis: str, key: str
) -> None:
    """The demo's gates (candidates.toml, read with tomllib) on the recomputed hits, recall
    and chunks.tsv's chunk rows: each value, and pass or fail."""
    data, again, figures, _ = recomputed
    declared = tomllib.loads((DEMO / "candidates.toml").read_text("utf-8"))["gates"]
    base = data["manifest"]["settings"]["baseline"]
    chunks = {n: sum(len(rs) for rs in u["chunk"].values()) for n, u in again.table.items()}

    def lost(name: str, queries: list[str]) -> float:
        return float(sum(figures[basis, base, q]["hit@k"] > figures[basis, name, q]["hit@k"]
                         for q in queries))  # fmt: skip

    asked = answerable(data)
    critical = [q for q in asked if "critical" in data["queries"][q]["slices"]]
    mine = []
    for name in sorted(SEVEN - {base}):
        delta = (
            means(data, figures, basis, name)["evidence_recall@k"]
            - means(data, figures, basis, base)["evidence_recall@k"]
        )
        for gate, value in (("max_lost", lost(name, asked)), ("min_recall_delta", delta),
                            ("max_chunk_count_ratio", chunks[name] / chunks[base])):  # fmt: skip
            limit = float(declared[gate])
            passed = value >= limit if gate.startswith("min_") else value <= limit
            mine.append((name, "overall", gate, limit, value, passed))
        limit = float(declared["slice"]["critical"]["max_lost"])
        value = lost(name, critical)
        mine.append((name, "slice:critical", "max_lost", limit, value, value <= limit))
    theirs = sorted(tuple(g.values()) for g in data[key])
    assert [g[:4] + g[5:] for g in theirs] == [g[:4] + g[5:] for g in sorted(mine)]
    for t, m in zip(theirs, sorted(mine), strict=True):
        assert t[4] == pytest.approx(m[4], abs=1e-12), t
    if basis == data["manifest"]["settings"]["decide"]:
        assert data["passed"] is all(g[5] for g in mine)


def oracle(again: Recompute, name: str, evidence: list[dict[str, Any]]) -> float:
    """Share of groups some unit the candidate can send holds (its chunk rows with their
    prefix sources; a context candidate's window or parent rows)."""
    rows = again.table[name][UNIT.get(name, "chunk")]
    groups: dict[object, bool] = {}
    for n, span in enumerate(evidence):
        key = ("group", span["group"]) if "group" in span else ("span", n)
        units = [[r[0], *(x for x, _ in r[1])] for r in rows.get(str(span["doc"]), [])]
        held = any(holds(u, int(span["start"]), int(span["end"]), again.threshold) for u in units)
        groups[key] = groups.get(key, False) or held
    return sum(groups.values()) / len(groups)


def duplicates(sent: list[tuple[str, Row]], threshold: float) -> int:
    """Pairs of sent units of one document sharing >= threshold of the shorter one."""
    pairs = 0
    for i, (doc, (a, _)) in enumerate(sent):
        for other, (b, _) in sent[i + 1 :]:
            shared, shorter = min(a[1], b[1]) - max(a[0], b[0]), min(a[1] - a[0], b[1] - b[0])
            pairs += doc == other and shorter > 0 and shared / shorter >= threshold
    return pairs


def test_oracle_recall_and_duplicate_pairs_per_query_equal_run_json(
    recomputed: Recomputed,
) -> None:
    data, again, _, _ = recomputed
    settings, said, seen = data["manifest"]["settings"], [], 0
    for qid in answerable(data):
        query = data["queries"][qid]
        for name, entry in query["candidates"].items():
            sent = again.sent(name, entry["ranked"], settings["k"])
            pairs = duplicates(sent, settings["duplicate_threshold"])
            mine = {"oracle_recall": oracle(again, name, query["evidence"]),
                    "duplicate_pairs@k": pairs}  # fmt: skip
            seen += mine["duplicate_pairs@k"] > 0
            for key, value in mine.items():
                if entry["values"][key] != value:
                    said.append(f"{qid} {name} {key}: run.json {entry['values'][key]}, {value}")
    assert said == [] and seen > 0
