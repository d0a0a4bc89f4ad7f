"""What Label Studio's and doccano's own importers accept, read from their source.

Neither server fits in CI (Label Studio 1.23.2 is Django with a 74 MB wheel; doccano 1.8.4
needs Django, pandas and celery; label-studio-sdk 2.1.2, the light part, still pulls
numpy, pandas, opencv and nltk), so their import rules are written down here, each with
the file it comes from, and every export spanlab writes for those tools is checked by
them. A change in those tools' rules is a change here.
"""

from __future__ import annotations

from typing import Any

# label_studio 1.23.2, label_studio/tasks/validation.py: _DATA_TYPES
LS_DATA_TYPES: dict[str, tuple[type, ...]] = {
    "Text": (str, int, float, list),
    "Header": (str, int, float),
}


def label_studio_refusal(
    tasks: Any,
    config: dict[str, str],
    *,
    from_name: str = "label",
    to_name: str = "text",
    text_key: str = "text",
) -> str | None:
    """Why Label Studio's import refuses `tasks` for a project whose labelling config
    has the object tags `config` ({data key: tag}), or None when it takes them.

    label_studio/tasks/validation.py TaskValidator.validate and check_data: every task a
    dict with a `data` dict holding each config key with a type its tag takes;
    `annotations` a list of dicts, each with a `result` list. tasks/serializers.py
    _insert_valid_completed_by: `completed_by` absent (the importing user), a member's id
    (int) or `{"email": …}` of a member. Results are matched to the config by
    `from_name`/`to_name` (label-studio-sdk 2.1.2, label_interface/interface.py), and
    Label Studio >= 1.7 counts `value.start`/`end` in code points of the text.
    """
    if not isinstance(tasks, list):
        return "the import is a list of tasks"
    for i, task in enumerate(tasks):
        if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
            return f"task {i}: no data dict"
        data = task["data"]
        for key, tag in config.items():
            if key not in data:
                return f'task {i}: "{key}" key is expected in task data'
            if not isinstance(data[key], LS_DATA_TYPES[tag]):
                return f"task {i}: data[{key!r}] is a {type(data[key]).__name__}"
        annotations = task.get("annotations", [])
        if not isinstance(annotations, list):
            return f"task {i}: annotations is not a list"
        for a in annotations:
            problem = _annotation(a, data.get(text_key), from_name, to_name)
            if problem:
                return f"task {i}: {problem}"
    return None


def _annotation(a: Any, text: Any, from_name: str, to_name: str) -> str | None:
    if not isinstance(a, dict) or not isinstance(a.get("result"), list):
        return 'Annotation must have "result" fields'
    by = a.get("completed_by")
    if by is not None and not isinstance(by, int) and not (isinstance(by, dict) and "email" in by):
        return f"completed_by={by} is not a valid annotator's email or ID"
    for r in a["result"]:
        if r.get("from_name") != from_name or r.get("to_name") != to_name:
            return f"result {r.get('id')} names no control of the config"
        v = r["value"]
        if not (
            isinstance(v["start"], int) and isinstance(v["end"], int) and v["start"] < v["end"]
        ):
            return f"result {r.get('id')}: bad offsets"
        if isinstance(text, str) and text[v["start"] : v["end"]] != v["text"]:
            return f"result {r.get('id')}: value.text is not the text at its offsets"
    return None


def doccano_refusal(lines: list[dict[str, Any]], *, allow_overlapping: bool = False) -> str | None:
    """Why doccano 1.8.4's sequence-labelling import refuses or drops part of `lines`.

    backend/data_import/pipeline/data.py TextData.text_is_not_empty: "The empty text is
    not allowed."; pipeline/label.py SpanLabel: `[start_offset, end_offset, label]`,
    non-negative, start < end, label at least one character; labels/managers.py
    SpanManager.can_annotate with labels/models.py Span.is_overlapping: an overlapping
    span is dropped unless the project allows overlapping. Offsets in UTF-16 units.
    """
    for n, line in enumerate(lines, 1):
        text = line.get("text")
        if not isinstance(text, str) or not text:
            return f"line {n}: The empty text is not allowed."
        units = len(text.encode("utf-16-le")) // 2
        kept: list[tuple[int, int]] = []
        for item in line.get("label", []):
            start, end, label = item
            if not (isinstance(label, str) and label and 0 <= start < end <= units):
                return f"line {n}: bad label {item}"
            if not allow_overlapping and any(_overlaps((start, end), k) for k in kept):
                return f"line {n}: span {start}..{end} overlaps another and is dropped"
            kept.append((start, end))
    return None


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    # labels/models.py Span.is_overlapping, with self = a and other = b
    return b[0] <= a[0] < b[1] or b[0] < a[1] <= b[1] or (a[0] < b[0] and b[1] < a[1])
