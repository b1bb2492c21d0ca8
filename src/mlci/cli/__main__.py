"""``python -m mlci.cli``: the ``mlci`` command."""

import sys

from . import main

sys.exit(main())
