"""The corpus (§2): a folder of documents read into canonical text and hashes — which files,
how the folder is walked and watched, documents an import adds, and sentences ranked for a query."""
