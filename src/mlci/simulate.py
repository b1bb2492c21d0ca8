"""The former name of :mod:`mlci.simulation` (simulated data and coverage studies), kept so
that ``from mlci import simulate`` and ``mlci.simulate.<name>`` work as before.

Examples
--------
>>> from mlci import simulate
>>> sim = simulate.binary_classification(500, accuracy=0.8, rng=0)
>>> sim.true_value, sim.y_true.shape
(0.8, (500,))
"""

from __future__ import annotations

# every public name of mlci.simulation, under its former module name
from .simulation import *  # noqa: F403
from .simulation import __all__ as __all__
