"""SimProf: phase analysis and stratified sampling of data-analytic jobs
(seed 000, chapter 5).

- :mod:`.phases`: method-frequency vectors, regression feature selection,
  k-means with the silhouette rule, phase homogeneity (5.3.2, Figs. 39, 40);
- :mod:`.sampling`: optimal allocation, confidence intervals, sample sizes
  for a target error, and the SECOND, SRS and CODE baselines (5.3.3,
  eqs. 33-37, Figs. 41, 42);
- :mod:`.sensitivity`: unit classification and the input-sensitivity test
  (5.3.4, Algorithm 5.1, eq. 38, Figs. 46, 47).
"""
