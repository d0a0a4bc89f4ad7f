"""Sources the tests write for themselves (§22): PDFs by reportlab, DOCX by python-docx, HTML
by hand, each small and laid out so one rule of the extractors shows in each."""

from __future__ import annotations

import io
import zlib
from pathlib import Path

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
"""A font with the fi ligature's glyph; the ligature test is skipped without it."""
WIDTH, HEIGHT = 600.0, 800.0

LEFT = ["Refunds are paid within fourteen", "days of the receipt of the pay-",
        "ment by the team in charge."]  # fmt: skip
RIGHT = ["Shipping is free for all orders", "over fifty euros sent within the",
         "union, and costs five otherwise."]  # fmt: skip


def handbook_pdf() -> bytes:
    """Two pages under a running header and footer: two columns drawn line by line across
    (left, right, left, ...) with a hyphenated word; then a table and Chinese text."""
    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=(WIDTH, HEIGHT))
    for page in (1, 2):
        c.setFont("Helvetica", 9)
        c.drawString(50, 770, "Acme Handbook")
        c.drawString(280, 30, f"Page {page}")
        c.setFont("Helvetica", 11)
        if page == 1:
            c.drawString(50, 720, "Policies for customers of Acme in every country we serve")
            for i, (left, right) in enumerate(zip(LEFT, RIGHT, strict=True)):
                c.drawString(50, 680 - 16 * i, left)
                c.drawString(330, 680 - 16 * i, right)
        else:
            for i, row in enumerate([("Plan", "Days", "Fee"), ("Basic", "14", "0"),
                                     ("Pro", "30", "5")]):  # fmt: skip
                for j, cell in enumerate(row):
                    c.drawString(50 + 120 * j, 700 - 16 * i, cell)
            c.setFont("STSong-Light", 11)
            c.drawString(50, 600, "退款在十四天内支付")
        c.showPage()
    c.save()
    return out.getvalue()


def ligature_pdf() -> bytes:
    """One line with the fi and ffi ligatures as single glyphs."""
    pdfmetrics.registerFont(TTFont("DejaVu", str(DEJAVU)))
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=(WIDTH, HEIGHT))
    c.setFont("DejaVu", 11)
    c.drawString(50, 700, "the \ufb01le of the o\ufb03ce")
    c.showPage()
    c.save()
    return out.getvalue()


def blank_pdf(pages: int = 1) -> bytes:
    """Pages with no text at all: what a scan looks like to a text extractor."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=(WIDTH, HEIGHT))
    for _ in range(pages):
        c.rect(50, 50, 200, 200, fill=1)
        c.showPage()
    c.save()
    return out.getvalue()


def text_pdf(lines: list[str], pages: int = 1) -> bytes:
    """`pages` pages, each with the given lines."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=(WIDTH, HEIGHT))
    for _ in range(pages):
        c.setFont("Helvetica", 11)
        for i, line in enumerate(lines):
            c.drawString(50, 700 - 16 * i, line)
        c.showPage()
    c.save()
    return out.getvalue()


HELP_HTML = """<!doctype html>
<html><head><title>Help</title><style>p { color: red }</style>
<script>var tracking = 1;</script></head>
<body>
<nav class="top"><a href="/">Home</a> <a href="/help">Help</a></nav>
<div id="cookie-banner">We use cookies. <button>Accept</button></div>
<header><p>Acme Help Center</p></header>
<main>
<h1>Refunds</h1>
<p>Refunds are paid within <b>14 days</b>.</p>
<ul><li>Cards<ul><li>Visa</li><li>Amex</li></ul></li><li>Cash</li></ul>
<table><tr><th>Plan</th><th>Days</th></tr><tr><td>Basic</td><td>14</td></tr></table>
<pre><code class="language-python">def refund(days):
    return days &lt;= 14
</code></pre>
<p>Call <code>refund(14)</code> first.</p>
</main>
<footer>&copy; Acme</footer>
</body></html>
"""

HELP_TEXT = """# Refunds

Refunds are paid within 14 days.

- Cards
  - Visa
  - Amex
- Cash

| Plan | Days |
| --- | --- |
| Basic | 14 |

```python
def refund(days):
    return days <= 14
```

Call `refund(14)` first.
"""


def policy_docx() -> bytes:
    """A heading, a paragraph, a bulleted item, a second heading and a 2x2 table."""
    import docx

    d = docx.Document()
    d.add_heading("Leave policy", 1)
    d.add_paragraph("Staff get 25 days of leave.")
    d.add_paragraph("Unused days carry over", style="List Bullet")
    d.add_heading("By grade", 2)
    table = d.add_table(rows=2, cols=2)
    for (r, c), text in {(0, 0): "Grade", (0, 1): "Days", (1, 0): "A", (1, 1): "25"}.items():
        table.cell(r, c).text = text
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


POLICY_TEXT = """# Leave policy

Staff get 25 days of leave.

- Unused days carry over

## By grade

| Grade | Days |
| --- | --- |
| A | 25 |
"""


def long_table_pdf() -> bytes:
    """A table of a header and five rows, the last two on a second page; a footer on both."""
    rows = [("Plan", "Days", "Fee"), ("Basic", "14", "0"), ("Pro", "30", "5"),
            ("Team", "45", "9"), ("Firm", "60", "12"), ("Gold", "90", "20")]  # fmt: skip
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=(WIDTH, HEIGHT))
    for page, chunk in ((1, rows[:4]), (2, rows[4:])):
        c.setFont("Helvetica", 11)
        for i, row in enumerate(chunk):
            for j, cell in enumerate(row):
                c.drawString(50 + 120 * j, 700 - 16 * i, cell)
        c.setFont("Helvetica", 9)
        c.drawString(280, 30, f"Page {page}")
        c.showPage()
    c.save()
    return out.getvalue()


PLANS = [("Plan", "Days", "Fee"), ("Basic", "14", "0"), ("Pro", "30", "5"),
         ("Team", "45", "9"), ("Gold", "90", "20")]  # fmt: skip


def compared_pdf() -> bytes:
    """What extractors disagree on (§22): two columns drawn line by line across, one with a
    word hyphenated (`pay-` `ment`), on page 1; on page 2 a line, then a table at the page's
    foot whose last row is over the break, at the top of page 3; `Page N` at every foot."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=(WIDTH, HEIGHT))
    c.setFont("Helvetica", 11)
    for i, (left, right) in enumerate(zip(LEFT, RIGHT, strict=True)):
        c.drawString(50, 660 - 16 * i, left)
        c.drawString(330, 660 - 16 * i, right)
    for page, rows, top in ((1, [], 0), (2, PLANS[:4], 200), (3, PLANS[4:], 700)):
        c.setFont("Helvetica", 11)
        if page == 2:
            c.drawString(50, 700, "Plans renew every month and can be cancelled at any time.")
        for i, row in enumerate(rows):
            for j, cell in enumerate(row):
                c.drawString(50 + 120 * j, top - 16 * i, cell)
        if page == 3:
            c.drawString(50, 640, "Prices are in euros per month.")
        c.setFont("Helvetica", 9)
        c.drawString(280, 30, f"Page {page}")
        c.showPage()
    c.save()
    return out.getvalue()


def bomb_pdf(mib: int) -> bytes:
    """A PDF bomb: one page whose content stream, a few KB deflated, inflates to `mib` MiB of
    text operators (pdfium holds each one: about 17 MB of memory per MiB inflated)."""
    z = zlib.compressobj(9)
    unit = b"BT /F1 1 Tf 0 0 Td (a) Tj ET\n" * 4096
    body = b"".join(z.compress(unit) for _ in range((mib << 20) // len(unit))) + z.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(body) + body + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, obj in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + obj + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % at for at in offsets))
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(objects) + 1))
    out.write(b"startxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def half_scanned_pdf() -> bytes:
    """Three pages: text, a scan (an image and no text), text."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=(WIDTH, HEIGHT))
    for page in (1, 2, 3):
        if page == 2:
            c.rect(50, 50, 400, 600, fill=1)
        else:
            c.setFont("Helvetica", 11)
            c.drawString(50, 700, f"Text of page {page}.")
        c.showPage()
    c.save()
    return out.getvalue()
