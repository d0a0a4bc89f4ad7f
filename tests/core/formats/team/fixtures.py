"""Files written the way each tool writes them, offsets counted in that tool's unit.

Shapes from the tools' own code and documentation: doccano's export of sequence labelling
(`{"id", "text", "label": [[s, e, tag]], "Comments"}`) and relation extraction (`entities`
with `start_offset`/`end_offset`), UTF-16 units (doccano#2290); Prodigy's `db-out` tasks
(`text`, `spans`, `answer`, `_input_hash`, `_task_hash`, `meta`); Argilla v2
`Record.to_dict()` (`id`, `fields`, `metadata`, `suggestions`, `responses`, `vectors`,
`_server_id`) and `GenericIO.to_list(flatten=True)` (`NAME.responses`, `.users`, `.status`,
`NAME.suggestion`); label-studio-converter `convert_to_json_min` (task data, one key per
control, `annotator`, `annotation_id`, `created_at`, `updated_at`, `lead_time`) and its
CSV; BEIR `qrels/test.tsv` with `queries.jsonl`. Offsets below are written by hand.
"""

from __future__ import annotations

import json

from labeler.core.corpus.folder import Corpus

EMOJI_DOC = "Refunds take 5 days 🎉. Returns need a label.\n"
"""`Returns need a label.` is code points 23..44, UTF-16 units 24..45, bytes 26..47."""
CRLF_RAW = "Line one.\r\nCafe\u0301 opens at 9.\r\n"
"""As a tool saw the file: `Café opens at 9.` is raw code points 11..28."""
QUESTION = "What do returns need?"
CORPUS = Corpus.from_texts({"help/refunds.md": EMOJI_DOC, "help/cafe.txt": CRLF_RAW})

DOCCANO_LABEL = json.dumps({
    "id": 1, "text": EMOJI_DOC, "label": [[24, 45, "EVIDENCE"]], "Comments": [],
    "question": QUESTION,
}, ensure_ascii=False) + "\n"  # fmt: skip
DOCCANO_ENTITIES = json.dumps({
    "id": 8, "text": EMOJI_DOC,
    "entities": [{"id": 10, "label": "EVIDENCE", "start_offset": 24, "end_offset": 45}],
    "relations": [], "Comments": [], "question": QUESTION,
}, ensure_ascii=False) + "\n"  # fmt: skip

PRODIGY = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in [
    {"text": EMOJI_DOC, "_input_hash": -1411286329, "_task_hash": 1720435405,
     "spans": [{"start": 23, "end": 44, "token_start": 6, "token_end": 9, "label": "EVIDENCE"}],
     "meta": {"question": QUESTION}, "_view_id": "ner_manual", "answer": "accept",
     "_timestamp": 1700000000, "_annotator_id": "returns-alice", "_session_id": "returns-alice"},
    {"text": EMOJI_DOC, "_input_hash": -1411286329, "_task_hash": 90125,
     "spans": [{"start": 0, "end": 7, "label": "EVIDENCE"}], "meta": {"question": QUESTION},
     "answer": "reject", "_timestamp": 1700000001},
])  # fmt: skip

ARGILLA_NESTED = json.dumps([{
    "id": "rec-1", "fields": {"text": EMOJI_DOC, "question": QUESTION},
    "metadata": {"doc": "help/refunds.md"},
    "suggestions": {"evidence": {"value": [{"label": "EVIDENCE", "start": 0, "end": 7}],
                                 "score": 0.4, "agent": "model-x"}},
    "responses": {"evidence": [
        {"value": [{"label": "EVIDENCE", "start": 24, "end": 45}], "user_id": "u-1",
         "status": "submitted"},
        {"value": [{"label": "EVIDENCE", "start": 0, "end": 7}], "user_id": "u-2",
         "status": "discarded"},
    ]},
    "vectors": {}, "_server_id": "8a1c1c3e-0000-0000-0000-000000000001",
}], ensure_ascii=False)  # fmt: skip
ARGILLA_FLAT = json.dumps([{
    "id": "rec-1", "_server_id": "8a1c1c3e-0000-0000-0000-000000000001", "status": "completed",
    "text": EMOJI_DOC, "question": QUESTION,
    "evidence.responses": [[{"label": "EVIDENCE", "start": 24, "end": 45}]],
    "evidence.responses.users": ["u-1"], "evidence.responses.status": ["submitted"],
    "evidence.suggestion": None, "evidence.suggestion.score": None,
    "evidence.suggestion.agent": None,
}], ensure_ascii=False)  # fmt: skip

LS_MIN = json.dumps([{
    "text": CRLF_RAW, "question": "When does the café open?", "id": 12,
    "label": [{"start": 11, "end": 28, "text": "Cafe\u0301 opens at 9.", "labels": ["Evidence"]}],
    "annotator": 3, "annotation_id": 40, "created_at": "2024-05-01T10:00:00.000000Z",
    "updated_at": "2024-05-01T10:00:00.000000Z", "lead_time": 4.2,
}], ensure_ascii=False)  # fmt: skip
LS_CSV = (
    "annotation_id,annotator,created_at,id,label,lead_time,question,text,updated_at\n"
    '40,3,2024-05-01T10:00:00.000000Z,12,"[{""start"": 24, ""end"": 45, ""text"": '
    '""Returns need a label."", ""labels"": [""Evidence""]}]",4.2,What do returns need?,'
    f'"{EMOJI_DOC}",2024-05-01T10:00:00.000000Z\n'
)
"""An older Label Studio: UTF-16 offsets, so the quote decides the unit."""

BEIR_QUERIES = '{"_id": "7", "text": "What do returns need?", "metadata": {}}\n'
BEIR_QRELS = "query-id\tcorpus-id\tscore\n7\trefunds\t1\n7\tcafe\t0\n"
TREC_QRELS = "7 0 help/refunds.md 2\n"
