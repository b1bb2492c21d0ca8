"""``python -m mlci.cli``: the ``mlci`` command."""

import sys

from . import main

if __name__ == "__main__":  # (importing the module, e.g. to walk the package, runs nothing)
    sys.exit(main())
