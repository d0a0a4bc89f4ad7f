"""The headless label domain. sqlite_utils is imported only when the store first writes,
and then with pandas and numpy hidden: it imports them only to map DataFrame and array
types, which the store never writes, and they and it cost ~400 ms of a start that only
reads (design §12: app ready ≤ 1 s)."""

import sys
from types import ModuleType


def sqlite_utils_quietly() -> ModuleType:
    """The sqlite_utils module, imported (once) without pandas and numpy."""
    if "sqlite_utils" in sys.modules:
        return sys.modules["sqlite_utils"]
    hidden = [name for name in ("pandas", "numpy") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # import fails, as if absent
    try:
        import sqlite_utils
    finally:
        for name in hidden:
            del sys.modules[name]
    return sqlite_utils
