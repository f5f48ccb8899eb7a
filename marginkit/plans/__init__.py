"""First-order iteration plans, one module per paper family. Importing a module registers its methods
(and reductions) in the graph of :mod:`marginkit.reductions`."""
from . import dual_acceleration  # noqa: F401  Ji, Srebro & Telgarsky
