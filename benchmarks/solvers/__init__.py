"""The competitors (benchopt's ``solvers/``): marginkit's methods chosen by registry tag
(:mod:`.marginkit_methods`), CVXPY's solvers in capped child processes (:mod:`.cvxpy_solvers`) and liblinear
through scikit-learn's ``LinearSVC`` (:mod:`.liblinear`)."""
