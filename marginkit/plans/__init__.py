"""First-order iteration plans, one sub-package per paper family, plus ``common`` (what several families share).
Nothing here registers itself: the registry (:mod:`marginkit.engine.registry`) names every plan class."""
