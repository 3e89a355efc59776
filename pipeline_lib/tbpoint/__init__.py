"""TBPoint: inter- and intra-launch sampling for GPU simulation (seed 000,
chapter 3).

- :mod:`.inter_launch`: eq. 6 launch features, complete-linkage clustering,
  representatives and weights (3.3, Table 4);
- :mod:`.regions`: epochs (eq. 8), stall probability and variation factor
  (eq. 9), homogeneous regions (3.4.3, Table 3);
- :mod:`.policy`: sampling inside the simulator (3.4.4, Table 4);
- :mod:`.markov`: the Markov-chain model of a homogeneous interval (3.4.1,
  eq. 7, Fig. 7);
- :mod:`.clustering`: the threshold clustering both levels share;
- :mod:`.baselines`: Random and Ideal-SimPoint (3.5.1);
- :mod:`.floor`: the least sample size the method's structure allows (ours);
- :mod:`.run`: the rules' entry points, validation tables and summaries
  (3.5.2), the Fig. 7 study and host time;
- :mod:`.sensitivity`: errors and sample sizes over occupancy (3.5.3,
  Figs. 15, 16); :mod:`.kernel_types`: regular and irregular kernels (Fig. 10);
  :mod:`.figures`: the PNG figures.
"""
