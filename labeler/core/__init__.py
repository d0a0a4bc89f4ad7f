"""The headless label domain. sqlite_utils is imported here first, with pandas and numpy
hidden: it imports them only to map DataFrame and array types, which the store never
writes, and they cost ~300 ms of every command's start (SPEC §12: app ready ≤ 1 s)."""

import sys


def _import_sqlite_utils_without_optional_types() -> None:
    hidden = [name for name in ("pandas", "numpy") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # import fails, as if absent
    try:
        import sqlite_utils  # noqa: F401
    finally:
        for name in hidden:
            del sys.modules[name]


_import_sqlite_utils_without_optional_types()
