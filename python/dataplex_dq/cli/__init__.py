"""The `dataplex-dq` command line: the group and the console script (main), one module per command."""
