"""The recorded run: an invocation's rows of the results table read back into one typed model (recorded.py), its
rules, scores and protos (metrics, outcomes, scoring, assemble, ...), and the report pipeline that hands it to every
output (report.py)."""
