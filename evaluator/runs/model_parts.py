"""The run-wide parts of run.json as frozen values: manifest, candidates and gates.

Each part reads itself from a checked `Reader` and writes itself back key for key in the
order spanlab writes it, so a run read and written again is the same file. Free-form
parts (versions, embedding info, timings, index details) pass through as mappings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any, get_type_hints

from evaluator.candidates import MAX_SEED, Settings, settings_problems
from evaluator.chunking.spec import MAX_WINDOW, ContextSpec, SplitterSpec
from evaluator.metrics import Group
from evaluator.runs.model_json import Reader

_READ_SETTING: dict[object, Any] = {
    str: Reader.text, int: Reader.integer, float: Reader.number,
    int | None: lambda r: r.nullable(Reader.integer), str | None: Reader.opt_text,
    tuple[int, ...]: lambda r: tuple(item.integer() for item in r.array()),
}  # fmt: skip
"""How a setting of each type is read."""


@dataclass(frozen=True)
class CandidatesFileRef:
    """Which candidates file the run measured."""

    path: str
    """As given (`candidates.toml`, or `preset:chroma-report`)."""
    hash: str
    """sha256 of its bytes."""

    @classmethod
    def from_json(cls, r: Reader) -> CandidatesFileRef:
        return cls(r.at("path").text(), r.at("hash").text())

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "hash": self.hash}


def read_settings(r: Reader) -> Settings:
    """The frozen `[settings]`; a setting added since the run was written reads as its default."""
    hints = get_type_hints(Settings)
    given = r.mapping()
    values: dict[str, Any] = {
        f.name: _READ_SETTING[hints[f.name]](r.at(f.name))
        for f in fields(Settings)
        if f.name in given or f.default is MISSING
    }
    settings = Settings(**values)
    for key, message in settings_problems(settings):
        r.at(key).fail(message)
    return settings


def settings_json(settings: Settings) -> dict[str, Any]:
    return {
        f.name: list(v) if isinstance(v := getattr(settings, f.name), tuple) else v
        for f in fields(settings)
    }


@dataclass(frozen=True)
class Manifest:
    """What the run measured and with what: versions, hashes, settings, seeds, model."""

    versions: Mapping[str, Any]
    """spanlab, chromadb, transformers, tokenizers, onnxruntime, numpy and python versions."""
    corpus_hash: str
    """The corpus measured."""
    label_set_hash: str
    """The labels measured."""
    candidates_file: CandidatesFileRef
    """The candidates file."""
    settings: Settings
    """The frozen settings every candidate shared."""
    bootstrap_seed: int
    """Seed of the bootstrap interval (`seeds.bootstrap`)."""
    embedding: Mapping[str, Any]
    """The embedding model's name, id and fingerprint, and cache counts."""
    include_text: bool
    """Whether the run folder holds query text (`--include-text`)."""
    skipped_queries: tuple[str, ...]
    """Queries left out: no evidence and not marked abstain (drafts, or orphaned)."""
    orphaned_queries: tuple[str, ...] = ()
    """Of those, the labelled or reviewed ones whose evidence a corpus change orphaned."""
    doc_hashes: Mapping[str, str] = field(default_factory=dict)
    """Each document's hash, so a view of one query needs only its documents unchanged
    (empty: a run written before this key, where only `corpus_hash` says)."""
    context_budget: Mapping[str, Any] = field(default_factory=dict)
    """The context budget and the deciding basis, how each was chosen, the crossing rule
    and the latency plan (§17); empty in a run written before budgets were kept."""

    @property
    def model_id(self) -> str | None:
        """The embedding model's id; None when no model was loaded (lexical retriever)."""
        found = self.embedding.get("model_id")
        return None if found is None else str(found)

    @classmethod
    def from_json(cls, r: Reader) -> Manifest:
        return cls(
            r.at("versions").mapping(), r.at("corpus_hash").text(), r.at("label_set_hash").text(),
            CandidatesFileRef.from_json(r.at("candidates_file")), read_settings(r.at("settings")),
            r.at("seeds").at("bootstrap").count(MAX_SEED), r.at("embedding").mapping(),
            r.at("include_text").flag(), r.at("skipped_queries").texts(),
            r.at("orphaned_queries").texts() if "orphaned_queries" in r.mapping() else (),
            read_doc_hashes(r),
            r.at("context_budget").mapping() if "context_budget" in r.mapping() else {},
        )  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {
            "versions": dict(self.versions),
            "corpus_hash": self.corpus_hash,
            "label_set_hash": self.label_set_hash,
            "candidates_file": self.candidates_file.to_json(),
            "settings": settings_json(self.settings),
            "seeds": {"bootstrap": self.bootstrap_seed},
            "embedding": dict(self.embedding),
            "include_text": self.include_text,
            "skipped_queries": list(self.skipped_queries),
            **({"orphaned_queries": list(self.orphaned_queries)} if self.orphaned_queries else {}),
            **({"context_budget": dict(self.context_budget)} if self.context_budget else {}),
            **({"doc_hashes": dict(self.doc_hashes)} if self.doc_hashes else {}),  # last
        }


def read_doc_hashes(r: Reader) -> dict[str, str]:
    """`doc_hashes` (document id -> `sha256:…`), or {} in a run that predates it."""
    if "doc_hashes" not in r.mapping():
        return {}
    found: dict[str, str] = {}
    for doc, h in r.at("doc_hashes").items():
        found[doc] = h.text()
        if not found[doc].startswith("sha256:"):
            h.fail("is not a sha256: hash")
    return found


def read_spec(r: Reader) -> SplitterSpec:
    """A candidate's splitter as run.json records it (its fingerprint fields); a library
    splitter's or chunk file's `options` too (§14)."""
    options = r.at("options").mapping() if "options" in r.mapping() else {}
    return SplitterSpec(
        r.at("splitter").text(), r.at("size").integer(), r.at("overlap").number(),
        r.at("unit").text(), r.at("tokenizer").opt_text(), r.at("function").opt_text(),
        options, read_context(r.at("context")) if "context" in r.mapping() else None,
    )  # fmt: skip


def read_context(r: Reader) -> ContextSpec:
    """A candidate's context units (§18): `{"window": N}` or `{"parent": {splitter…}}`, with
    `merge` (a window) or `merge_ratio` (a parent) when set (§24)."""
    if "parent" in r.mapping():
        ratio = r.at("merge_ratio").number(0.0, 1.0) if "merge_ratio" in r.mapping() else None
        return ContextSpec(parent=read_spec(r.at("parent")), merge_ratio=ratio)
    merge = r.at("merge").flag() if "merge" in r.mapping() else True
    return ContextSpec(window=r.at("window").count(MAX_WINDOW), merge=merge)


def read_groups(r: Reader) -> dict[str, dict[str, Group]]:
    """Breakdowns: dimension (slice, boundary, doc) -> key -> queries and aggregates."""
    return {
        dim: {
            key: Group(g.at("queries").count(), g.at("metrics").figures())
            for key, g in groups.items()
        }
        for dim, groups in r.items()
    }


def _opt_figures(r: Reader, key: str) -> dict[str, float | None] | None:
    """`metrics_at_budget` and the like: figures, or None in a run written before them."""
    return r.at(key).figures() if key in r.mapping() else None


@dataclass(frozen=True)
class CandidateRecord:
    """One candidate's index and aggregates, as the run measured them."""

    name: str
    """Its name, as reports print it."""
    baseline: bool
    """Whether the others are compared with it."""
    splitter_version: str
    """The splitter arithmetic's version when the run cut (`spanlab-splitters/1`)."""
    spec: SplitterSpec
    """How it cut, rebuilt from its fingerprint fields."""
    splitter_fingerprint: str
    """The fingerprint of `spec` when the run cut: another one means other splitter code."""
    metrics: Mapping[str, float | None]
    """Every measure's aggregate and every index figure, by registry name."""
    breakdowns: Mapping[str, Mapping[str, Group]]
    """Aggregates by slice, boundary pattern and document."""
    timings: Mapping[str, Any]
    """Seconds, each labelled warm or cold."""
    embeddings: Mapping[str, Any]
    """Texts embedded (computed) and served from the cache (cached)."""
    index: Mapping[str, Any]
    """Retriever details: collection, HNSW settings, ANN agreement."""
    other_metrics: Mapping[str, float | None] | None = None
    """The rule-dependent aggregates under the other match rule (§7); None in a run written
    before both rules were kept."""
    budget_metrics: Mapping[str, float | None] | None = None
    """Every measure's aggregate at the context budget (§17); None in older runs."""
    budget_other_metrics: Mapping[str, float | None] | None = None
    """The rule-dependent aggregates at the budget under the other match rule."""
    curve: Mapping[str, Any] = field(default_factory=dict)
    """Recall and hit at each budget of the ladder, and their areas (§17)."""

    def metric(self, name: str) -> float | None:
        """The figure `name` (a registry name); None when undefined or not measured."""
        return self.metrics.get(name)

    @classmethod
    def from_json(cls, name: str, r: Reader) -> CandidateRecord:
        splitter = r.at("splitter")
        return cls(
            name, r.at("baseline").flag(), splitter.at("version").text(), read_spec(splitter),
            r.at("splitter_fingerprint").text(), r.at("metrics").figures(),
            read_groups(r.at("breakdowns")), r.at("timings").mapping(),
            r.at("embeddings").mapping(), r.at("index").mapping(),
            r.at("metrics_other_rule").figures() if "metrics_other_rule" in r.mapping() else None,
            _opt_figures(r, "metrics_at_budget"), _opt_figures(r, "metrics_at_budget_other_rule"),
            r.at("budget_curve").mapping() if "budget_curve" in r.mapping() else {},
        )  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        fingerprinted = self.spec.fingerprint_fields()
        fingerprinted.pop("version")
        return {
            "baseline": self.baseline,
            "splitter": {"version": self.splitter_version, **fingerprinted},
            "splitter_fingerprint": self.splitter_fingerprint,
            "metrics": dict(self.metrics),
            "breakdowns": {
                dim: {key: asdict(g) for key, g in groups.items()}
                for dim, groups in self.breakdowns.items()
            },
            "timings": dict(self.timings),
            "embeddings": dict(self.embeddings),
            "index": dict(self.index),
            **({} if self.other_metrics is None else
               {"metrics_other_rule": dict(self.other_metrics)}),
            **{key: dict(found) for key, found in (
                ("metrics_at_budget", self.budget_metrics),
                ("metrics_at_budget_other_rule", self.budget_other_metrics),
                ("budget_curve", self.curve)) if found},
        }  # fmt: skip

    def metric_under(self, name: str, declared: bool) -> float | None:
        """The figure `name` under the declared rule, or under the other one (a figure the
        rule does not change reads the same under both)."""
        if declared:
            return self.metric(name)
        if self.other_metrics is None:
            return None
        return self.other_metrics.get(name, self.metric(name))

    def metric_at(self, name: str, *, budget: bool, declared: bool = True) -> float | None:
        """The figure `name` at k or at the context budget, under either rule (an index
        figure reads the same at both; a run without budgets has none at budget)."""
        if not budget:
            return self.metric_under(name, declared)
        found = self.budget_metrics if declared else self.budget_other_metrics
        if found is None or self.budget_metrics is None:
            return None
        return found.get(name, self.budget_metrics.get(name, self.metric(name)))


ANSWERS = "generation"
"""The scope of a gate on a candidate's answers as a whole (`generation:CHECK` for one
check's): at budget, whichever basis decides the retrieval gates."""
ANSWERED = "answered"
"""The check a run with `[generation]` makes of every candidate that sent prompts, the
baseline too (§23): at least one answer (limit 1), so a generation stage that measured
nothing never reads as passing. Scope `generation`; not a key of the candidates file."""


@dataclass(frozen=True)
class GateRecord:
    """One release gate's outcome for one candidate and scope."""

    candidate: str
    """The candidate judged (the baseline, for a check of the run such as `answered`)."""
    scope: str
    """`overall`, `slice:<name>`, `pattern:<name>`, `generation` or `generation:<check>`."""
    gate: str
    """The gate's key (`max_lost`), or `answered`: at least one answer, the check every run
    with `[generation]` makes of each candidate that sent prompts."""
    limit: float
    """The limit from the candidates file (1 for `answered`)."""
    value: float | None
    """What the candidate measured; None when the scope has no data (passes) or when the
    gate cannot be evaluated (`unavailable`)."""
    passed: bool
    """Whether the limit holds; False for a gate that cannot be evaluated (fails closed)."""
    unavailable: str | None = None
    """Why the gate cannot be evaluated (a run without the figure it divides: an older
    run.json, a latency never measured; a candidate without any answer, `markdown-200 had
    no answer: timeout 40, bad JSON 2`); None when it was. Kept in run.json only when set."""

    @property
    def on_answers(self) -> bool:
        """A gate on the answers (§23): the same on either basis of retrieval."""
        return self.scope.partition(":")[0] == ANSWERS

    @property
    def unmeasured(self) -> bool:
        """A candidate's generation measured nothing: every prompt failed (§23)."""
        return self.gate == ANSWERED and not self.passed

    @property
    def slice(self) -> str | None:
        """The slice a per-slice gate judges; None for an overall one."""
        return self.scope.removeprefix("slice:") if self.scope.startswith("slice:") else None

    @classmethod
    def from_json(cls, r: Reader) -> GateRecord:
        why = r.at("unavailable").opt_text() if "unavailable" in r.mapping() else None
        return cls(
            r.at("candidate").text(), r.at("scope").text(), r.at("gate").text(),
            r.at("limit").number(), r.at("value").opt_number(), r.at("passed").flag(), why,
        )  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        found = asdict(self)
        if self.unavailable is None:
            del found["unavailable"]
        return found
