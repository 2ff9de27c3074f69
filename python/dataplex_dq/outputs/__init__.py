"""Every output of a report, each reading the recorded run (run/model.py): post-scan actions (actions: a copy to
another results table, catalog publishing, notifications), result files, the HTML report."""
