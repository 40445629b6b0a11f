"""Scale benchmark: the engines at MovieLens-1M and -20M size against dense baselines.

Run from the repository root (not part of the test suite)::

    python benchmarks/scale.py                      # ml1m and ml20m, 15-20 minutes on 2 quiet cores
    python benchmarks/scale.py --size small --quiet # a quick check
    python benchmarks/scale.py --output benchmarks/results.md

Data are generated, not downloaded: 138,000 users x 27,000 items with ~16M
interactions (ML-20M-like: log-normal history lengths >= 20, power-law item
popularity), and 6,040 x 3,706 with ~1M (ML-1M-like); 20% of each user's
interactions become graded test relevance, lists are popularity draws, NDCG@10
is the effectiveness. Each case runs in its own subprocess; the table gives
wall time, the subprocess's peak resident memory (input and interpreter
included), and the speed-up over the dense baseline (similarity via a scipy
sparse product, then the dense formula) where that fits in memory.

Targets on a 2-core, 24 GB machine: cosine-PUF exact at ML-20M < 10 s;
Jaccard-PUF exact at ML-20M < 10 min and < 4 GB; the sampled estimate within
±1% (95% CI) in < 10 s; UF exact at ML-20M < 10 min and < 4 GB, with a sampled
UF (95% CI) in seconds; ME/MME/PEU at ML-20M < 20 s.
"""

import argparse
import sys

from puf.cli.commands.bench import add_arguments, run


def main(argv=None):
    parser = argparse.ArgumentParser(prog="benchmarks/scale.py", description=__doc__.split("\n\n")[0])
    add_arguments(parser, default_sizes=("ml1m", "ml20m"))
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
