"""`spanlab eval`, `gate` and `show`: the evaluator's commands, mounted by labeler.cli.

`eval --labels FILE` and `gate` need only the corpus folder and the frozen label set — no
store — which is what CI has. Exit codes: 0 pass, 1 a gate broke, 2 bad input.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from evaluator import candidates as cands
from evaluator import report, runs_index
from evaluator.boundary import (
    candidate_spec,
    chunks_for_doc,
    doc_view,
    ranked_table,
    render_plain,
)
from evaluator.cliutil import fail, handles_errors
from evaluator.presets import preset_file
from evaluator.run import RunOptions, RunResult, run_evaluation
from evaluator.summary import print_run
from labeler.core import binding, config, labelset
from labeler.core.corpus import Corpus
from labeler.core.errors import ConfigError, SpanlabError, StoreError
from labeler.core.store import Store
from labeler.core.values import Query

RUNS_DIR = ".spanlab/runs"


@dataclass(frozen=True)
class Labels:
    queries: tuple[Query, ...]
    """What to evaluate."""
    corpus_hash: str
    """The corpus the labels are bound to."""
    label_set_hash: str
    """Which labels these are."""


def load_labels(labels_file: Path | None, proj: config.Project, corpus: Corpus) -> Labels:
    """The frozen file when given, else the store's labels (refusing stale spans)."""
    if labels_file is not None:
        ls = labelset.read(labels_file, corpus)
        return Labels(ls.queries, ls.corpus_hash, ls.label_set_hash)
    store = Store.open(proj.db, create=False)
    status = binding.sync(store, corpus)
    if status.waiting:
        raise StoreError(
            f"{status.waiting} span(s) wait for review; eval refuses to measure stale labels",
            hint="run `spanlab review`, or pass --labels with a frozen label set",
        )
    data = labelset.to_json(store.queries(), corpus)
    return Labels(tuple(store.queries()), corpus.hash, data["label_set_hash"])


def evaluate_project(
    candidates_file: Path | None,
    *,
    labels_file: Path | None,
    preset: str | None,
    corpus_dir: Path | None,
    db: Path | None,
    chroma_url: str | None,
    include_text: bool,
    check_ann: bool,
    retriever: str | None = None,
) -> tuple[RunResult, Path]:
    proj = config.load(Path.cwd()).override(corpus=corpus_dir, db=db, chroma_url=chroma_url)
    if (candidates_file is None) == (preset is None):
        raise ConfigError("give a candidates file or --preset, not both or neither")
    cfile = cands.read(candidates_file) if candidates_file else preset_file(preset or "")
    if retriever is not None:
        cfile = cands.with_retriever(cfile, retriever)
    corpus = Corpus.read(proj.require_corpus(), encoding=proj.encoding)
    labels = load_labels(labels_file, proj, corpus)
    options = RunOptions(
        include_text=include_text,
        chroma_url=proj.chroma_url,
        chroma_path=proj.chroma_path,
        cache_path=proj.root / ".spanlab" / "embeddings.db",
        check_ann=check_ann,
    )
    (proj.root / ".spanlab").mkdir(exist_ok=True)
    result = run_evaluation(
        cfile,
        corpus,
        labels.queries,
        label_corpus_hash=labels.corpus_hash,
        label_set_hash=labels.label_set_hash,
        options=options,
    )
    folder = report.write_run(result, proj.root / RUNS_DIR, include_text=include_text)
    return result, folder


CandidatesArg = Annotated[
    Path | None, typer.Argument(help="Candidates file (TOML); omit with --preset.")
]
LabelsOpt = Annotated[
    Path | None, typer.Option("--labels", help="Frozen label set (eval default: the store's).")
]
ChromaOpt = Annotated[str | None, typer.Option("--chroma-url", help="Chroma server URL.")]
PresetOpt = Annotated[
    str | None, typer.Option("--preset", help="Built-in candidates: chroma-report.")
]
TextOpt = Annotated[bool, typer.Option("--include-text", help="Allow query text in the run files.")]
CorpusOpt = Annotated[Path | None, typer.Option("--corpus", help="Corpus folder.")]
DbOpt = Annotated[Path | None, typer.Option("--db", help="Label store path.")]


def register(app: typer.Typer) -> None:
    """Mount the evaluator's commands on the `spanlab` app."""

    @app.command("eval", epilog="Example: spanlab eval candidates.toml --labels frozen.json")
    @handles_errors
    def eval_command(
        candidates_file: CandidatesArg = None,
        labels: LabelsOpt = None,
        chroma_url: ChromaOpt = None,
        json_out: Annotated[
            Path | None, typer.Option("--json", help="Also write run.json here.")
        ] = None,
        preset: PresetOpt = None,
        include_text: TextOpt = False,
        check_ann: Annotated[
            bool, typer.Option("--check-ann", help="Report Chroma vs exact top-k agreement.")
        ] = False,
        retriever: Annotated[
            str | None, typer.Option(help="Override the retriever: chroma | exact | lexical.")
        ] = None,
        corpus: CorpusOpt = None,
        db: DbOpt = None,
    ) -> None:
        """Cut, index and query every candidate; write .spanlab/runs/<id>/."""
        result, folder = evaluate_project(
            candidates_file, labels_file=labels, preset=preset, corpus_dir=corpus, db=db,
            chroma_url=chroma_url, include_text=include_text, check_ann=check_ann,
            retriever=retriever,
        )  # fmt: skip
        if json_out is not None:
            json_out.write_text((folder / "run.json").read_text("utf-8"), "utf-8")
        show_text = include_text or (sys.stdout.isatty() and not os.environ.get("CI"))
        print_run(result, folder, Console(), show_text=show_text)

    @app.command("gate", epilog="Example: spanlab gate candidates.toml --labels frozen.json")
    @handles_errors
    def gate_command(
        candidates_file: CandidatesArg = None,
        labels: LabelsOpt = None,
        chroma_url: ChromaOpt = None,
        preset: PresetOpt = None,
        retriever: Annotated[
            str | None, typer.Option(help="Override the retriever: chroma | exact | lexical.")
        ] = None,
        corpus: CorpusOpt = None,
    ) -> None:
        """Evaluate; exit 0 when every gate holds, 1 when one breaks, 2 on bad input (3 if
        spanlab itself fails, so a crash never reads as a broken gate)."""
        if labels is None:
            raise ConfigError("gate needs --labels with a frozen label set", key="--labels")
        try:
            result, folder = evaluate_project(
                candidates_file, labels_file=labels, preset=preset, corpus_dir=corpus, db=None,
                chroma_url=chroma_url, include_text=False, check_ann=False, retriever=retriever,
            )  # fmt: skip
        except SpanlabError:
            raise
        except Exception as exc:
            traceback.print_exc()
            fail(f"internal error, not a gate result: {exc!r}")
            raise typer.Exit(3) from None
        for g in result.gates:
            mark = "pass" if g.passed else "FAIL"
            value = "–" if g.value is None else f"{g.value:g}"
            typer.echo(f"{mark}  {g.candidate}  {g.scope}  {g.gate}  {value}  (limit {g.limit:g})")
        typer.echo(f"run folder: {folder}")
        if not result.passed:
            broken = sum(not g.passed for g in result.gates)
            typer.echo(f"{broken} gate(s) broken", err=True)
            raise typer.Exit(1)

    @app.command("show", epilog="Example: spanlab show latest q-0007 --candidate tok128-ov0")
    @handles_errors
    def show_command(
        run: Annotated[str, typer.Argument(help="Run id, a run folder, or 'latest'.")],
        query: Annotated[str, typer.Argument(help="Query id.")],
        candidate: Annotated[
            str | None, typer.Option(help="Candidate to compare (default: the first).")
        ] = None,
        corpus: CorpusOpt = None,
    ) -> None:
        """A query's evidence with baseline and candidate cuts, and both top-k lists."""
        proj = config.load(Path.cwd()).override(corpus=corpus)
        data = load_run(proj.root / RUNS_DIR, run)
        docs = Corpus.read(proj.require_corpus(), encoding=proj.encoding)
        texts = None
        if proj.db.exists():
            texts = {q.id: q.text for q in Store.open(proj.db, create=False).queries()}
        typer.echo(show_text(data, query, candidate, docs, texts))


def load_run(runs_dir: Path, run: str) -> dict[str, Any]:
    """run.json of a run given by folder, id, unique id prefix or `latest`."""
    folder = Path(run) if Path(run).is_dir() else runs_index.find_run(runs_dir, run).folder
    path = Path(folder) / "run.json"
    if not path.exists():
        raise SpanlabError("no such run", file=str(path))
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def ranks_text(ranks: Any, k: int) -> str:
    """First-match ranks in words: crowding (rank > k) reads apart from disappearance."""
    if ranks is None:
        return "abstention query: no evidence"
    words = []
    for r in ranks:
        if r is None:
            words.append("none within depth (disappeared)")
        else:
            words.append(f"{r}" + (" (crowded: below k)" if r > k else ""))
    return ", ".join(words)


CAUSE_WORDS = {
    "cut": "no chunk holds the evidence; a boundary split it",
    "crowded": "a chunk holds it, but ranks below k",
    "disappeared": "no matching chunk within depth",
}


def show_text(
    data: dict[str, Any],
    query: str,
    candidate: str | None,
    corpus: Corpus,
    texts: dict[str, str] | None = None,
) -> str:
    if query not in data["queries"]:
        raise SpanlabError(f"no query {query!r} in run {data['id']}", key="query")
    if data["manifest"]["corpus_hash"] != corpus.hash:
        raise SpanlabError(
            f"run {data['id']} was made on corpus {data['manifest']['corpus_hash']}, "
            f"the corpus folder is {corpus.hash}"
        )
    names = list(data["candidates"])
    base = next(n for n in names if data["candidates"][n]["baseline"])
    other = candidate or next((n for n in names if n != base), base)
    if other not in data["candidates"]:
        raise SpanlabError(f"no candidate {other!r} in run {data['id']}", key="candidate")
    k = int(data["manifest"]["settings"]["k"])
    entry = data["queries"][query]
    specs = {n: candidate_spec(data, n) for n in (base, other)}
    kind = "abstention query" if entry["abstain"] else entry["boundary"]
    lines = [f"{query}  {kind}  {', '.join(entry['slices'])}"]
    if texts and query in texts:
        lines.append(f"“{texts[query]}”")
    for i, ev in enumerate(entry["evidence"], 1):
        lines.append(f"evidence e{i}: {ev['doc']} {ev['start']}..{ev['end']}")
    change = entry["candidates"][other]
    if change["status"]:
        cause = f" ({change['cause']}: {CAUSE_WORDS[change['cause']]})" if change["cause"] else ""
        lines.append(f"{other} vs {base}: {change['status']}{cause}")
    by_doc: dict[str, list[tuple[int, int]]] = {}
    for ev in entry["evidence"]:
        by_doc.setdefault(ev["doc"], []).append((ev["start"], ev["end"]))
    for doc, spans in by_doc.items():
        text = corpus.text(doc)
        view = doc_view(doc, text, spans, chunks_for_doc(specs[base], corpus, doc),
                        chunks_for_doc(specs[other], corpus, doc))  # fmt: skip
        legend = f"⟦evidence⟧  ┃b {base}  ┆c {other}  ‖ both"
        lines += ["", f"── {doc} {view.start}..{view.end}   {legend}", render_plain(view, text)]
    for name in (base, other):
        values = entry["candidates"][name]["values"]
        ranks = ranks_text(values.get("first_match_rank"), k)
        lines += ["", f"top {k} — {name}  (first match: {ranks})"]
        lines += ranked_table(entry["candidates"][name], k)
    return "\n".join(lines)
