"""run.json's one owner: the whole document as a frozen `RunFile`, its reader and its writer.

Nothing else parses or writes run.json (ranx's `Run.from_file` / `Run.save`): every view of
a run reads attributes, and a malformed file is one `RunFileError` naming the file and the
key. The parts live in `model_parts` (run-wide) and `model_queries` (per query).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator.chunk import Chunk
from evaluator.generation.run_file import AnswerRecord
from evaluator.generation.summary import GenerationSummary
from evaluator.metrics.causes import other_rule
from evaluator.metrics.compare import Comparison
from evaluator.runs.extraction_record import ExtractionRecord
from evaluator.runs.model_generation import read_generation
from evaluator.runs.model_json import Reader, RunFileError, Whole, parse
from evaluator.runs.model_parts import CandidateRecord, GateRecord, Manifest
from evaluator.runs.model_queries import QueryRecord, read_comparison
from labeler.core.errors import StoreError
from labeler.core.files import sharing
from labeler.core.files.access import refused_write
from labeler.core.files.reading import read_bounded
from labeler.core.names import name_problem
from labeler.core.values import valid_query_id

FORMAT = "spanlab.run/1"
CHUNK_TABLE_FILE = "chunks.tsv"
"""The chunk table's one name beside run.json (§17)."""
HEX = "0123456789abcdef"
"""The `format` every run.json this spanlab reads and writes carries."""
FILE_NAME = "run.json"
"""Its name in the run folder."""
SEPARATORS = (",", ":")
"""run.json is written compact (a reader parses it; `jq .` indents it for a person)."""
MAX_RUN_FILE = 512 * 1024 * 1024
"""Largest run.json read (bytes, 512 MiB): about 14,000 queries ranked to depth 50 for 5
candidates (measured: 123 MB for 20,000 queries, 2 candidates, depth 9). Parsed, a run
takes about five times its size in memory (that file: 636 MB), so a 1.5 GB artifact is
refused by its size before a byte is read, not a MemoryError after 3.8 GB."""


@dataclass(frozen=True)
class RunFile:
    """One run as run.json holds it: offsets, hashes and numbers (text only when asked)."""

    id: str
    """Run id, `YYYYmmdd-HHMMSS-microseconds`."""
    started: str
    """ISO time the run started (UTC)."""
    seconds: float
    """Wall time of the whole run."""
    passed: bool
    """Whether every gate of every candidate held (`passed_for` judges one candidate)."""
    manifest: Manifest
    """What was measured, and with what."""
    candidates: tuple[CandidateRecord, ...]
    """Every candidate, baseline first, in run order."""
    comparisons: Mapping[str, Comparison]
    """Candidate name -> its comparison with the baseline (the baseline has none)."""
    gates: tuple[GateRecord, ...]
    """Every gate's outcome, in a stable order."""
    queries: Mapping[str, QueryRecord]
    """Query id -> the query and every candidate's result, in label order."""
    other_comparisons: Mapping[str, Comparison] = field(default_factory=dict)
    """Candidate name -> its comparison under the other match rule; empty in a run written
    before both rules were kept (`both_rules` is then False)."""
    budget_comparisons: Mapping[str, Comparison] = field(default_factory=dict)
    """Candidate name -> its comparison at the context budget (§17); empty in older runs."""
    other_basis_gates: tuple[GateRecord, ...] = ()
    """Every gate on the basis that does not decide (at k when budget decides)."""
    chunk_tables: Mapping[str, Sequence[Chunk]] = field(default_factory=dict, compare=False)
    """Candidate name -> its chunks, written beside run.json as `chunks.tsv` (§17); empty in a
    run read back from run.json, which does not hold them."""
    unit_tables: Mapping[str, Sequence[Chunk]] = field(default_factory=dict, compare=False)
    """Candidate name -> every unit it can send for one retrieved chunk (§18: its parents, or
    each chunk's window), written into `chunks.tsv` beside its chunks; empty for a candidate
    that sends its chunks, and in a run read back from run.json."""
    chunk_table_sha256: str | None = None
    """`sha256:` of chunks.tsv as written beside this run.json, checked when it is read
    (`chunk_file.read_chunk_table`); None in runs written before it was kept."""
    extraction: ExtractionRecord | None = None
    """Alternative extractions against the project's (§22); None: the candidates file had no
    `[extraction]`."""
    generation: GenerationSummary | None = None
    """The answers in figures (§23); None in a run without `[generation]`. Its
    `answers_sha256` is generation.jsonl's, checked by `generation.run_file.read_answers`."""
    answers: tuple[AnswerRecord, ...] = field(default=(), compare=False)
    """Every query × candidate answer, written beside run.json as generation.jsonl; empty
    in a run read back from run.json (read them with `read_answers`)."""

    @property
    def decide(self) -> str:
        """What decides the verdict and the gates: `budget` or `k` (`k` in older runs)."""
        return self.manifest.settings.decide or "k"

    @property
    def budget(self) -> int | None:
        """The context budget in tokens; None in a run written before budgets were kept."""
        return self.manifest.settings.budget if self.at_budget else None

    @property
    def at_budget(self) -> bool:
        """Whether the run holds every measure at the context budget too."""
        return all(c.budget_metrics is not None for c in self.candidates)

    def passed_on(self, name: str, basis: str) -> bool:
        """Whether candidate `name`'s gates hold at `basis` (`k` or `budget`)."""
        gates = self.gates if basis == self.decide else (
            *self.other_basis_gates, *(g for g in self.gates if g.on_answers))  # fmt: skip
        return all(g.passed for g in gates if g.candidate == name)

    @property
    def match(self) -> str:
        """The declared match rule: it decides the gates."""
        return self.manifest.settings.match

    @property
    def other_match(self) -> str:
        """The rule every measure is also computed under."""
        return other_rule(self.match)

    @property
    def both_rules(self) -> bool:
        """Whether the run holds the other rule too (runs before it was kept do not)."""
        return all(c.other_metrics is not None for c in self.candidates)

    @property
    def baseline(self) -> CandidateRecord:
        return next(c for c in self.candidates if c.baseline)

    @property
    def names(self) -> list[str]:
        """Every candidate's name, baseline first."""
        return [c.name for c in self.candidates]

    @property
    def others(self) -> list[str]:
        """The compared candidates' names."""
        return [c.name for c in self.candidates if not c.baseline]

    def passed_for(self, name: str) -> bool:
        """Whether every gate of candidate `name` held (a baseline has none but the checks of
        its answers, §23: without them it passes)."""
        return all(g.passed for g in self.gates if g.candidate == name)

    @property
    def gated(self) -> list[str]:
        """The candidates judged: the compared ones, after the baseline when a check of the
        run judged it too (its answers, §23)."""
        base = self.baseline.name
        return [base, *self.others] if any(g.candidate == base for g in self.gates) else self.others

    @property
    def unmeasured(self) -> list[GateRecord]:
        """The `answered` checks that failed: a candidate's generation measured nothing (§23).
        `eval` exits 1 on them, as `gate` does on any broken gate."""
        return [g for g in self.gates if g.unmeasured]

    def candidate(self, name: str) -> CandidateRecord:
        """The candidate `name`; an unknown one raises RunFileError naming the run."""
        found = next((c for c in self.candidates if c.name == name), None)
        if found is None:
            raise RunFileError(f"no candidate {name!r} in run {self.id}", key="candidate")
        return found

    @classmethod
    def from_json(cls, data: object, *, file: str) -> RunFile:
        """The run in a parsed run.json; anything off raises RunFileError naming the key."""
        r = Reader(data, file)
        r.mapping()
        if (found := r.at("format").text()) != FORMAT:
            r.at("format").fail(f"{found!r} is not a spanlab run ({FORMAT})")
        manifest = Manifest.from_json(r.at("manifest"))
        depth = manifest.settings.depth
        run = cls(
            r.at("id").text(), r.at("started").text(), r.at("seconds").number(0.0),
            r.at("passed").flag(), manifest,
            tuple(CandidateRecord.from_json(n, c) for n, c in r.at("candidates").items()),
            {n: read_comparison(c) for n, c in r.at("comparisons").items()},
            tuple(GateRecord.from_json(g) for g in r.at("gates").array()),
            {q: QueryRecord.from_json(q, e, depth) for q, e in r.at("queries").items()},
            {n: read_comparison(c) for n, c in r.at("comparisons_other_rule").items()}
            if "comparisons_other_rule" in r.mapping() else {},
            {n: read_comparison(c) for n, c in r.at("comparisons_at_budget").items()}
            if "comparisons_at_budget" in r.mapping() else {},
            tuple(GateRecord.from_json(g) for g in r.at("gates_other_basis").array())
            if "gates_other_basis" in r.mapping() else (),
            chunk_table_sha256=_chunk_digest(r),
            extraction=ExtractionRecord.from_json(r.at("extraction"))
            if "extraction" in r.mapping() else None,
            generation=read_generation(r.at("generation"))
            if "generation" in r.mapping() else None,
        )  # fmt: skip
        run._check(r)
        return run

    def _check(self, r: Reader) -> None:
        """What the views rely on beyond types: one baseline, every candidate everywhere,
        no group counting more queries than the run holds."""
        self._check_names(r)
        self._check_counts(r)
        if sum(c.baseline for c in self.candidates) != 1:
            r.at("candidates").fail("must hold exactly one candidate with `baseline: true`")
        names = self.names
        for qid, query in self.queries.items():
            if set(query.candidates) != set(names):
                where = r.at("queries").at(qid).at("candidates")
                where.fail(f"must hold every candidate of the run: {', '.join(names)}")
        for key, comps in (("comparisons", self.comparisons),
                           ("comparisons_other_rule", self.other_comparisons),
                           ("comparisons_at_budget", self.budget_comparisons)):  # fmt: skip
            for name, comp in comps.items():
                if name not in self.others:
                    r.at(key).at(name).fail("compares no candidate of the run")
                if unknown := set(comp.queries) - set(self.queries):
                    r.at(key).at(name).fail(f"names unknown query {min(unknown)!r}")

    def _check_counts(self, r: Reader) -> None:
        """Breakdowns and comparisons count at most the run's queries."""
        most = len(self.queries)
        for c in self.candidates:
            for dim, groups in c.breakdowns.items():
                for key, group in groups.items():
                    if group.queries > most:
                        where = r.at("candidates").at(c.name).at("breakdowns").at(dim).at(key)
                        where.at("queries").fail(f"counts {group.queries:,} queries; the run "
                                                 f"holds {most:,}")  # fmt: skip
        for key, comps in (("comparisons", self.comparisons),
                           ("comparisons_other_rule", self.other_comparisons)):  # fmt: skip
            for name, comp in comps.items():
                if comp.overall.queries > most:
                    r.at(key).at(name).at("overall").at("queries").fail(
                        f"counts {comp.overall.queries:,} queries; the run holds {most:,}"
                    )

    def _check_names(self, r: Reader) -> None:
        """Candidate names and query ids as a candidates file and the store allow them: they
        become file names (trec) and reach the terminal, so a hand-edited run cannot smuggle
        a path, a control character or a lone surrogate in."""
        for c in self.candidates:
            if (problem := name_problem(c.name)) is not None:
                r.at("candidates").fail(f"candidate name {c.name[:40]!r} {problem}")
        for qid in self.queries:
            if not valid_query_id(qid):
                r.at("queries").fail(f"invalid query id {qid[:40]!r}")

    def to_json(self) -> dict[str, Any]:
        """The run.json document, key for key as spanlab writes it."""
        return {
            "format": FORMAT,
            "id": self.id,
            "started": self.started,
            "seconds": self.seconds,
            "passed": self.passed,
            "manifest": self.manifest.to_json(),
            "candidates": {c.name: c.to_json() for c in self.candidates},
            "comparisons": {name: comp.to_json() for name, comp in self.comparisons.items()},
            "gates": [g.to_json() for g in self.gates],
            "queries": {qid: q.to_json() for qid, q in self.queries.items()},
            **({"comparisons_other_rule": self._other_json()} if self.both_rules else {}),
            **({"comparisons_at_budget": {n: c.to_json() for n, c in
                                          self.budget_comparisons.items()},
                "gates_other_basis": [g.to_json() for g in self.other_basis_gates]}
               if self.at_budget else {}),
            **self._table_json(),
            **({"extraction": self.extraction.to_json()} if self.extraction else {}),
            **({"generation": self.generation.to_json()} if self.generation else {}),
        }  # fmt: skip

    def _table_json(self) -> dict[str, Any]:
        if self.chunk_table_sha256 is None:
            return {}
        return {"chunk_table": {"file": CHUNK_TABLE_FILE, "sha256": self.chunk_table_sha256}}

    def _other_json(self) -> dict[str, Any]:
        return {name: comp.to_json() for name, comp in self.other_comparisons.items()}

    def dumps(self) -> str:
        """run.json's text: compact, UTF-8 as is. Indented, Python's encoder takes its
        pure-Python path: 0.32 s for the demo's 5.7 MB, against 0.06 s (§12's warm run)."""
        return json.dumps(self.to_json(), ensure_ascii=False, separators=SEPARATORS,
                          default=str) + "\n"  # fmt: skip


def _chunk_digest(r: Reader) -> str | None:
    """`chunk_table.sha256`: `sha256:` and 64 hex digits, for chunks.tsv by its one name."""
    if "chunk_table" not in r.mapping():
        return None
    table = r.at("chunk_table")
    if (name := table.at("file").text()) != CHUNK_TABLE_FILE:
        table.at("file").fail(f"must be {CHUNK_TABLE_FILE!r}, not {name[:40]!r}")
    digest = table.at("sha256").text()
    hexes = digest.removeprefix("sha256:")
    if not digest.startswith("sha256:") or len(hexes) != 64 or set(hexes) - set(HEX):
        table.at("sha256").fail("must be sha256: and 64 lower-case hex digits")
    return digest


def read_run(folder: Path, *, limit: int = MAX_RUN_FILE) -> RunFile:
    """The run in `folder` (its run.json, read by `read_run_file`). A run folder is shared
    (§20): a link in place of its run.json is refused naming its owner, never followed."""
    return read_run_file(folder / FILE_NAME, limit=limit, follow=False)


def read_run_file(path: Path, *, limit: int = MAX_RUN_FILE, follow: bool = True) -> RunFile:
    """The run in run.json `path` (a run folder's, or an `eval --json` copy); a missing,
    unreadable, malformed or hostile file (over `limit` bytes, a control character, NaN, an
    array longer than the run declares) raises RunFileError naming the file and the key."""
    try:
        raw = read_bounded(path, limit, Whole(str(path)), follow=follow)
    except FileNotFoundError:
        raise RunFileError("no such run", file=str(path)) from None
    except OSError as exc:
        raise RunFileError(f"cannot read the run: {exc.strerror or exc}", file=str(path)) from None
    try:
        data = parse(raw.decode("utf-8"), str(path))
    except MemoryError:
        raise RunFileError(f"too large to hold in memory ({len(raw):,} bytes)",
                           file=str(path)) from None  # fmt: skip
    except UnicodeDecodeError as exc:
        raise RunFileError("not UTF-8 text", file=str(path), offset=exc.start) from None
    except json.JSONDecodeError as exc:
        raise RunFileError(f"not JSON: {exc.msg}", file=str(path), line=exc.lineno,
                           offset=exc.pos) from None  # fmt: skip
    except (ValueError, RecursionError) as exc:
        raise RunFileError(f"not JSON: {exc}", file=str(path)) from None
    return RunFile.from_json(data, file=str(path))


def write_run_file(run: RunFile, path: Path) -> None:
    """Write the run's run.json at `path` (the run folder's, or a copy `eval --json` asks for),
    whole: written beside it, then renamed over it."""
    try:
        sharing.write_text(path, run.dumps())
    except OSError as exc:
        message, hint = refused_write(path, exc)
        raise StoreError(f"run.json: {message}", file=str(path), hint=hint) from None
