"""Sources teams keep (design §22): PDF, HTML and DOCX read into Markdown-like canonical text,
each offset mapped back to its page and box, element or paragraph, and the extractor bound
into the document's hash."""
