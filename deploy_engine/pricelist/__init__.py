"""Refreshing the catalogue's unit prices from the AWS Price List Bulk API (no Pulumi).

- :mod:`.fetch`: sources (AWS's public endpoint, http:// and file:// mirrors) and streaming reads;
- :mod:`.offers`: bounded-memory readers of JSON and CSV offer files;
- :mod:`.selectors`: which product each catalogue key is, by published attributes;
- :mod:`.refresh`: the walk index -> region index -> offer files, and the written folder;
- :mod:`.command`: the ``catalog refresh`` command (arguments, stderr, exit codes).

See catalog/README.md ("Refreshing from the AWS Price List") and docs/cli.md ("catalog refresh").
"""

from .refresh import Found, Missing, RefreshError, RefreshResult, refresh

__all__ = ["Found", "Missing", "RefreshError", "RefreshResult", "refresh"]
