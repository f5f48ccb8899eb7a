"""Certified CVXPY references, one per problem form (listed as the ``cvxpy`` cards of the registry). CVXPY is
imported when a reference is first built, never by ``import marginkit``."""
