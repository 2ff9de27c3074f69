"""dataplex_dq: Google Dataplex auto data quality inside dbt."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("dbt-dataplex-dq")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.1.0"

__all__ = ["__version__"]
