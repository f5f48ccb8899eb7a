"""First-order iteration plans, one module per paper family. Importing a module registers its methods
(and reductions) in the graph of :mod:`marginkit.reductions`."""
from . import dual_acceleration  # noqa: F401  Ji, Srebro & Telgarsky
from . import hinge_diagonal  # noqa: F401  Apidopoulos, Poggio, Rosasco & Villa
from . import fista  # noqa: F401  Hough & Vavasis
from . import homotopic  # noqa: F401  Molitor, Needell & Ward
from . import coordinate_ascent  # noqa: F401  Raj & Bach (randomized Dykstra, APCG, mirror descent)
from . import svm_coordinate  # noqa: F401  Raj & Bach App. C / Hsieh et al. (dual coordinate descent)
