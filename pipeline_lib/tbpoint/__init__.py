"""TBPoint: inter- and intra-launch sampling for GPU simulation (seed 000,
chapter 3).

- :mod:`.inter_launch`: eq. 6 launch features, complete-linkage clustering,
  representatives and weights (3.3, Table 4);
- :mod:`.regions`: epochs (eq. 8), stall probability and variation factor
  (eq. 9), homogeneous regions (3.4.3, Table 3);
- :mod:`.policy`: sampling inside the simulator (3.4.4, Table 4);
- :mod:`.markov`: the Markov-chain model of a homogeneous interval (3.4.1,
  eq. 7, Fig. 7);
- :mod:`.clustering`: the threshold clustering both levels share.
"""
