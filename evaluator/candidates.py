"""The candidates file (§5): frozen settings, the chunking candidates, the release gates;
and the built-in candidate sets (`--preset`).

It is validated completely before any work starts — unknown keys, splitters and units,
`overlap >= size`, `k < 1`, a baseline that is not a candidate — and every error names
the file, the candidate and the key.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from evaluator import candidate_keys as keys
from evaluator import candidate_trust
from evaluator.candidate_gates import GATE_KEYS as GATE_KEYS
from evaluator.candidate_gates import Gates as Gates
from evaluator.candidate_gates import read_gates, uncomputed
from evaluator.candidate_generation import Generation, read_generation
from evaluator.candidate_treatments import DEFAULT_TREATMENTS, SWITCHED, treatment_of
from evaluator.chunking.adapters.registry import LIBRARY_SPLITTERS
from evaluator.chunking.spec import SplitterSpec
from evaluator.context_table import PARENT_KEYS, read_context
from evaluator.retrieval import RETRIEVERS as RETRIEVER_KINDS
from evaluator.retrieval import treatment as treatments
from evaluator.retrieval.treatment import TREATMENT_KEYS, Treatment
from labeler.core.errors import ConfigError
from labeler.core.files.reading import open_regular
from labeler.core.names import check_name
from labeler.core.typed import MAX_CONFIG_FILE, Kind, Refusal, sized, toml_tree, typed

MATCH_RULES = ("chunk", "union")
"""`match = …`: one chunk must match a span, or the top k chunks together may (§7)."""
RETRIEVERS = tuple(RETRIEVER_KINDS)
"""Names `retriever = …` accepts, from the retrieval wing's table."""
MAX_RESAMPLES = 1_000_000
"""Most bootstrap resamples: 100 times the default, minutes of work on a large label set."""
MAX_SEED = 2**32 - 1
"""Largest bootstrap seed (what numpy's generators take)."""
MAX_RANKS = 10_000
"""Largest `k` and `depth`."""
DECIDE = ("budget", "k")
"""`decide = …`: the verdict and the gates read the measures at budget or at k (§17)."""
LADDER = (128, 256, 512, 1024, 2048, 4096)
"""The default `budget_ladder`: the recall–budget curve's budgets, doubling (§17)."""
MAX_BUDGET = 10_000_000
"""Largest budget in tokens, on its own or in the ladder."""
MAX_REPEATS = 100
"""Most `latency_repeats`."""


@dataclass(frozen=True)
class Settings:
    """Everything held fixed across candidates."""

    baseline: str
    """Name of the candidate the others are compared with."""
    k: int = 5
    """Ranks that count as retrieved."""
    depth: int = 50
    """Ranks searched to tell crowding from disappearance."""
    coverage_threshold: float = 0.8
    """Share of a span a chunk must cover to match it."""
    duplicate_threshold: float = 0.7
    """Shared characters / shorter chunk at which two chunks are duplicates."""
    match: str = "chunk"
    """chunk | union: whether the top chunks together may match a span (§7)."""
    embedding: str = "minilm"
    """The embedding model (§6)."""
    retriever: str = "chroma"
    """chroma | exact | lexical."""
    tokenizer: str = "sentence-transformers/all-MiniLM-L6-v2"
    """Tokenizer that counts prompt tokens."""
    seed: int = 0
    """Seed of the bootstrap."""
    resamples: int = 10_000
    """Bootstrap resamples."""
    budget: int | None = None
    """Context budget in tokens of `tokenizer` (§17); None: k × the baseline's mean chunk
    tokens, declared by the run before any result."""
    decide: str | None = None
    """budget | k: which measures decide the verdict and gates; None: `budget` when the
    candidates' mean chunk tokens differ by more than 10 %, else `k` (declared by the run)."""
    budget_ladder: tuple[int, ...] = LADDER
    """Budgets of the recall–budget curve, in tokens."""
    latency_repeats: int = 3
    """Timed passes over every query per candidate, candidates shuffled by `seed`."""


@dataclass(frozen=True)
class Candidate:
    name: str
    """Unique name, as reports print it."""
    spec: SplitterSpec
    """How it cuts documents."""
    treatment: Treatment = field(default_factory=Treatment)
    """How it retrieves, where that differs from `[settings]` (§19)."""

    def retriever(self, settings: Settings) -> str:
        """The retriever it runs: its own, else the settings'."""
        return self.treatment.retriever or settings.retriever


@dataclass(frozen=True)
class CandidatesFile:
    path: str
    """Where it was read from."""
    hash: str
    """sha256 of the file's bytes, for the run manifest."""
    settings: Settings
    """The frozen settings."""
    candidates: tuple[Candidate, ...]
    """In file order; the baseline among them."""
    gates: Gates
    """Release gates."""
    generation: Generation | None = None
    """The generator answers are asked of (§23); None: the file sets no `[generation]`."""

    def candidate(self, name: str) -> Candidate:
        return next(c for c in self.candidates if c.name == name)


_SETTING_TYPES: dict[str, Kind] = keys.SETTINGS.types()
"""`[settings]`'s keys and types, from the registry the reference is written from."""
_CANDIDATE_TYPES: dict[str, Kind] = keys.CANDIDATE.types()
"""A `[[candidate]]`'s keys and types, from the same registry."""


@dataclass(frozen=True)
class _Entry:
    """A key of a candidates-file table, as `typed` refuses it."""

    file: str
    """The candidates file."""
    table: str
    """How messages name the table: `[settings]`, `candidate 'w10'`, `gates`."""
    key: str = ""
    """The key in that table."""

    def at(self, key: str) -> _Entry:
        return replace(self, key=key)

    def refuse(self, refusal: Refusal) -> ConfigError:
        if not refusal.about_type:
            return ConfigError(f"{self.table}: {refusal.message}", file=self.file, key=self.key)
        message = f"{self.table}: {self.key!r} has the wrong type ({refusal.got})"
        return ConfigError(message, file=self.file, key=self.key)


@dataclass(frozen=True)
class _Path:
    """A key path anywhere in the file (`gates.slice.x.max_lost`), for the shared bounds."""

    file: str
    """The candidates file."""
    key: str = ""
    """The path so far."""

    def at(self, key: str) -> _Path:
        sep = "" if key.startswith("[") or not self.key else "."
        return replace(self, key=f"{self.key}{sep}{key}")

    def refuse(self, refusal: Refusal) -> ConfigError:
        return ConfigError(refusal.message, file=self.file, key=self.key or None)


def _check_table(
    table: Mapping[str, Any], types: Mapping[str, Kind], where: str, file: str
) -> None:
    for key, value in table.items():
        if key not in types:
            raise ConfigError(
                f"{where}: unknown key {key!r} (known: {', '.join(types)})", file=file, key=key
            )
        typed(value, types[key], _Entry(file, where, key))


def _settings(raw: Any, file: str) -> Settings:
    if not isinstance(raw, dict):
        raise ConfigError("missing [settings] table", file=file, key="settings")
    _check_table(raw, _SETTING_TYPES, "[settings]", file)
    if "baseline" not in raw:
        raise ConfigError("[settings] needs a baseline", file=file, key="settings.baseline")
    if "budget_ladder" in raw:
        raw = {**raw, "budget_ladder": _ladder(raw["budget_ladder"], file)}
    s = Settings(**raw)
    for key, message in settings_problems(s):
        raise ConfigError(f"[settings]: {message}", file=file, key=f"settings.{key}")
    return s


def settings_problems(s: Settings) -> list[tuple[str, str]]:
    """(key, message) for each setting out of its range: the candidates file's rule, which
    a run.json's settings are held to as well."""
    checks = [
        ("k", s.k < 1, f"k must be at least 1, got {s.k}"),
        ("k", s.k > MAX_RANKS, f"k must be at most {MAX_RANKS:,}, got {s.k}"),
        ("depth", s.depth > MAX_RANKS, f"depth must be at most {MAX_RANKS:,}, got {s.depth}"),
        ("depth", s.depth < s.k, f"depth ({s.depth}) must be at least k ({s.k})"),
        ("retriever", s.retriever not in RETRIEVERS, f"retriever must be one of {RETRIEVERS}"),
        ("coverage_threshold", not 0 < s.coverage_threshold <= 1, "must lie in (0, 1]"),
        ("duplicate_threshold", not 0 < s.duplicate_threshold <= 1, "must lie in (0, 1]"),
        ("match", s.match not in MATCH_RULES, f"match must be one of {MATCH_RULES}"),
        ("resamples", s.resamples < 1, f"resamples must be at least 1, got {s.resamples}"),
        (
            "resamples",
            s.resamples > MAX_RESAMPLES,
            f"resamples must be at most {MAX_RESAMPLES:,}, got {s.resamples:,}",
        ),
        (
            "seed",
            not 0 <= s.seed <= MAX_SEED,
            f"seed must lie between 0 and {MAX_SEED}, got {s.seed}",
        ),
    ]
    return [(key, message) for key, failed, message in checks + budget_checks(s) if failed]


def budget_checks(s: Settings) -> list[tuple[str, bool, str]]:
    """§17's settings: a budget of at least one token, a known `decide`, a ladder."""
    ladder = s.budget_ladder
    return [
        ("budget", s.budget is not None and not 1 <= s.budget <= MAX_BUDGET,
         f"budget must lie between 1 and {MAX_BUDGET:,} tokens, got {s.budget}"),
        ("decide", s.decide is not None and s.decide not in DECIDE,
         f"decide must be one of {DECIDE}, got {s.decide!r}"),
        ("budget_ladder", not ladder, "budget_ladder must hold at least one budget"),
        ("budget_ladder", any(not 1 <= b <= MAX_BUDGET for b in ladder),
         f"budget_ladder's budgets must lie between 1 and {MAX_BUDGET:,} tokens"),
        ("latency_repeats", not 1 <= s.latency_repeats <= MAX_REPEATS,
         f"latency_repeats must lie between 1 and {MAX_REPEATS}, got {s.latency_repeats}"),
    ]  # fmt: skip


def _ladder(raw: list[Any], file: str) -> tuple[int, ...]:
    """`budget_ladder = [...]`: whole numbers of tokens, sorted, each once."""
    for item in raw:
        if isinstance(item, bool) or not isinstance(item, int):
            raise ConfigError(f"[settings]: budget_ladder holds {item!r}, not a whole number "
                              "of tokens", file=file, key="settings.budget_ladder")  # fmt: skip
    return tuple(sorted(set(raw)))


def _defaults(raw: Any, file: str) -> tuple[Any, dict[str, Any]]:
    """`[settings]` without its treatment defaults, and those defaults, type-checked."""
    if not isinstance(raw, dict):
        return raw, {}
    defaults = {k: raw[k] for k in DEFAULT_TREATMENTS if k in raw}
    for key, value in defaults.items():
        typed(value, _CANDIDATE_TYPES[key], _Entry(file, "[settings]", f"settings.{key}"))
        if value is True and key in SWITCHED:
            message = f"[settings]: {key} must be a table or a number, not true"
            raise ConfigError(message, file=file, key=f"settings.{key}")
    return {k: v for k, v in raw.items() if k not in defaults}, defaults


def _candidate(
    raw: Any, index: int, file: str, retriever: str, defaults: Mapping[str, Any] | None = None
) -> Candidate:
    where = f"candidate[{index}]"
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} must be a table", file=file, key=where)
    name = raw.get("name")
    label = f"candidate {name!r}" if isinstance(name, str) else where
    _check_table(raw, _CANDIDATE_TYPES, label, file)
    if "name" not in raw:
        raise ConfigError(f"{label}: missing key 'name'", file=file, key="name")
    check_name(raw["name"], "candidate name", file=file, key=f"{where}.name", error=ConfigError)
    args = {k: v for k, v in raw.items() if k not in ("name", "context", *TREATMENT_KEYS)}
    spec = _spec(args, label, raw["name"], file)
    if "context" in raw:
        build = functools.partial(_parent_spec, name=raw["name"], file=file)
        spec = replace(spec, context=read_context(raw["context"], raw["name"], file, build))
    treatment = treatment_of(raw, defaults or {}, label, retriever, RETRIEVERS, file)
    return Candidate(raw["name"], spec, treatment)


def _parent_spec(args: dict[str, Any], label: str, *, name: str, file: str) -> SplitterSpec:
    _check_table(args, {k: _CANDIDATE_TYPES[k] for k in PARENT_KEYS}, label, file)
    return _spec(args, label, name, file)


def _spec(args: dict[str, Any], label: str, name: str, file: str) -> SplitterSpec:
    """A splitter table (a candidate's, or its parents') as a validated SplitterSpec."""
    library = LIBRARY_SPLITTERS.get(args.get("splitter", ""))
    sized = not library and args.get("splitter") != "chunks"
    for key in ("splitter", "size") if sized else ("splitter",):
        if key not in args:
            raise ConfigError(f"{label}: missing key {key!r}", file=file, key=key)
    if library:
        args.setdefault("size", 0)  # validate() takes the library's own size and overlap
    if args.get("splitter") == "chunks":
        args.setdefault("size", 0)
        args["options"] = _relative_to(file, args.get("options", {}))
    try:
        return SplitterSpec(**args).validate(name)
    except ConfigError as exc:
        exc.file = exc.file or file  # a chunk file's own errors name that file and line
        raise


def _relative_to(file: str, options: dict[str, Any]) -> dict[str, Any]:
    """A chunk file's path is relative to the candidates file, like any path in it."""
    path = options.get("path")
    if not isinstance(path, str) or Path(path).is_absolute() or file.startswith("preset:"):
        return options
    return {**options, "path": str(Path(file).parent / path)}


def parse(data: Mapping[str, Any], *, file: str, digest: str = "") -> CandidatesFile:
    unknown = sorted(set(data) - {"settings", "candidate", "gates", "generation"})
    if unknown:
        raise ConfigError(f"unknown table {unknown[0]!r}", file=file, key=unknown[0])
    raw_settings, defaults = _defaults(data.get("settings"), file)
    settings = _settings(raw_settings, file)
    raw_candidates = data.get("candidate")
    if not isinstance(raw_candidates, list) or not raw_candidates:
        raise ConfigError("no [[candidate]] tables", file=file, key="candidate")
    candidates = tuple(
        _candidate(c, i, file, settings.retriever, defaults) for i, c in enumerate(raw_candidates)
    )
    names = [c.name for c in candidates]
    for name in names:
        if names.count(name) > 1:
            raise ConfigError(f"candidate name {name!r} is used twice", file=file, key="name")
    if settings.baseline not in names:
        raise ConfigError(
            f"baseline {settings.baseline!r} is not a candidate (candidates: {', '.join(names)})",
            file=file,
            key="settings.baseline",
        )
    gates = read_gates(data.get("gates"), file)
    if found := uncomputed(gates, without_vectors(candidates, settings.retriever)):
        raise ConfigError(found[1], file=file, key=found[0])
    generation = read_generation(data.get("generation"), file)
    if gates.generation and generation is None:
        raise ConfigError("[gates.generation] gates answers, and the file sets no [generation]",
                          file=file, key="gates.generation")  # fmt: skip
    return CandidatesFile(file, digest, settings, candidates, gates, generation)


def without_vectors(candidates: Sequence[Candidate], retriever: str) -> str | None:
    """What stores no vectors among the candidates, each run by its own retriever or the
    settings' `retriever`: a gate on index bytes cannot be judged for it (§17)."""
    if not RETRIEVER_KINDS[retriever].uses_vectors:
        return f"the retriever ({retriever})"
    for cand in candidates:
        own = cand.treatment.retriever
        if own is not None and not RETRIEVER_KINDS[own].uses_vectors:
            return f"candidate {cand.name!r} (retriever {own})"
    return None


def read(path: Path) -> CandidatesFile:
    """Read and validate a candidates file; nothing runs unless all of it is valid, and
    nothing another account can write steers the command (evaluator.candidate_trust)."""
    try:
        with open_regular(path, MAX_CONFIG_FILE, _Path(str(path))) as handle:
            info = os.fstat(handle.fileno())  # who could have written what is read
            raw = sized(handle.read(MAX_CONFIG_FILE + 1), MAX_CONFIG_FILE, _Path(str(path)))
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror}", file=str(path)) from None
    try:
        data = toml_tree(raw.decode("utf-8"), _Path(str(path)))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"malformed TOML: {exc}", file=str(path)) from None
    candidate_trust.check(str(path), info, data)
    try:
        return parse(data, file=str(path), digest="sha256:" + hashlib.sha256(raw).hexdigest())
    except ConfigError as exc:
        exc.line = exc.line or _table_line(raw.decode("utf-8"), exc.key)
        raise


def _table_line(text: str, key: str | None) -> int | None:
    """The line of the `[[candidate]]` table a `candidate[N]…` key sits in (TOML keeps none)."""
    found = re.match(r"candidate\[(\d+)\]", key or "")
    if found is None:
        return None
    heads = [n for n, line in enumerate(text.splitlines(), 1)
             if re.match(r"\s*\[\[\s*candidate\s*\]\]", line)]  # fmt: skip
    index = int(found.group(1))
    return heads[index] if index < len(heads) else None


def settings_fields() -> tuple[str, ...]:
    return tuple(f.name for f in fields(Settings))


def with_retriever(cfile: CandidatesFile, retriever: str) -> CandidatesFile:
    """The same candidates with another retriever (a command-line override), held to the
    candidates file's own check: a candidate whose treatment does not fit the retriever it
    now runs (`stem` on chroma, a `ranked` file without `retriever = "ranked"`) is refused."""
    if retriever not in RETRIEVERS:
        raise ConfigError(f"retriever must be one of {RETRIEVERS}", key="--retriever")
    for cand in cfile.candidates:
        runs = cand.treatment.retriever or retriever
        for key, message in treatments.problems(cand.treatment, runs):
            raise ConfigError(f"candidate {cand.name!r}: {message} (--retriever {retriever})",
                              file=cfile.path, key=key)  # fmt: skip
    if found := uncomputed(cfile.gates, without_vectors(cfile.candidates, retriever)):
        raise ConfigError(found[1], file=cfile.path, key=found[0])
    return replace(cfile, settings=replace(cfile.settings, retriever=retriever))


# -- built-in candidate sets ------------------------------------------------------------
