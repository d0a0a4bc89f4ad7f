"""Writes the demo's PDF, `corpus/reference/installer-handbook.pdf`, byte for byte the same
on every run (reportlab's invariant mode: no dates, no random document id).

Three Letter pages under a running header and footer: a wiring table whose header is on page
1 and whose last rows are on page 2, a paragraph that runs from page 2 onto page 3, and one
hyphenated word. Lines are drawn one by one so the layout never depends on reportlab's
paragraph flow. Run it from anywhere: `python data/demo/make_sources.py`; it says whether
the file changed. The HTML page beside it (`help/hub-lights.html`) is written by hand.
"""

from __future__ import annotations

import hashlib
import io
import sys
from pathlib import Path

from reportlab import rl_config
from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

rl_config.invariant = 1

OUT = Path(__file__).resolve().parent / "corpus" / "reference" / "installer-handbook.pdf"
TITLE = "Tallis Home - Hub Installer Handbook"
LEFT, TOP, LEADING = 72, 700, 15

PAGES: list[list[tuple[str, ...] | str]] = [
    [
        "# 1. Where to mount the hub",
        "Mount the hub at least 1.5 metres above the floor and no closer than 30 centimetres",
        "to a router, a microwave oven or a metal cabinet. Never mount it inside a fuse box or",
        "a ceiling void: the hub needs air around it, and its radio range drops by half behind",
        "metal.",
        "",
        "# 2. Wiring limits",
        "Wired devices connect to the terminal block on the back of the hub. Each device has",
        "its own cable type and longest run, measured from the terminal block:",
        "",
        ("Device", "Cable", "Longest run"),
        ("Thermostat T3", "18 AWG, 5 core", "50 m"),
        ("Door Sensor", "22 AWG, 2 core", "100 m"),
        ("Smart Relay", "16 AWG, 3 core", "30 m"),
        ("Siren S1", "22 AWG, 2 core", "80 m"),
        ("Keypad K2", "22 AWG, 4 core", "60 m"),
    ],
    [
        ("Leak Detector probe", "24 AWG, 2 core", "15 m"),
        ("Valve Actuator", "18 AWG, 3 core", "25 m"),
        "",
        "A longer run than the table allows works at first and then fails in cold weather. Use",
        "a Tallis Signal Booster every 15 metres beyond the limit rather than a thicker cable.",
        "",
        "# 3. Power and backup",
        "The hub runs from the mains through its 12 V adapter. When the mains fails, it moves",
        "to its backup battery within 50 milliseconds and keeps every sensor, alarm and auto-",
        "mation running. The battery lasts about nine hours with the standard set of devices.",
        "If the hub runs on its backup battery for more than six hours, it stops uploading",
    ],
    [
        "camera clips and sends only alarms and sensor readings until the mains returns.",
        "",
        "# 4. Resetting the hub",
        "A short press of the reset button restarts the hub and keeps every setting. Holding",
        "it for ten seconds, until the ring flashes white three times, erases every device,",
        "rule and Wi-Fi setting; the hub must then be set up again from the Tallis app.",
    ],
]
"""Each page's lines: a string is a line of text (`# ` marks a heading, drawn bold), a tuple
is a table row, one cell per column."""
COLUMNS = (LEFT, LEFT + 170, LEFT + 330)


def draw_page(c: canvas.Canvas, number: int, lines: list[tuple[str, ...] | str]) -> None:
    """One page: header, footer, then its lines from the top down."""
    c.setFont("Helvetica", 9)
    c.drawString(LEFT, 750, TITLE)
    c.drawString(290, 36, f"Page {number}")
    y = TOP
    for line in lines:
        if isinstance(line, tuple):
            c.setFont("Helvetica", 11)
            for x, cell in zip(COLUMNS, line, strict=True):
                c.drawString(x, y, cell)
        elif line.startswith("# "):
            c.setFont("Helvetica-Bold", 13)
            c.drawString(LEFT, y, line[2:])
        elif line:
            c.setFont("Helvetica", 11)
            c.drawString(LEFT, y, line)
        y -= LEADING
    c.showPage()


def handbook() -> bytes:
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter, invariant=1)
    c.setTitle(TITLE)
    c.setAuthor("Tallis Home (fictional)")
    for number, lines in enumerate(PAGES, 1):
        draw_page(c, number, lines)
    c.save()
    return out.getvalue()


def main() -> int:
    data = handbook()
    before = OUT.read_bytes() if OUT.exists() else b""
    OUT.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()[:16]
    print(f"{OUT.name}: {len(data):,} bytes, sha256 {digest}… "
          f"{'unchanged' if data == before else 'written'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
