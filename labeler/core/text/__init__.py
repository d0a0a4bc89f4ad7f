"""Text as code points (§2, §13): grapheme edges a span may not cut, range arithmetic as
Chroma's chunking evaluation does it, and the sentences and words search and suggestions share."""
