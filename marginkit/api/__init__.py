"""The api room: what a user calls, above the engine, the plans and the references.

``certify`` (anyone's answer certified), ``describe`` (a method's options and theory), ``path`` (certified
regularisation paths), ``crossval`` (``cross_validate``) and ``report`` (its ``Report``), ``bounds`` (the papers'
bounds with certified constants), ``estimator`` (``MarginClassifier``), ``datasets`` and ``cli``. Every public name
is importable from ``marginkit`` itself (the contract names them there); nothing below this room imports it.
"""
