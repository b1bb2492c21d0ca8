"""Test-suite configuration.

Long statistical simulations are marked ``slow``; their size is multiplied by the
environment variable ``MLCI_SLOW_SCALE``.  A plain ``python -m pytest`` runs them at
scale 0.1 (about a minute in all), so the README's test command stays quick; the full
studies behind docs/validation.md run with ``MLCI_SLOW_SCALE=1 python -m pytest -m slow``.
"""

from __future__ import annotations

import os

os.environ.setdefault("MLCI_SLOW_SCALE", "0.1")

# conftest files hold fixtures, not doctests: collecting them as doctest modules imports a
# second "conftest" module (tests/backends/conftest.py) under the same name
collect_ignore_glob = ["conftest.py", "*/conftest.py"]
