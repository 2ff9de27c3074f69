"""Profiles of the data sources (`dataplex-dq profile`) and the rules suggested from them (`dataplex-dq suggest`)."""
