"""Dataplex specs in and out: reading any spec file (reader), import-spec, export-spec, transpiling GoogleSQL
(transpile), and the quality diff between two runs (diff)."""
