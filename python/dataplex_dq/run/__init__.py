"""The recorded run: an invocation's rows of the results table, read back (recorded.py), and recording a run
through the package's writer when its hook did not (record.py)."""
