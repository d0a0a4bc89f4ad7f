"""A candidate's retrieval treatment (§19): what sits between the index and the prompt.

MMR, a per-source cap, the lexical scorer's stopwords and stemming, a reranker, hybrid
fusion and rankings from outside are candidate settings, so a treatment is compared as
its own candidate. One frozen value holds them; its fingerprint and record enter the run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from evaluator import candidate_keys as keys
from evaluator.retrieval.filters import DocFilter, parse_filter
from labeler.core.display import describe, unsafe_at
from labeler.core.errors import ConfigError

TREATMENT_KEYS = keys.TREATMENT_KEYS
"""Candidate keys that set its retrieval rather than its chunking."""
LEXICAL_OPTIONS = ("lexical", "hybrid")
"""Retrievers whose token scorer takes `stopwords` and `stem`."""
MAX_FETCH = 10_000
"""Largest `mmr.fetch` and `rerank.top`: the ranks a treatment may reorder."""


@dataclass(frozen=True)
class MMR:
    """Maximal marginal relevance over the first `fetch` ranks."""

    lam: float = 0.5
    """Weight of relevance against novelty (`lambda`): 1 is plain relevance."""
    fetch: int = 20
    """Ranks reordered; those below keep their order."""


@dataclass(frozen=True)
class Fusion:
    """Reciprocal rank fusion of BM25 and dense ranks: sum of w / (k + rank)."""

    k: int = 60
    """The RRF constant."""
    weights: tuple[float, float] = (1.0, 1.0)
    """Weights of the BM25 list and the dense list."""


@dataclass(frozen=True)
class Rerank:
    """A reranking server speaking the common `/rerank` shape, or a cross-encoder ONNX file
    run in process (`model_path`, evaluator.retrieval.cross_encoder)."""

    url: str
    """The full URL (`http://host:port/rerank`); empty with `model_path`."""
    model: str = ""
    """The model name sent (servers that host one ignore it)."""
    top: int = 50
    """Ranks reranked; those below keep their order after them."""
    model_path: str = ""
    """A cross-encoder's ONNX file, run in process (relative to the candidates file)."""
    tokenizer: str = ""
    """Its tokenizer.json; empty: `tokenizer.json` beside the model."""
    max_tokens: int = 512
    """Query and text together are truncated to this many tokens (longest first)."""


@dataclass(frozen=True)
class Treatment:
    """Everything about how a candidate retrieves; defaults mean plain `[settings]`."""

    retriever: str | None = None
    """Overrides `[settings] retriever` for this candidate."""
    mmr: MMR | None = None
    """Diversify the fetched list."""
    max_per_source: int | None = None
    """At most this many chunks of one document before any chunk of another is passed over."""
    stopwords: bool = False
    """Lexical scorers drop English stopwords."""
    stem: bool = False
    """Lexical scorers stem tokens (Snowball English)."""
    fusion: Fusion = field(default_factory=Fusion)
    """How `hybrid` fuses its two lists."""
    rerank: Rerank | None = None
    """Reorder the top of the list by a reranking server."""
    ranked: str | None = None
    """A ranked file (JSONL or a TREC run) for `retriever = "ranked"`."""
    ranked_skip_bad: bool = False
    """Skip the ranked file's bad lines, counted and named, instead of refusing the file."""
    url: str | None = None
    """The team's search endpoint for `retriever = "http"`."""
    filter: DocFilter | None = None
    """The documents it retrieves from: path globs and front-matter fields (§24)."""

    def record(self) -> dict[str, Any]:
        """What differs from plain retrieval, as run.json and `diff` show it."""
        plain, mine = asdict(Treatment()), asdict(self)
        out = {k: v for k, v in mine.items() if v != plain[k] and k not in ("url", "rerank")}
        if self.mmr is not None:  # as the candidates file spells it
            out["mmr"] = {"lambda": self.mmr.lam, "fetch": self.mmr.fetch}
        if self.rerank is not None and self.rerank.model_path:
            out["rerank"] = {"model_path": self.rerank.model_path, "top": self.rerank.top,
                             "max_tokens": self.rerank.max_tokens}  # fmt: skip
        elif self.rerank is not None:
            out["rerank"] = {"url": public(self.rerank.url, "rerank.url"),
                             "model": self.rerank.model, "top": self.rerank.top}  # fmt: skip
        if self.filter is not None:
            out["filter"] = self.filter.record()
        return out | ({"url": public(self.url)} if self.url else {})

    def fingerprint(self) -> str:
        data = json.dumps(self.record(), sort_keys=True, default=list)
        return hashlib.sha256(data.encode("utf-8")).hexdigest()[:16]


def public(url: str, key: str = "url") -> str:
    """A URL as records show it: no credentials, no query; one that is no http(s) URL is
    refused naming `key`, never quoting the URL (it may hold a key)."""
    from evaluator.embedding.server import public_url

    try:
        return public_url(url)
    except ConfigError as exc:
        why = exc.message.partition(": ")[2]
        raise ConfigError(f"{key} is not a URL: {why}", key=key) from None


def parse(raw: Mapping[str, Any], label: str, retriever: str, known: tuple[str, ...] = (),
          file: str = "") -> Treatment:  # fmt: skip
    """The candidate's treatment keys, checked; `retriever` is the settings' one, `known`
    every retriever's name, `file` the candidates file (a ranked file's path is relative to
    it). Every refusal names the candidate."""
    try:
        own = raw.get("retriever")
        if known and own is not None and own not in known:
            raise ConfigError(f"retriever must be one of {known}", key="retriever")
        treatment = _parse(raw, label, retriever)
    except ConfigError as exc:
        if not exc.message.startswith(label):
            exc.message = f"{label}: {exc.message}"
        raise
    ranked = treatment.ranked
    if ranked and file and not Path(ranked).is_absolute() and not file.startswith("preset:"):
        treatment = replace(treatment, ranked=str(Path(file).parent / ranked))
    if treatment.rerank is not None and treatment.rerank.model_path:
        treatment = replace(treatment, rerank=_model_files(treatment.rerank, file, label))
    return treatment


def _model_files(rerank: Rerank, file: str, label: str) -> Rerank:
    """A cross-encoder's files, relative to the candidates file, checked for what they are
    (present, no link, a regular file) before any work; read only when the run needs them."""
    from evaluator.retrieval.cross_encoder import check_file, tokenizer_beside

    def placed(path: str) -> str:
        if not file or Path(path).is_absolute() or file.startswith("preset:"):
            return path
        return str(Path(file).parent / path)

    model = placed(rerank.model_path)
    tokenizer = placed(rerank.tokenizer) if rerank.tokenizer else tokenizer_beside(model)
    for path, key in ((model, "rerank.model_path"), (tokenizer, "rerank.tokenizer")):
        try:
            check_file(path, key)
        except ConfigError as exc:
            exc.message = f"{label}: {exc.message}"
            raise
    return replace(rerank, model_path=model, tokenizer=tokenizer)


def _parse(raw: Mapping[str, Any], label: str, retriever: str) -> Treatment:
    kind = raw.get("retriever", None)
    effective = kind if isinstance(kind, str) else retriever
    treatment = Treatment(
        retriever=kind,
        mmr=_mmr(raw["mmr"], label) if "mmr" in raw else None,
        max_per_source=_positive(raw, "max_per_source", label),
        stopwords=bool(raw.get("stopwords", False)),
        stem=bool(raw.get("stem", False)),
        fusion=_fusion(raw.get("fusion", {}), label),
        rerank=_rerank(raw["rerank"], label) if "rerank" in raw else None,
        ranked=raw.get("ranked"),
        ranked_skip_bad=bool(raw.get("ranked_skip_bad", False)),
        url=_url(raw.get("url")),
        filter=parse_filter(raw["filter"], label) if "filter" in raw else None,
    )
    for key, message in problems(treatment, effective):
        raise ConfigError(f"{label}: {message}", key=key)
    return treatment


def problems(t: Treatment, retriever: str) -> list[tuple[str, str]]:
    """(key, message) for each treatment that does not fit the candidate's retriever."""
    lexical = retriever in LEXICAL_OPTIONS
    checks = [
        ("stopwords", t.stopwords and not lexical, "stopwords is for lexical or hybrid"),
        ("stem", t.stem and not lexical, "stem is for lexical or hybrid"),
        ("ranked", retriever == "ranked" and not t.ranked, "retriever 'ranked' needs ranked"),
        ("ranked", bool(t.ranked) and retriever != "ranked", "ranked needs retriever 'ranked'"),
        (
            "ranked_skip_bad",
            t.ranked_skip_bad and retriever != "ranked",
            "ranked_skip_bad needs retriever 'ranked'",
        ),
        ("url", retriever == "http" and not t.url, "retriever 'http' needs url"),
        ("url", bool(t.url) and retriever != "http", "url needs retriever 'http'"),
    ]
    return [(key, message) for key, failed, message in checks if failed]


def _table(raw: Any, key: str, known: tuple[str, ...], label: str) -> Mapping[str, Any]:
    if not isinstance(raw, dict):
        raise ConfigError(f"{label}: {key} must be a table", key=key)
    for name in raw:
        if name not in known:
            message = f"{label}: unknown key {name!r} in {key} (known: {', '.join(known)})"
            raise ConfigError(message, key=f"{key}.{name}")
    return raw


def _number(table: Mapping[str, Any], key: str, default: float, low: float, high: float,
            where: str, label: str) -> float:  # fmt: skip
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ConfigError(f"{label}: {where}.{key} must lie in [{low:g}, {high:g}]", key=where)
    return value


def _mmr(raw: Any, label: str) -> MMR:
    table = _table(raw, "mmr", keys.MMR.names(), label)
    fetch = _number(table, "fetch", 20, 1, MAX_FETCH, "mmr", label)
    return MMR(_number(table, "lambda", 0.5, 0, 1, "mmr", label), _whole(fetch, "mmr", label))


def _fusion(raw: Any, label: str) -> Fusion:
    table = _table(raw, "fusion", keys.FUSION.names(), label)
    k = _whole(_number(table, "k", 60, 0, MAX_FETCH, "fusion", label), "fusion", label)
    weights = table.get("weights", [1.0, 1.0])
    if not (isinstance(weights, list) and len(weights) == 2):
        raise ConfigError(f"{label}: fusion.weights must be two numbers", key="fusion")
    pair = {"a": weights[0], "b": weights[1]}
    both = (_number(pair, "a", 1, 0, 1e6, "fusion.weights", label),
            _number(pair, "b", 1, 0, 1e6, "fusion.weights", label))  # fmt: skip
    return Fusion(k, both)


def _rerank(raw: Any, label: str) -> Rerank:
    table = _table(raw, "rerank", keys.RERANK.names(), label)
    if "model_path" in table:
        return _local(table, label)
    for key in ("tokenizer", "max_tokens"):
        if key in table:
            message = f"{label}: rerank.{key} is for a model_path, not a server"
            raise ConfigError(message, key=f"rerank.{key}")
    url, model = table.get("url"), table.get("model", "")
    if not isinstance(url, str) or not isinstance(model, str):
        raise ConfigError(f"{label}: rerank needs url (and model) as text", key="rerank.url")
    public(url, "rerank.url")  # a URL that is no http(s) URL is refused here, unquoted
    if (at := unsafe_at(model, lines=False)) is not None:  # it is written into run.json (§21)
        raise ConfigError(f"{label}: rerank.model holds {describe(model, at)}",
                          key="rerank.model")  # fmt: skip
    top = _whole(_number(table, "top", 50, 1, MAX_FETCH, "rerank", label), "rerank", label)
    return Rerank(url, model, top)


def _local(table: Mapping[str, Any], label: str) -> Rerank:
    """`rerank = { model_path = …, tokenizer = …, top = …, max_tokens = … }`."""
    for key in ("url", "model"):
        if key in table:
            message = f"{label}: rerank takes a url or a model_path, not both ({key})"
            raise ConfigError(message, key=f"rerank.{key}")
    path, tokenizer = table["model_path"], table.get("tokenizer", "")
    for key, value in (("model_path", path), ("tokenizer", tokenizer)):
        if not isinstance(value, str) or "\0" in value or (key == "model_path" and not value):
            raise ConfigError(f"{label}: rerank.{key} must be a file path", key=f"rerank.{key}")
    top = _whole(_number(table, "top", 50, 1, MAX_FETCH, "rerank", label), "rerank", label)
    most = table.get("max_tokens", 512)
    if isinstance(most, bool) or not isinstance(most, int) or not 8 <= most <= 8192:
        message = f"{label}: rerank.max_tokens must be a whole number in [8, 8192]"
        raise ConfigError(message, key="rerank.max_tokens")
    return Rerank("", "", top, path, tokenizer, most)


def _url(url: str | None) -> str | None:
    if url is not None:
        public(url)
    return url


def _positive(raw: Mapping[str, Any], key: str, label: str) -> int | None:
    if key not in raw:
        return None
    return _whole(_number(raw, key, 1, 1, MAX_FETCH, key, label), key, label)


def _whole(value: float, where: str, label: str) -> int:
    if not float(value).is_integer():
        raise ConfigError(f"{label}: {where} takes whole numbers, got {value}", key=where)
    return int(value)
