"""What Python 3.11 added and this package uses, for Python 3.10 (``requires-python >=3.10``).

On 3.11 and later every name is the standard library's own; on 3.10 it is a small equivalent:

* ``UTC``: ``datetime.UTC`` (3.11) is ``datetime.timezone.utc``.
* ``StrEnum``: ``enum.StrEnum`` (3.11): ``str()`` and ``format()`` of a member give its value.
* ``Self``: ``typing.Self`` (3.11) from ``typing_extensions`` (a dependency on 3.10 only).
* ``fromisoformat``: ``datetime.fromisoformat`` of 3.11 reads any ISO 8601 form (``Z``, ``+02``,
  nine fraction digits, ``20240501T120000``); 3.10's reads only what ``isoformat()`` writes, so the
  common forms warehouses return are rewritten to that first.
"""

from __future__ import annotations

import re
import sys
from datetime import datetime, timezone
from enum import Enum

__all__ = ["UTC", "Self", "StrEnum", "fromisoformat"]

UTC = timezone.utc

# date, separator, time with an optional fraction, optional zone (Z, +HH, +HHMM, +HH:MM[:SS])
_ISO = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})(?:(?P<sep>[T ])(?P<time>\d{2}:\d{2}(?::\d{2})?)"
    r"(?:[.,](?P<frac>\d+))?\s*(?P<tz>Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?)?$"
)


def fromisoformat_310(text: str) -> datetime:
    """``datetime.fromisoformat`` as of Python 3.11 for the forms dbt and the warehouses write, on 3.10:
    the text rewritten to what 3.10's ``fromisoformat`` reads (six fraction digits, ``+HH:MM``)."""
    match = _ISO.match(text.strip())
    if match is None:
        return datetime.fromisoformat(text)
    out = match["date"]
    if match["time"]:
        out += match["sep"] + match["time"]
        if match["frac"]:
            out += "." + match["frac"][:6].ljust(6, "0")
        tz = match["tz"]
        if tz == "Z":
            out += "+00:00"
        elif tz:
            digits = tz[1:].replace(":", "")
            out += tz[0] + ":".join(digits[i : i + 2] for i in range(0, len(digits), 2))
            if len(digits) == 2:
                out += ":00"
    return datetime.fromisoformat(out)


if sys.version_info >= (3, 11):
    from enum import StrEnum
    from typing import Self

    fromisoformat = datetime.fromisoformat
else:  # pragma: no cover - run by the Python 3.10 cell of `make matrix`
    from typing_extensions import Self

    class StrEnum(str, Enum):
        """``enum.StrEnum`` of Python 3.11: the members are strings and print as their value."""

        def __str__(self) -> str:
            return str(self.value)

        def __format__(self, format_spec: str) -> str:
            return str(self.value).__format__(format_spec)

    fromisoformat = fromisoformat_310
