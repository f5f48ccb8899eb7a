"""A primal–dual interior-point method for the SVM family (Ferris & Munson, *Interior-point methods for massive
support vector machines*, SIAM J. Optim. 13(3), 2003): the normal equations of the SVM structure, d × d."""
