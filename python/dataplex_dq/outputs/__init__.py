"""Every output of a report, behind one interface (base.py), registered in registry.py, each reading the recorded
run (run/model.py): a copy to another results table, catalog publishing, notifications, result files, the HTML
report."""
