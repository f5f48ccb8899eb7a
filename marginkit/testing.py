"""The plan contract for anyone's plan: :func:`check_plan` and :func:`check_obligation` (scikit-learn's
``check_estimator`` idea), raising :class:`PlanContractError` on the first obligation of :data:`OBLIGATIONS` a plan
breaks. The public name of :mod:`marginkit.api.testing`, where the obligations are documented; a plan author finds it
and everything else a plan uses in :mod:`marginkit.plugin`."""
from .api.testing import *  # noqa: F403 -- the public module re-exports the api module's names
from .api.testing import __all__  # noqa: F401
