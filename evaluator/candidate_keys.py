"""Every key a candidates file accepts, table by table, with its type, default and meaning.

One registry serves two readers: the parsers take their known keys and types from it, and
docs/gen_reference.py writes docs/reference/candidates.md from it, so a key added here is
accepted and documented at once, and a key the parsers know but this table lacks cannot exist.
"""

from __future__ import annotations

from labeler.core.project.key_table import Key, Table

SETTINGS = Table("[settings]", "Held fixed across candidates, declared before any result.", (
    Key("baseline", str, "required", "Name of the candidate the others are compared with."),
    Key("k", int, "5", "Ranks that count as retrieved (1 to 10,000)."),
    Key("depth", int, "50", "Ranks searched to tell `crowded` from `disappeared` (k to 10,000)."),
    Key("coverage_threshold", float, "0.8", "Share of a span a chunk must cover to match it."),
    Key("duplicate_threshold", float, "0.7",
        "Shared characters / shorter chunk at which two chunks are duplicates."),
    Key("match", str, '"chunk"', "`chunk`: one chunk must match a span; `union`: the top k "
        "together may (a split span counts as matched)."),
    Key("embedding", str, '"minilm"', "The embedding model: `minilm`, `hash`, "
        "`sentence-transformers:NAME` or `openai:MODEL` (a server)."),
    Key("retriever", str, '"chroma"', "Every candidate's retriever unless it sets its own: "
        "`chroma`, `exact`, `lexical`, `hybrid`, `ranked`, `http`."),
    Key("tokenizer", str, '"sentence-transformers/all-MiniLM-L6-v2"',
        "Tokenizer that counts prompt tokens and the budget."),
    Key("seed", int, "0", "Seed of the bootstrap and of the latency passes' order (0 to 2^32-1)."),
    Key("resamples", int, "10000", "Bootstrap resamples (1 to 1,000,000)."),
    Key("budget", int, "unset", "Context budget in tokens; unset: k × the baseline's mean chunk "
        "tokens, declared before results."),
    Key("decide", str, "unset", "`budget` or `k`: which measures decide the verdict and gates; "
        "unset: `budget` when mean chunk tokens differ by more than 10 %."),
    Key("budget_ladder", list, "[128, 256, 512, 1024, 2048, 4096]",
        "Budgets of the recall–budget curve, in tokens."),
    Key("latency_repeats", int, "3",
        "Timed passes per candidate (1 to 100), candidates shuffled by `seed`."),
))  # fmt: skip

_SPLITTER_KEYS = (
    Key("splitter", str, "required", "`chars`, `words`, `tokens`, `sentences`, `recursive`, "
        "`markdown`, `python`, `chunks` (a chunk file) or a library's (`langchain:…`, …)."),
    Key("size", int, "required", "Chunk size limit in `unit` (a library splitter and `chunks` "
        "take their own)."),
    Key("overlap", int, "0", "Units consecutive chunks share (sentences for `sentences`; a "
        "library may take a fraction of the size)."),
    Key("unit", str, "the splitter's first", "`chars`, `words` or `tokens`."),
    Key("tokenizer", str, "MiniLM's, for tokens",
        "Tokenizer of token units: `character`, `word`, `tiktoken:NAME` or a local Hugging "
        "Face tokenizer."),
    Key("function", str, "unset", "`module:function` for the `python` splitter."),
    Key("options", dict, "{}", "A library splitter's own options by the library's names; for "
        "`chunks`, `{ path = \"chunks.jsonl\" }`."),
)  # fmt: skip

_TREATMENT_KEYS = (
    Key("retriever", str, "the settings'", "This candidate's retriever (overrides `[settings]`)."),
    Key("mmr", (dict, bool), "unset", "Maximal marginal relevance: `{ lambda = 0.5, fetch = "
        "20 }`; `false` turns a `[settings]` default off."),
    Key("max_per_source", (int, bool), "unset", "At most N chunks of one document before any "
        "other is passed over; `false` turns a `[settings]` default off."),
    Key("stopwords", bool, "false", "`lexical` and `hybrid` drop English stopwords."),
    Key("stem", bool, "false", "`lexical` and `hybrid` stem terms (Snowball English)."),
    Key("fusion", dict, "{ k = 60, weights = [1, 1] }",
        "How `hybrid` fuses BM25 and dense ranks (reciprocal rank fusion)."),
    Key("rerank", (dict, bool), "unset", "Reorder the top ranks by a `/rerank` server "
        "(`{ url = …, model = …, top = 50 }`, key in `SPANLAB_RERANK_KEY`) or by an ONNX "
        "cross-encoder file in process (`{ model_path = … }`); `false` turns a `[settings]` "
        "default off."),
    Key("ranked", str, "unset", "Rankings your system returned (JSONL or a TREC run) for "
        "`retriever = \"ranked\"`, relative to the candidates file."),
    Key("url", str, "unset", "Your search service for `retriever = \"http\"` (key in "
        "`SPANLAB_SEARCH_KEY`)."),
    Key("ranked_skip_bad", bool, "false",
        "Skip the ranked file's bad lines, counted and named, instead of refusing it."),
    Key("filter", (dict, bool), "unset", "Retrieve only from matching documents: `{ path = "
        "\"policies/**\" }` (a glob on the path) and `{ FIELD = VALUE }` (front matter); "
        "`false` turns a `[settings]` default off."),
)  # fmt: skip

CANDIDATE = Table("[[candidate]]", "One chunking candidate (and how it retrieves), repeated.", (
    Key("name", str, "required", "Unique name, as reports print it."),
    *_SPLITTER_KEYS,
    Key("context", dict, "unset", "What is sent for a retrieved chunk: `{ window = N }` or a "
        "`[candidate.context.parent]` table."),
    *_TREATMENT_KEYS,
))  # fmt: skip

TREATMENT_KEYS = tuple(k.name for k in _TREATMENT_KEYS)
"""Candidate keys that set its retrieval rather than its chunking."""

DEFAULT_TREATMENTS = ("mmr", "max_per_source", "stopwords", "stem", "rerank", "filter")
"""Treatment keys `[settings]` may set for every candidate; a candidate's own value
overrides it (`false` turns a default table or number off)."""

TREATMENT_DEFAULTS = Table("[settings] treatment defaults", "Treatment keys `[settings]` may "
                          "set for every candidate; a candidate's own value overrides it.", tuple(
    Key(k.name, k.kind, "unset", f"Every candidate's `{k.name}` unless it sets its own: "
        + k.meaning[0].lower() + k.meaning[1:])
    for k in _TREATMENT_KEYS if k.name in DEFAULT_TREATMENTS
))  # fmt: skip

CONTEXT = Table("context", "A candidate's `context = { … }`: one of `window` or `parent`, "
                "with `merge` beside a window or `merge_ratio` beside a parent.", (
    Key("window", int, "unset", "Neighbours sent on each side of a retrieved chunk (1 to 1,000); "
        "windows that overlap or touch are sent as one unless `merge = false`."),
    Key("parent", dict, "unset", "A splitter table that cuts parents; the candidate's splitter "
        "cuts within each, and the parent of a retrieved chunk is sent."),
    Key("merge", bool, "true", "With a window: `false` sends each hit with its own neighbours, "
        "repeated where they overlap (LlamaIndex's sentence window)."),
    Key("merge_ratio", float, "unset", "With a parent: a parent replaces its children only when "
        "more than this share of them is retrieved (0 < r ≤ 1; LlamaIndex's auto-merging)."),
))  # fmt: skip

PARENT = Table("[candidate.context.parent]", "The parents' splitter: a candidate's splitter "
               "keys, without a name or a context.", _SPLITTER_KEYS)  # fmt: skip

MMR = Table("mmr", "A candidate's `mmr = { … }`.", (
    Key("lambda", float, "0.5", "Weight of relevance against novelty (0 to 1; 1 is plain "
        "relevance)."),
    Key("fetch", int, "20", "Ranks reordered (1 to 10,000); those below keep their order."),
))  # fmt: skip

FUSION = Table("fusion", "A `hybrid` candidate's `fusion = { … }`: sum of w / (k + rank).", (
    Key("k", int, "60", "The reciprocal rank fusion constant."),
    Key("weights", list, "[1, 1]", "Weights of the BM25 list and the dense list."),
))  # fmt: skip

RERANK = Table("rerank", "A candidate's `rerank = { … }`.", (
    Key("url", str, "required", "The server's full URL (`http://host:8080/rerank`)."),
    Key("model", str, '""', "The model name sent (a server that hosts one ignores it)."),
    Key("top", int, "50", "Ranks sent to the server; those below keep their order after them."),
    Key("model_path", str, "unset", "An ONNX cross-encoder file run in process (onnxruntime) "
        "instead of a server; relative to the candidates file."),
    Key("tokenizer", str, "`tokenizer.json` beside the model",
        "With `model_path`: the model's tokenizer.json."),
    Key("max_tokens", int, "512", "With `model_path`: tokens of query and chunk kept per pair."),
))  # fmt: skip

GATES = Table("[gates]", "Release gates over every query; the same keys go in "
              "`[gates.slice.NAME]` and `[gates.pattern.PATTERN]`.", (
    Key("max_lost", float, "unset", "Most queries the candidate may lose against the baseline."),
    Key("min_recall_delta", float, "unset", "Least change of recall against the baseline."),
    Key("max_chunk_count_ratio", float, "unset", "Most chunks / the baseline's chunks."),
    Key("max_duplicate_pairs_delta", float, "unset",
        "Most added duplicate chunk pairs in the top k."),
    Key("max_abstention_top1_delta", float, "unset",
        "Most rise of the abstention queries' top-1 score."),
    Key("max_prompt_tokens_ratio", float, "unset", "Most prompt tokens / the baseline's."),
    Key("max_index_bytes_ratio", float, "unset", "Most vector bytes (chunks × dimension × 4) / "
        "the baseline's; refused with a retriever that stores no vectors."),
    Key("max_latency_p95_ratio", float, "unset",
        "Most warm p95 latency (median over the repeats) / the baseline's."),
))  # fmt: skip

GENERATION = Table("[generation]", "The generator answers are asked of (§23): a server speaking "
                   "the OpenAI chat completions API, its model and decoding held fixed.", (
    Key("url", str, "required", "The API's base URL (`http://127.0.0.1:8080/v1`); spanlab "
        "POSTs to `{url}/chat/completions`."),
    Key("model", str, "required", "The model name sent."),
    Key("temperature", float, "0", "Decoding temperature; only 0 (greedy) is accepted, "
        "so a rerun asks for the same answer."),
    Key("seed", int, "0", "Seed sent with every request (0 to 2^32-1)."),
    Key("max_tokens", int, "512", "Most tokens an answer may take (1 to 32,768)."),
    Key("template", str, "required", "The prompt template, a file of your own relative to the "
        "candidates file, holding `{{sources}}` and `{{question}}` once each; its sha256 keys "
        "the answer cache."),
    Key("abstention", str, "required", "The phrase the template tells the model to answer "
        "with when the sources do not hold the answer; it must appear in the template."),
    Key("key_env", str, '"SPANLAB_GENERATION_KEY"', "Environment variable holding the bearer "
        "key; unset or empty sends none."),
    Key("timeout", float, "120", "Seconds one request may take, whole (1 to 3,600)."),
    Key("send", str, '"hit"', "Which answerable queries are asked through a candidate: "
        '`"hit"` those it hit at budget (its retrieval qualified), `"all"` every one; '
        "abstention queries are always asked."),
))  # fmt: skip

GENERATION_GATES = Table("[gates.generation]", "Gates on the answers (§23), per candidate; "
                         "each check is its own gate, never blended.", (
    Key("min_completeness", float, "unset", "Least mean completeness (labelled facts stated)."),
    Key("min_citation_precision", float, "unset", "Least mean citation precision."),
    Key("min_citation_recall", float, "unset", "Least mean citation recall."),
    Key("min_abstention", float, "unset", "Least share of answers that abstain exactly when "
        "the context lacks the evidence."),
    Key("max_unsupported", float, "unset", "Most unsupported items per answer (mean)."),
    Key("max_repeated_sentences", float, "unset", "Most repeated sentences per answer (mean)."),
    Key("max_lost", float, "unset", "Most queries lost against the baseline on any one check "
        "(one gate per check; 0: no check may regress on any query)."),
    Key("max_failed", float, "unset", "Most share of a candidate's prompts without an answer "
        "(0 to 1; the baseline judged too). Unset, failures are counted and shown, and only a "
        "candidate with no answer at all fails (always checked)."),
))  # fmt: skip

EXTRACTION = Table("[extraction]", "Extractors as candidates (§22): the project's extraction is "
                   "the baseline; each alternative's text is compared with it, span by span "
                   "and through the baseline candidate's chunking and retrieval.", (
    Key("confidence", float, "0.7", "Least re-anchoring score (0 < c ≤ 1) at which a span "
        "counts as found in an alternative's text; below it, the span is lost there."),
    Key("alternative", list, "required", "The `[[extraction.alternative]]` tables, one or more."),
))  # fmt: skip

EXTRACTION_ALTERNATIVE = Table("[[extraction.alternative]]", "One alternative extraction of "
                               "the corpus's PDF, HTML or DOCX sources, repeated.", (
    Key("name", str, "required", "Unique name, as reports print it."),
    Key("extractor", str, "required", "`pdf:pypdfium2` (the project's, settings changed), "
        "`pdf:pypdfium2-plain` (pdfium's own order and lines, no rule of spanlab's), "
        "`pdf:pdfplumber` (extra `pdfplumber`), `html:stdlib`, `html:inscriptis` (extra "
        "`inscriptis`) or `docx:python-docx`."),
    Key("settings", dict, "{}", "The extractor's settings; `pdf:pypdfium2` takes `columns = "
        "\"off\"` (pdfium's order), `tables = \"off\"` (no pipe rows, no table over a page "
        "break), `headers = \"keep\"` (running headers and footers kept), `hyphens = "
        "\"keep\"` (hyphenated words left split); `pdf:pdfplumber` takes `layout = \"on\"` "
        "(the page's spacing kept) and `order = \"flow\"` (the PDF's drawing order); "
        "`html:inscriptis` takes `css = \"strict\"`."),
))  # fmt: skip

TABLES = (
    SETTINGS,
    TREATMENT_DEFAULTS,
    CANDIDATE,
    CONTEXT,
    PARENT,
    MMR,
    FUSION,
    RERANK,
    GATES,
    GENERATION,
    GENERATION_GATES,
    EXTRACTION,
    EXTRACTION_ALTERNATIVE,
)
"""Every table, in the order the reference shows them."""
