"""``python -m mlci.cli``: the ``mlci`` command."""

import sys

from . import main

if __name__ == "__main__":  # importing the module (e.g. pkgutil.walk_packages) runs nothing
    sys.exit(main())
